// The learned GEMM path table (kernels/gemm_paths.json): lookup with a nearest-M-bucket fallback.
#include "kernels/gemm_paths.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_strict.h"
#include "hw/catalog.h"

namespace loom {
namespace {

const std::vector<std::string> kBuckets = {"m1", "m2-8", "m9-32", "m33-128", "m129-512", "m513+"};

std::map<std::string, GemmPathChoice> load_table() {
  const std::string path = data_dir() + "/kernels/gemm_paths.json";
  check_data_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_gemm_path_table(text, path);
}

const std::map<std::string, GemmPathChoice>& table() {
  static std::once_flag once;
  static std::map<std::string, GemmPathChoice> t;
  std::call_once(once, [] { t = load_table(); });
  return t;
}

}  // namespace

std::map<std::string, GemmPathChoice> parse_gemm_path_table(const std::string& text, const std::string& path) {
  const std::string regen = "; regenerate with `loom trace paths`";
  nlohmann::json j = parse_strict_json(text, path, StrictJsonMessages::for_hint(regen));
  if (!j.is_object() || !j.contains("schema") || j["schema"] != "loom-gemm-paths 1")
    throw InputError(path, "'schema' must be \"loom-gemm-paths 1\" (a loom GEMM path table)" + regen);
  for (const auto& [k, v] : j.items())
    if (k != "schema" && k != "about" && k != "entries" && k != "sources" && k != "rows_used" &&
        k != "rows_without_gemm_kernel")
      throw InputError(path, "unknown top-level key '" + k.substr(0, 80) + "'" + regen);
  if (!j.contains("entries") || !j["entries"].is_object())
    throw InputError(path, "'entries' must be an object of table keys" + regen);
  static const std::vector<std::string> paths = {"wgmma", "mma_sync", "wmma", "sm75", "simt", "gemv"};
  std::map<std::string, GemmPathChoice> t;
  for (const auto& [key, e] : j["entries"].items()) {
    const std::string where = "entry '" + key.substr(0, 80) + "'";
    // "<arch>|<dtype>|a<align bytes>|<b|s>|<M bucket>", as gemm_path_key writes it: any other key is never looked up.
    std::vector<std::string> f;
    for (size_t at = 0;;) {
      const size_t bar = key.find('|', at);
      f.push_back(key.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
      if (bar == std::string::npos) break;
      at = bar + 1;
    }
    const bool key_ok = f.size() == 5 && !f[0].empty() && parse_dtype(f[1]).has_value() &&
                        (f[2] == "a1" || f[2] == "a2" || f[2] == "a4" || f[2] == "a8" || f[2] == "a16") &&
                        (f[3] == "b" || f[3] == "s") &&
                        std::find(kBuckets.begin(), kBuckets.end(), f[4]) != kBuckets.end();
    if (!key_ok)
      throw InputError(path, where + ": not a table key <architecture>|<dtype>|a<1|2|4|8|16>|<b|s>|<m1|m2-8|m9-32|"
                                     "m33-128|m129-512|m513+>" + regen);
    if (!e.is_object()) throw InputError(path, where + " must be an object" + regen);
    for (const auto& [k, v] : e.items())
      if (k != "path" && k != "n" && k != "share" && k != "split_k_share" && k != "kernel" && k != "paths")
        throw InputError(path, where + ": unknown key '" + k.substr(0, 80) + "'" + regen);
    GemmPathChoice c;
    if (!e.contains("path") || !e["path"].is_string() ||
        std::find(paths.begin(), paths.end(), e["path"].get<std::string>()) == paths.end())
      throw InputError(path, where + ": 'path' must be one of wgmma, mma_sync, wmma, sm75, simt, gemv" + regen);
    c.path = e["path"].get<std::string>();
    if (!e.contains("n") || !e["n"].is_number_unsigned() || e["n"].get<uint64_t>() < 1 ||
        e["n"].get<uint64_t>() > 1000000000)
      throw InputError(path, where + ": 'n' must be a count of traced shapes in [1, 1e9]" + regen);
    c.n = static_cast<int>(e["n"].get<uint64_t>());
    for (const char* k : {"share", "split_k_share"}) {
      if (!e.contains(k)) continue;
      if (!e[k].is_number() || !(e[k].get<double>() >= 0 && e[k].get<double>() <= 1))
        throw InputError(path, where + ": '" + k + "' must be a fraction in [0, 1]" + regen);
      (std::string(k) == "share" ? c.share : c.split_k_share) = e[k].get<double>();
    }
    if (e.contains("kernel")) {
      if (!e["kernel"].is_string()) throw InputError(path, where + ": 'kernel' must be a string" + regen);
      c.kernel = e["kernel"].get<std::string>();
    }
    if (e.contains("paths")) {
      if (!e["paths"].is_object()) throw InputError(path, where + ": 'paths' must be an object of counts" + regen);
      for (const auto& [p, n] : e["paths"].items())
        if (!n.is_number_unsigned())
          throw InputError(path, where + ": 'paths' '" + p.substr(0, 40) + "' must be a count" + regen);
    }
    c.key = key;
    t[key] = c;
  }
  return t;
}

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
