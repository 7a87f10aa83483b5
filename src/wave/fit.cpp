// Pool loading, anchor selection and table building for the wave model (see fit.h).
#include "wave/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/error.h"
#include "kernels/kernel_spec.h"

namespace loom::wave {
namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

}  // namespace

std::string default_config(const std::string& family) {
  // The Triton GEMM's untuned config: the first entry of Triton's matmul tutorial autotune list (gemm_sweep.py
  // DEFAULT).
  if (family.rfind("gemm-triton", 0) == 0) return "128x256x64_s3_w8_g8";
  if (target_impl(family) == "triton") return "64x64x64_s3_w4_g1";
  return family == "moe" ? "64x64x64_s3_w4" : "128x128x32_s3_w4";
}

Pool load_pool(const std::vector<Corpus>& corpora, const GpuSpec& gpu, const std::string& gpu_key,
               const std::string& family, const std::string& traces_where) {
  check_tune_family(family, "--family");
  const std::string base = base_family(family), impl = target_impl(family), dtype = target_dtype(family);
  // loom-bench's sweeps: the corpus of the GPU with the most SMs. The Triton sweeps (scripts/tune-moe-collect.sh,
  // scripts/tune-gemm-triton-collect.sh) come in parts: every full-chip corpus of the GPU written by the sweep tool.
  const std::string sweep_tool = base == "gemm" ? "gemm_sweep.py" : "moe_sweep.py";
  const std::string collect = base == "gemm" ? "scripts/tune-gemm-triton-collect.sh" : "scripts/tune-moe-collect.sh";
  auto is_triton_sweep = [&](const Corpus& c) {
    auto tool = c.meta.find("tool");
    return tool != c.meta.end() && tool->second == sweep_tool;
  };
  // Only corpora that hold this target's rows count (traces/h200 also holds cuBLAS and PyTorch sweeps at 132 SMs).
  auto has_rows = [&](const Corpus& c) {
    return std::any_of(c.rows.begin(), c.rows.end(), [&](const CorpusRow& r) {
      return r.impl == impl && r.family == base && r.spec.find(" config=") != std::string::npos;
    });
  };
  const Corpus* best = nullptr;
  for (const auto& c : corpora)
    if (c.gpu_key == gpu_key && is_triton_sweep(c) == (impl == "triton") && (!best || c.sms > best->sms) && has_rows(c))
      best = &c;
  if (!best)
    throw InputError(traces_where,
                     "no " + impl + " tuning corpus for GPU '" + gpu_key + "'; " +
                         (impl == "triton" ? "collect one with " + collect
                                           : "expected e.g. traces/" + gpu_key +
                                                 "/sms132.corpus.csv.gz (collect with loom-bench --families tune)"));
  std::vector<const Corpus*> sources{best};
  if (impl == "triton")
    for (const auto& c : corpora)
      if (&c != best && c.gpu_key == gpu_key && is_triton_sweep(c) && c.sms == best->sms) sources.push_back(&c);
  Pool pool;
  pool.gpu = gpu_key, pool.family = family, pool.sms = static_cast<int>(best->sms);
  std::map<std::string, int> cfg_index;
  std::map<std::string, int> shape_index;
  std::vector<TuneShape> shapes;
  std::vector<std::string> keys;
  std::vector<std::map<int, std::vector<double>>> vals;
  for (const Corpus* src : sources)
    for (const auto& row : src->rows) {
      if (row.impl != impl || row.family != base || !(row.median_us > 0)) continue;
      KernelSpec spec = parse_kernel_spec(row.spec, src->path + ":case " + std::to_string(row.case_id));
      auto cfg = spec.params.find("config");
      if (cfg == spec.params.end()) continue;
      if (impl == "triton") spec.params["impl"] = "triton";
      TuneShape shape = parse_tune_shape(spec);
      if (shape.dtype != dtype) continue;
      ++pool.rows;
      auto [ci, new_cfg] = cfg_index.try_emplace(cfg->second, int(pool.configs.size()));
      if (new_cfg) pool.configs.push_back(parse_tune_config(family, cfg->second, spec.where));
      TuneConfig& tc = pool.configs[size_t(ci->second)];
      tc.regs_per_thread = std::max<int>(tc.regs_per_thread, int(row.regs));
      if (impl == "triton" && row.smem_bytes > 0) tc.smem_bytes = int64_t(row.smem_bytes);  // CUPTI's, not a formula
      const std::string key = tune_spec(shape);
      auto [si, new_shape] = shape_index.try_emplace(key, int(shapes.size()));
      if (new_shape) shapes.push_back(shape), keys.push_back(key), vals.emplace_back();
      vals[size_t(si->second)][ci->second].push_back(row.median_us);
    }
  if (pool.configs.empty())
    throw InputError(traces_where, "corpus " + best->path + " has no " + impl + " " + family + " rows with config=" +
                                       (impl == "triton" ? " (collect with " + collect + ")" : std::string()));
  GpuSpec g = gpu;
  g.sms = pool.sms;
  for (auto& c : pool.configs) fit_occupancy(c, g);
  for (size_t s = 0; s < shapes.size(); ++s) {
    if (vals[s].size() != pool.configs.size()) {
      ++pool.incomplete_shapes;
      continue;
    }
    std::vector<double> row(pool.configs.size());
    for (const auto& [ci, v] : vals[s]) {
      double sum = 0;
      for (double x : v) sum += x;
      row[size_t(ci)] = sum / double(v.size());
    }
    pool.shapes.push_back(shapes[s]), pool.keys.push_back(keys[s]), pool.us.push_back(row);
  }
  return pool;
}

std::vector<std::pair<std::string, std::vector<int>>> group_macros(const std::vector<TuneConfig>& configs) {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (size_t i = 0; i < configs.size(); ++i) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == configs[i].macro; });
    if (it == out.end()) out.push_back({configs[i].macro, {int(i)}});
    else it->second.push_back(int(i));
  }
  return out;
}

namespace {

// The macro's occupancy: the largest of its micro configs' (its wave count is defined with it).
TuneConfig macro_config(const Pool& pool, const std::vector<int>& members) {
  TuneConfig c = pool.configs[size_t(members.front())];
  for (int i : members) c.ctas_per_sm = std::max(c.ctas_per_sm, pool.configs[size_t(i)].ctas_per_sm);
  return c;
}

}  // namespace

std::vector<bool> select_anchors(const Pool& pool, const AnchorOptions& opt) {
  const auto macros = group_macros(pool.configs);
  const size_t n = pool.shapes.size();
  // slot[s][m] = (bucket, anchor) of shape s under macro m.
  std::vector<std::vector<std::pair<int, int>>> slot(n);
  for (size_t s = 0; s < n; ++s)
    for (const auto& [name, members] : macros) {
      const GridMap g = map_shape(pool.shapes[s], macro_config(pool, members), pool.sms);
      slot[s].push_back({wave_bucket(g.waves), l_anchor(g.loop_iters)});
    }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fnv1a(pool.keys[a]) < fnv1a(pool.keys[b]); });
  std::map<std::pair<size_t, int>, int> per_bucket;
  std::set<std::tuple<size_t, int, int>> cells;
  std::vector<bool> sampled(n, false);
  const size_t budget = size_t(std::llround(opt.fraction * double(n)));
  for (size_t taken = 0; taken < budget; ++taken) {
    int best_score = 0;
    size_t best = n;
    for (size_t s : order) {
      if (sampled[s]) continue;
      int score = 0;
      for (size_t m = 0; m < macros.size(); ++m) {
        auto [b, a] = slot[s][m];
        auto it = per_bucket.find({m, b});
        if (it == per_bucket.end() || it->second < opt.per_bucket) score += 2;
        if (!cells.count({m, b, a})) score += 1;
      }
      if (score > best_score) best_score = score, best = s;
    }
    if (best == n) break;
    sampled[best] = true;
    for (size_t m = 0; m < macros.size(); ++m) {
      auto [b, a] = slot[best][m];
      ++per_bucket[{m, b}];
      cells.insert({m, b, a});
    }
  }
  return sampled;
}

TuneTables build_tables(const Pool& pool, const std::vector<bool>& sampled, const std::string& default_cfg,
                        const std::function<void(size_t, size_t)>& progress) {
  TuneTables t;
  t.gpu = pool.gpu, t.family = pool.family, t.sms = pool.sms, t.configs = pool.configs;
  t.default_config = default_cfg;
  t.pool_shapes = int64_t(pool.shapes.size());
  t.exhaustive_points = t.pool_shapes * int64_t(pool.configs.size());
  for (size_t s = 0; s < pool.shapes.size(); ++s)
    if (sampled[s]) t.sampled.push_back(pool.keys[s]);
  t.sampled_shapes = int64_t(t.sampled.size());
  t.samples = t.sampled_shapes * int64_t(pool.configs.size());
  const auto macros = group_macros(pool.configs);
  for (size_t mi = 0; mi < macros.size(); ++mi) {
    const auto& [name, members] = macros[mi];
    const TuneConfig mc = macro_config(pool, members);
    MacroTable mt;
    mt.macro = name, mt.bm = mc.bm, mt.bn = mc.bn, mt.bk = mc.bk, mt.ctas_per_sm = mc.ctas_per_sm;
    for (int i : members) mt.configs.push_back(pool.configs[size_t(i)].name);
    std::map<int, std::vector<BilinearSample>> by_bucket;
    std::map<int, std::pair<int64_t, int64_t>> wave_range;
    std::map<int, double> wave_sum;
    std::map<std::pair<int, int>, std::vector<double>> micro_cost;  // (bucket, anchor) -> sum log(T / T_best)
    std::map<std::pair<int, int>, int> micro_n;
    for (size_t s = 0; s < pool.shapes.size(); ++s) {
      if (!sampled[s]) continue;
      const GridMap g = map_shape(pool.shapes[s], mc, pool.sms);
      const int b = wave_bucket(g.waves), a = l_anchor(g.loop_iters);
      double t_min = std::numeric_limits<double>::infinity();
      for (int i : members) t_min = std::min(t_min, pool.us[s][size_t(i)]);
      by_bucket[b].push_back({double(g.ctas), double(g.loop_iters), t_min});
      auto [it, fresh] = wave_range.try_emplace(b, g.waves, g.waves);
      if (!fresh)
        it->second.first = std::min(it->second.first, g.waves),
        it->second.second = std::max(it->second.second, g.waves);
      wave_sum[b] += double(g.waves);
      auto& cost = micro_cost[{b, a}];
      cost.resize(members.size(), 0.0);
      for (size_t j = 0; j < members.size(); ++j) cost[j] += std::log(pool.us[s][size_t(members[j])] / t_min);
      ++micro_n[{b, a}];
    }
    for (const auto& [b, samples] : by_bucket) {
      BucketEntry e;
      e.bucket = b, e.min_waves = wave_range[b].first, e.max_waves = wave_range[b].second;
      e.fit = fit_bilinear(samples, wave_sum[b] / double(samples.size()));
      mt.fits.push_back(e);
    }
    for (const auto& [cell, cost] : micro_cost) {
      const size_t j = size_t(std::min_element(cost.begin(), cost.end()) - cost.begin());
      mt.micros.push_back({cell.first, cell.second, pool.configs[size_t(members[j])].name, micro_n[cell]});
    }
    t.macros.push_back(std::move(mt));
    if (progress) progress(mi + 1, macros.size());
  }
  return t;
}

}  // namespace loom::wave
