// The learned GEMM path table (kernels/gemm_paths.json): lookup with a nearest-M-bucket fallback.
#include "kernels/gemm_paths.h"

#include <fstream>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "hw/catalog.h"

namespace loom {
namespace {

const std::vector<std::string> kBuckets = {"m1", "m2-8", "m9-32", "m33-128", "m129-512", "m513+"};

std::map<std::string, GemmPathChoice> load_table() {
  std::map<std::string, GemmPathChoice> t;
  const std::string path = data_dir() + "/kernels/gemm_paths.json";
  check_data_file(path);
  std::ifstream in(path);
  if (!in) return t;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "loom-gemm-paths 1" ||
      !j.contains("entries") || !j["entries"].is_object())
    throw InputError(path, "not a loom GEMM path table (schema loom-gemm-paths 1); regenerate with `loom trace paths`");
  for (const auto& [key, e] : j["entries"].items()) {
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string() || !e.contains("n") || !e["n"].is_number())
      throw InputError(path, "entry '" + key + "' needs path and n; regenerate with `loom trace paths`");
    GemmPathChoice c;
    c.path = e["path"].get<std::string>();
    c.share = e.value("share", 0.0), c.split_k_share = e.value("split_k_share", 0.0);
    c.n = e["n"].get<int>(), c.kernel = e.value("kernel", "");
    c.key = key;
    t[key] = c;
  }
  return t;
}

const std::map<std::string, GemmPathChoice>& table() {
  static std::once_flag once;
  static std::map<std::string, GemmPathChoice> t;
  std::call_once(once, [] { t = load_table(); });
  return t;
}

}  // namespace

int gemm_align_bytes(int64_t k, int64_t n, Dtype dt) {
  const int b = static_cast<int>(dtype_bytes(dt));
  int align = 16;
  while (align > b && ((k * b) % align != 0 || (n * b) % align != 0)) align /= 2;
  return align;
}

std::string gemm_m_bucket(int64_t m) {
  return m <= 1 ? kBuckets[0] : m <= 8 ? kBuckets[1] : m <= 32 ? kBuckets[2] : m <= 128 ? kBuckets[3]
         : m <= 512 ? kBuckets[4] : kBuckets[5];
}

std::string gemm_path_key(const std::string& arch, Dtype dt, int align_bytes, bool batched, int64_t m) {
  return arch + "|" + std::string(dtype_name(dt)) + "|a" + std::to_string(align_bytes) + "|" + (batched ? "b" : "s") +
         "|" + gemm_m_bucket(m);
}

std::optional<GemmPathChoice> lookup_gemm_path(const std::string& arch, Dtype dt, int align_bytes, bool batched,
                                               int64_t m) {
  const auto& t = table();
  const std::string exact = gemm_path_key(arch, dt, align_bytes, batched, m);
  if (auto it = t.find(exact); it != t.end()) return it->second;
  // Nearest M bucket with data, same architecture, dtype, alignment and batching.
  const std::string b = gemm_m_bucket(m);
  int at = 0;
  for (size_t i = 0; i < kBuckets.size(); ++i)
    if (kBuckets[i] == b) at = static_cast<int>(i);
  const std::string stem = exact.substr(0, exact.size() - b.size());
  for (int d = 1; d < static_cast<int>(kBuckets.size()); ++d)
    for (int i : {at - d, at + d})
      if (i >= 0 && i < static_cast<int>(kBuckets.size()))
        if (auto it = t.find(stem + kBuckets[i]); it != t.end()) return it->second;
  return std::nullopt;
}

}  // namespace loom
