// Sparse sampling plan generation (see plan.h).
#include "wave/plan.h"

#include "core/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "../../bench/configs.h"  // loom-bench's config tables: the kernels a plan can run
#include "wave/fit.h"

namespace loom::wave {
namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct MoeModel { int64_t experts, topk, hidden, inter; int stage; };

// The MoE models of loom-bench's tuning grid (bench/shapes.cpp tune_grid), both stages.
std::vector<MoeModel> moe_models() {
  std::vector<MoeModel> out;
  for (auto [e, k, h, i] : std::vector<std::array<int64_t, 4>>{{8, 2, 4096, 14336}, {128, 8, 2048, 768},
                                                                 {64, 6, 2048, 1408}, {16, 4, 3072, 1536}})
    for (int st : {13, 2}) out.push_back({e, k, h, i, st});
  return out;
}

TuneShape gemm_for(int64_t g, int64_t l, const TuneConfig& c) {
  const int64_t nt_min = cdiv(1024, c.bn), nt_max = 16384 / c.bn, mt_max = 8192 / c.bm;
  int64_t nt = std::clamp<int64_t>(int64_t(std::ceil(std::sqrt(double(g)))), nt_min, nt_max);
  int64_t mt = std::min(cdiv(g, nt), mt_max);
  nt = std::clamp<int64_t>(cdiv(g, mt), nt_min, nt_max);
  TuneShape s;
  s.family = "gemm", s.m = mt * c.bm, s.n = nt * c.bn;
  s.k = std::clamp<int64_t>(l * c.bk, 512, 8192) / 64 * 64;
  return s;
}

// Tokens (1..8192) whose MoE grid is closest to g under macro c; returns false if even 8192 tokens stay below g/2.
bool moe_for(int64_t g, const MoeModel& mm, const TuneConfig& c, TuneShape& out) {
  TuneShape s;
  s.family = "moe", s.experts = mm.experts, s.topk = mm.topk, s.hidden = mm.hidden, s.inter = mm.inter,
  s.stage = mm.stage;
  int64_t lo = 1, hi = 8192;
  while (lo < hi) {  // smallest token count reaching g (G grows with tokens)
    s.tokens = (lo + hi) / 2;
    if (map_grid(s, c.bm, c.bn, c.bk).ctas >= g) hi = s.tokens; else lo = s.tokens + 1;
  }
  s.tokens = lo;
  if (map_grid(s, c.bm, c.bn, c.bk).ctas * 2 < g) return false;
  out = s;
  return true;
}

}  // namespace

std::vector<TuneConfig> bench_configs(const std::string& family, const GpuSpec& gpu,
                                      const std::vector<TuneConfig>& known) {
  check_tune_family(family, "--family");
  if (target_impl(family) != "loom")
    throw InputError("--family", family + ": plans are for loom-bench's kernels; the Triton fused-MoE grid is swept by "
                                 "scripts/tune-moe-collect.sh (the sparse anchors are chosen from it by --fit)");
  std::vector<TuneConfig> out;
  const bench::TileCfg* cfgs = family == "moe" ? bench::kMoeCfgs : bench::kGemmCfgs;
  const int n = family == "moe" ? bench::kNumMoeCfgs : bench::kNumGemmCfgs;
  for (int i = 0; i < n; ++i) {
    TuneConfig c = parse_tune_config(family, cfgs[i].name(), "bench/configs.h");
    for (const auto& k : known)
      if (k.name == c.name) c.regs_per_thread = k.regs_per_thread;
    fit_occupancy(c, gpu);
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> make_plan(const std::string& family, const std::vector<TuneConfig>& configs, int sms,
                                   PlanStats* stats) {
  std::vector<std::string> lines;
  std::set<std::string> seen, shapes;
  size_t cells = 0;
  const auto& edges = wave_bucket_edges();
  for (const auto& [name, members] : group_macros(configs)) {
    TuneConfig mc = configs[size_t(members.front())];
    for (int i : members) mc.ctas_per_sm = std::max(mc.ctas_per_sm, configs[size_t(i)].ctas_per_sm);
    const int64_t slots = int64_t(sms) * mc.ctas_per_sm;
    const int64_t max_g = family == "gemm" ? (8192 / mc.bm) * (16384 / mc.bn) : int64_t(1) << 40;
    for (size_t b = 0; b < edges.size(); ++b) {
      const int64_t w_lo = edges[b], w_hi = b + 1 < edges.size() ? edges[b + 1] - 1 : edges[b];
      const int64_t g_lo = (w_lo - 1) * slots + std::max<int64_t>(1, slots * 3 / 10), g_hi = w_hi * slots;
      if (g_lo > max_g) break;
      std::vector<TuneShape> anchors;
      if (family == "gemm") {
        const int64_t l_short = cdiv(512, mc.bk), l_long = 8192 / mc.bk,
                      l_mid = int64_t(std::sqrt(double(l_short * l_long)));
        const int64_t g_hi_c = std::min(g_hi, max_g), g_mid = (g_lo + g_hi_c) / 2;
        for (auto [g, l] : std::vector<std::pair<int64_t, int64_t>>{
                 {g_lo, l_short}, {g_lo, l_long}, {g_hi_c, l_short}, {g_hi_c, l_long}, {g_mid, l_mid}})
          anchors.push_back(gemm_for(g, l, mc));
      } else {
        auto models = moe_models();
        std::sort(models.begin(), models.end(), [](const MoeModel& a, const MoeModel& b) {
          return (a.stage == 2 ? a.inter : a.hidden) < (b.stage == 2 ? b.inter : b.hidden);
        });
        for (size_t mi : {size_t(0), models.size() / 2, models.size() - 1})
          for (int64_t g : {g_lo, g_hi}) {
            TuneShape s;
            if (moe_for(g, models[mi], mc, s)) anchors.push_back(s);
          }
      }
      bool any = false;
      for (const auto& s : anchors) {
        if (wave_bucket(map_shape(s, mc, sms).waves) != int(b)) continue;  // clamped out of the bucket
        any = true;
        shapes.insert(tune_spec(s));
        for (int i : members) {
          std::string line = tune_spec(s, configs[size_t(i)].name);
          if (seen.insert(line).second) lines.push_back(line);
        }
      }
      cells += any;
    }
  }
  if (stats) stats->points = lines.size(), stats->shapes = shapes.size(), stats->macro_buckets = cells;
  return lines;
}

}  // namespace loom::wave
