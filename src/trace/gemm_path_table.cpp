// kernels/gemm_paths.json from traced cuBLAS GEMMs (see gemm_path_table.h).
#include "trace/gemm_path_table.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "kernels/gemm_paths.h"
#include "kernels/kernel_spec.h"
#include "trace/gemm_path.h"
#include "trace/gpu_names.h"
#include "trace/text_io.h"

namespace loom {

nlohmann::json build_gemm_path_table(const std::vector<Corpus>& corpora, const Catalog& catalog) {
  struct Tally {
    std::map<std::string, int> paths;
    std::map<std::string, std::map<std::string, int>> kernels;  // path -> kernel -> count
    std::map<std::string, int> split_k;                         // path -> split-K count
    int n = 0;
  };
  std::map<std::string, Tally> tally;
  int used = 0, skipped = 0;
  std::vector<std::string> sources;
  GpuNameTable names = GpuNameTable::load_default();
  for (const Corpus& c : corpora) {
    std::string key = !c.gpu_key.empty() ? c.gpu_key : names.key_for(c.gpu).value_or("");
    const auto known = catalog.names();
    if (key.empty() || std::find(known.begin(), known.end(), key) == known.end()) continue;
    const GpuSpec gpu = catalog.get(key);
    if (c.sms > 0 && c.sms != gpu.sms) continue;  // partitions: the library sees the whole chip's SM count
    if (c.meta.count("dataset")) continue;        // public or held-out data sets keep their own protocol
    bool any = false;
    for (const CorpusRow& r : c.rows) {
      if (r.family != "gemm" || r.impl.rfind("cublas", 0) != 0) continue;
      const KernelSpec spec = parse_kernel_spec(r.spec, c.path + ":case " + std::to_string(r.case_id));
      auto num = [&](const char* k, int64_t fallback) {
        auto it = spec.params.find(k);
        if (it == spec.params.end()) return fallback;
        auto v = trace_io::parse_i64(it->second);
        if (!v) throw InputError(spec.where, std::string(k) + "=" + it->second + " is not an integer");
        return *v;
      };
      auto dt_it = spec.params.find("dtype");
      if (dt_it == spec.params.end() || spec.params.count("scales")) continue;
      auto dt = parse_dtype(dt_it->second == "fp8_e4m3" ? "fp8" : dt_it->second);
      if (!dt) continue;
      const GemmPath p = gemm_path(r.kernels);
      if (p.path.empty()) {
        ++skipped;
        continue;
      }
      const int64_t m = num("m", 0), n = num("n", 0), k = num("k", 0), batch = num("batch", 1);
      if (m <= 0 || n <= 0 || k <= 0) continue;
      Tally& t = tally[gemm_path_key(gpu.architecture, *dt, gemm_align_bytes(k, n, *dt), batch > 1, m)];
      ++t.n, ++t.paths[p.path], ++t.kernels[p.path][p.kernel];
      if (p.split_k) ++t.split_k[p.path];
      ++used, any = true;
    }
    if (any) sources.push_back(c.path);
  }
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& [key, t] : tally) {
    std::string best;
    int best_n = -1;
    for (const auto& [p, n] : t.paths)
      if (n > best_n) best = p, best_n = n;
    std::string kernel;
    int kn = -1;
    for (const auto& [name, n] : t.kernels.at(best))
      if (n > kn) kernel = name, kn = n;
    auto sk = t.split_k.find(best);
    entries[key] = {{"path", best}, {"share", double(best_n) / t.n},
                    {"split_k_share", sk == t.split_k.end() ? 0.0 : double(sk->second) / best_n},
                    {"n", t.n}, {"kernel", kernel}, {"paths", t.paths}};
  }
  return {{"schema", "loom-gemm-paths 1"},
          {"about", "which GEMM code path cuBLAS ran, per (architecture|dtype|K/N alignment in bytes|batched or "
                    "single|M bucket), learned from the kernel names of traced whole-chip GEMMs; regenerate with "
                    "`loom trace paths`"},
          {"rows_used", used}, {"rows_without_gemm_kernel", skipped}, {"sources", sources}, {"entries", entries}};
}

}  // namespace loom
