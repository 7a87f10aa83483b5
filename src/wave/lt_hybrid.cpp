// The nearest-measured-shape gate of the gemm-cublaslt hybrid (see LtModel::switch_neighbours in lt_model.h):
// heuristic #0 runs unless the sampled shapes nearest the query measured a choosable config clearly faster than it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "wave/lt_model.h"

namespace loom::wave {

void fit_lt_neighbours(const LtSweep& sw, const std::vector<bool>& sampled, LtModel& m) {
  m.ref_shapes.clear(), m.ref_log_ratio.clear();
  for (size_t s = 0; s < sw.shapes.size(); ++s) {
    const double h0 = sw.heur0_us[s];
    if (!sampled[s] || !std::isfinite(h0) || h0 <= 0) continue;
    m.ref_shapes.push_back({sw.shapes[s].m, sw.shapes[s].n, sw.shapes[s].k});
    std::vector<double> row(sw.configs.size(), std::numeric_limits<double>::quiet_NaN());
    for (size_t ci = 0; ci < sw.configs.size(); ++ci)
      if (std::isfinite(sw.us[s][ci]) && sw.us[s][ci] > 0) row[ci] = std::log(sw.us[s][ci] / h0);
    m.ref_log_ratio.push_back(std::move(row));
  }
}

void compile_lt_neighbours(const LtModel& m, LtCompiled& c) {
  // No references (no sampled shape with heuristic #0 timed): the wave-model gate decides, as in the exported header.
  c.neighbours = m.switch_margin >= 0 && !m.ref_shapes.empty() ? m.switch_neighbours : 0;
  if (c.neighbours <= 0) return;
  for (size_t r = 0; r < m.ref_shapes.size(); ++r) {
    const auto& x = m.ref_shapes[r];
    c.ref_log_shape.push_back({std::log2(double(x[0])), std::log2(double(x[1])), std::log2(double(x[2]))});
    std::vector<double> row;
    for (int32_t ci : c.config) row.push_back(m.ref_log_ratio[r][size_t(ci)]);
    c.ref_log_ratio.push_back(std::move(row));
  }
}

// The exported header's _pick repeats these operations in the same order (lt_export.cpp), so the choices agree.
int decide_lt_neighbours(const LtCompiled& c, int64_t m, int64_t n, int64_t k) {
  constexpr int kMax = 8;
  const int want = std::min<int>({c.neighbours, kMax, int(c.ref_log_shape.size())});
  if (want <= 0) return -1;
  double near_d[kMax];
  int near_i[kMax], have = 0;
  const double lm = std::log2(double(m)), ln = std::log2(double(n)), lk = std::log2(double(k));
  for (int r = 0; r < int(c.ref_log_shape.size()); ++r) {
    const double dx = lm - c.ref_log_shape[size_t(r)][0], dy = ln - c.ref_log_shape[size_t(r)][1],
                 dz = lk - c.ref_log_shape[size_t(r)][2];
    const double d = dx * dx + dy * dy + dz * dz;
    if (have == want && !(d < near_d[want - 1])) continue;
    int j = have < want ? have++ : want - 1;
    for (; j > 0 && d < near_d[j - 1]; --j) near_d[j] = near_d[j - 1], near_i[j] = near_i[j - 1];
    near_d[j] = d, near_i[j] = r;
  }
  int best = -1;
  double best_v = std::log(1.0 - c.switch_margin);
  const double dk = double(k);
  for (size_t i = 0; i < c.config.size(); ++i) {
    if (!(dk / double(c.splitk[i]) > c.max_refused_k[i])) continue;
    double sum = 0;
    for (int j = 0; j < want; ++j) sum += c.ref_log_ratio[size_t(near_i[j])][i];
    const double v = sum / double(want);  // NaN (refused on a neighbour) never compares below
    if (v < best_v) best_v = v, best = int(i);
  }
  return best;
}

LtPlan lt_plan_two_stage(const LtSweep& sw, double full_fraction, int partial_shapes, int set_size) {
  LtPlan p;
  p.full = lt_select(sw, full_fraction);
  p.set = lt_greedy_set(sw, p.full, set_size);
  // The remaining shapes sorted by (M, N, K), partial_shapes of them at even spacing (strata over M).
  std::vector<size_t> order, idx(sw.shapes.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const auto& x = sw.shapes[a];
    const auto& y = sw.shapes[b];
    return std::tie(x.m, x.n, x.k) < std::tie(y.m, y.n, y.k);
  });
  for (size_t i : idx)
    if (!p.full[i]) order.push_back(i);
  p.partial.assign(sw.shapes.size(), false);
  const size_t n = order.size(), take = std::min(n, size_t(std::max(0, partial_shapes)));
  for (size_t i = 0; i < take; ++i) p.partial[order[(2 * i + 1) * n / (2 * take)]] = true;
  p.sampled.resize(sw.shapes.size());
  for (size_t s = 0; s < sw.shapes.size(); ++s) p.sampled[s] = p.full[s] || p.partial[s];
  return p;
}

namespace {

// References of the neighbour gate from the plan's shapes in `use` (partial shapes: the set's configs only).
void plan_refs(const LtSweep& sw, const LtPlan& p, const std::vector<bool>& use, LtModel& m) {
  fit_lt_neighbours(sw, use, m);
  size_t r = 0;
  for (size_t s = 0; s < sw.shapes.size(); ++s) {
    if (!use[s] || !std::isfinite(sw.heur0_us[s]) || sw.heur0_us[s] <= 0) continue;
    if (p.partial[s])
      for (size_t ci = 0; ci < sw.configs.size(); ++ci)
        if (std::find(p.set.begin(), p.set.end(), int(ci)) == p.set.end())
          m.ref_log_ratio[r][ci] = std::numeric_limits<double>::quiet_NaN();
    ++r;
  }
}

}  // namespace

LtModel fit_lt_two_stage(const LtSweep& sw, const LtPlan& p, double lambda) {
  LtModel m = fit_lt_model(sw, p.full, lambda, 1e9, int(p.set.size()), 0.0, 1);
  std::vector<size_t> idx;
  for (size_t s = 0; s < sw.shapes.size(); ++s)
    if (p.sampled[s] && std::isfinite(sw.heur0_us[s]) && sw.heur0_us[s] > 0) idx.push_back(s);
  const std::vector<int> ks{1, 2, 3};
  const std::vector<double> margins{0, 0.02, 0.05, 0.1, 0.2};
  std::vector<double> loss(ks.size() * margins.size(), 0.0);
  constexpr int kFolds = 4;
  for (int fold = 0; fold < kFolds; ++fold) {
    std::vector<bool> train(sw.shapes.size(), false);
    for (size_t i = 0; i < idx.size(); ++i) train[idx[i]] = int(i % kFolds) != fold;
    LtModel f = m;
    plan_refs(sw, p, train, f);
    LtCompiled c = compile_lt(f);
    for (size_t a = 0; a < ks.size(); ++a)
      for (size_t b = 0; b < margins.size(); ++b) {
        c.neighbours = ks[a], c.switch_margin = margins[b];
        for (size_t i = 0; i < idx.size(); ++i) {
          if (int(i % kFolds) != fold) continue;
          const size_t s = idx[i];
          const int pick = decide_lt_neighbours(c, sw.shapes[s].m, sw.shapes[s].n, sw.shapes[s].k);
          const double t = pick >= 0 ? sw.us[s][size_t(c.config[size_t(pick)])] : sw.heur0_us[s];
          loss[a * margins.size() + b] += std::isfinite(t) ? std::log(t / sw.heur0_us[s]) : 0.0;
        }
      }
  }
  const size_t best = size_t(std::min_element(loss.begin(), loss.end()) - loss.begin());
  m.switch_neighbours = ks[best / margins.size()], m.switch_margin = margins[best % margins.size()];
  plan_refs(sw, p, p.sampled, m);
  return m;
}

}  // namespace loom::wave
