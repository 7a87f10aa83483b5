// Per-config ridge wave model of cuBLASLt's algorithm configs (see lt_model.h).
#include "wave/lt_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Dense>

#include "core/error.h"

namespace loom::wave {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

uint64_t hash_shape(const LtShape& s) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t v : {s.m, s.n, s.k}) h = (h ^ uint64_t(v)) * 1099511628211ull;
  return h;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

double best_of(const std::vector<double>& row) {
  double b = kInf;
  for (double x : row)
    if (std::isfinite(x)) b = std::min(b, x);
  return b;
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Shape-only features: bytes/1e8 and the split-K partial bytes per split/1e8.
inline double shape_bytes(double m, double n, double k) { return 2.0 * (n * k + m * k + m * n) / 1e8; }
inline double shape_partial(double m, double n) { return 4.0 * m * n / 1e8; }

// The features from integer geometry; one expression that fitting, decisions and the exported header share (same
// operations in the same order, so their choices agree bit for bit).
inline void features(int64_t g, int64_t l, int64_t w, int64_t sk, double sms, double bytes, double partial, double* f) {
  f[0] = double(w * l), f[1] = double(w), f[2] = double(g) * double(l) / sms, f[3] = 1.0;
  f[4] = bytes, f[5] = double(l), f[6] = sk > 1 ? partial * double(sk) : 0.0;
}

}  // namespace

LtCoef lt_features(const LtShape& s, const LtConfig& c, int sms) {
  LtCoef f{};
  const int64_t sk = std::max(1, c.splitk), g = cdiv(s.n, std::max(1, c.bm)) * cdiv(s.m, std::max(1, c.bn)) * sk;
  const int64_t l = cdiv(s.k, sk * std::max(1, c.bk)), w = cdiv(g, std::max(1, sms));
  features(g, l, w, sk, double(std::max(1, sms)), shape_bytes(double(s.m), double(s.n), double(s.k)),
           shape_partial(double(s.m), double(s.n)), f.data());
  return f;
}

std::vector<bool> lt_select(const LtSweep& sw, double fraction) {
  const size_t n = sw.shapes.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sw.shapes[a].m != sw.shapes[b].m) return sw.shapes[a].m < sw.shapes[b].m;
    return hash_shape(sw.shapes[a]) < hash_shape(sw.shapes[b]);
  });
  std::vector<bool> sampled(n, false);
  const size_t take = std::min(n, size_t(std::max<long long>(1, std::llround(fraction * double(n)))));
  for (size_t i = 0; i < take; ++i) sampled[order[(2 * i + 1) * n / (2 * take)]] = true;
  return sampled;
}

std::vector<int> lt_greedy_set(const LtSweep& sw, const std::vector<bool>& sampled, int size) {
  std::vector<size_t> rows;
  std::vector<double> cost, best;  // per sampled shape: log(current set's best / best)
  for (size_t s = 0; s < sw.shapes.size(); ++s) {
    const double b = best_of(sw.us[s]);
    if (!sampled[s] || !std::isfinite(b)) continue;
    rows.push_back(s), best.push_back(b);
    cost.push_back(std::isfinite(sw.heur0_us[s]) ? std::log(std::max(1.0, sw.heur0_us[s] / b)) : std::log(2.0));
  }
  std::vector<int> set;
  std::vector<bool> in(sw.configs.size(), false);
  while (int(set.size()) < size) {
    int pick = -1;
    double gain_max = 1e-12;
    for (size_t ci = 0; ci < sw.configs.size(); ++ci) {
      if (in[ci]) continue;
      double gain = 0;
      for (size_t r = 0; r < rows.size(); ++r) {
        const double x = sw.us[rows[r]][ci];
        if (std::isfinite(x)) gain += std::max(0.0, cost[r] - std::log(x / best[r]));
      }
      if (gain > gain_max) gain_max = gain, pick = int(ci);
    }
    if (pick < 0) break;
    set.push_back(pick), in[size_t(pick)] = true;
    for (size_t r = 0; r < rows.size(); ++r) {
      const double x = sw.us[rows[r]][size_t(pick)];
      if (std::isfinite(x)) cost[r] = std::min(cost[r], std::log(x / best[r]));
    }
  }
  return set;
}

LtModel fit_lt_model(const LtSweep& sw, const std::vector<bool>& sampled, double lambda, double keep_tolerance,
                     int keep_configs, double switch_margin, int switch_neighbours) {
  LtModel m;
  m.gpu = sw.gpu_name, m.source = sw.path, m.sms = sw.sms, m.lambda = lambda, m.configs = sw.configs;
  m.keep_tolerance = keep_tolerance, m.keep_configs = keep_configs, m.switch_margin = switch_margin;
  std::vector<bool> kept(sw.configs.size(), false);
  for (size_t s = 0; s < sw.shapes.size(); ++s) {
    if (!sampled[s]) continue;
    const double best = best_of(sw.us[s]);
    for (size_t ci = 0; ci < sw.configs.size(); ++ci)
      if (std::isfinite(sw.us[s][ci]) && sw.us[s][ci] <= (1 + keep_tolerance) * best) kept[ci] = true;
  }
  if (keep_configs > 0) {
    std::vector<bool> in_set(sw.configs.size(), false);
    for (int ci : lt_greedy_set(sw, sampled, keep_configs)) in_set[size_t(ci)] = true;
    for (size_t ci = 0; ci < kept.size(); ++ci) kept[ci] = kept[ci] && in_set[ci];
  }
  m.pool_shapes = int64_t(sw.shapes.size());
  for (bool b : sampled) m.sampled_shapes += b;
  if (m.sampled_shapes == 0) throw InputError(sw.path, "no sampled shapes to fit the gemm-cublaslt model on");
  for (size_t ci = 0; ci < sw.configs.size(); ++ci) {
    std::vector<size_t> rows;
    double refused_k = 0;
    for (size_t s = 0; s < sw.shapes.size(); ++s) {
      if (!sampled[s]) continue;
      if (std::isfinite(sw.us[s][ci])) rows.push_back(s);
      else refused_k = std::max(refused_k, double(sw.shapes[s].k) / double(std::max(1, sw.configs[ci].splitk)));
    }
    m.max_refused_k_per_split.push_back(rows.empty() || !kept[ci] ? kInf : refused_k);
    LtCoef c{};
    if (!rows.empty()) {
      const Eigen::Index n = Eigen::Index(rows.size());
      Eigen::MatrixXd a(n, kLtFeatures);
      for (Eigen::Index r = 0; r < n; ++r) {
        const size_t s = rows[size_t(r)];
        const LtCoef f = lt_features(sw.shapes[s], sw.configs[ci], sw.sms);
        for (int j = 0; j < kLtFeatures; ++j) a(r, j) = f[size_t(j)] / sw.us[s][ci];  // relative residuals
      }
      const Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
      Eigen::VectorXd scale = (a.array().square().colwise().mean()).sqrt().transpose();
      for (int j = 0; j < kLtFeatures; ++j) scale(j) = scale(j) > 0 ? scale(j) : 1.0;
      const Eigen::MatrixXd an = a * scale.cwiseInverse().asDiagonal();
      Eigen::MatrixXd lhs = an.transpose() * an;
      lhs.diagonal().array() += lambda * double(n);
      const Eigen::VectorXd x = lhs.ldlt().solve(an.transpose() * b);
      for (int j = 0; j < kLtFeatures; ++j) c[size_t(j)] = x(j) / scale(j);
    }
    m.coef.push_back(c);
  }
  m.switch_neighbours = switch_margin >= 0 ? switch_neighbours : 0;
  if (m.switch_neighbours > 0) fit_lt_neighbours(sw, sampled, m);
  return m;
}

LtCompiled compile_lt(const LtModel& m) {
  LtCompiled c;
  c.sms = std::max(1, m.sms), c.inv_sms = 1.0 / double(c.sms), c.switch_margin = m.switch_margin;
  for (size_t i = 0; i < m.configs.size(); ++i) {
    const LtConfig& y = m.configs[i];
    c.geom_all.push_back({std::max(1, y.bm), std::max(1, y.bn), std::max(1, y.bk), std::max(1, y.splitk)});
    c.coef_all.push_back(m.coef[i]);
    c.fitted.push_back(std::any_of(m.coef[i].begin(), m.coef[i].end(), [](double v) { return v != 0.0; }));
  }
  for (size_t i = 0; i < m.configs.size(); ++i) {
    if (!std::isfinite(m.max_refused_k_per_split[i])) continue;  // never chosen
    const LtConfig& x = m.configs[i];
    c.config.push_back(int32_t(i));
    const std::array<int64_t, 2> tile{std::max(1, x.bm), std::max(1, x.bn)};
    const int64_t sk = std::max(1, x.splitk), step = sk * std::max(1, x.bk);
    auto t = std::find(c.tiles.begin(), c.tiles.end(), tile);
    if (t == c.tiles.end()) t = c.tiles.insert(c.tiles.end(), tile);
    auto st = std::find(c.ksteps.begin(), c.ksteps.end(), step);
    if (st == c.ksteps.end()) st = c.ksteps.insert(c.ksteps.end(), step);
    c.tile_of.push_back(int32_t(t - c.tiles.begin())), c.kstep_of.push_back(int32_t(st - c.ksteps.begin()));
    c.splitk.push_back(sk), c.max_refused_k.push_back(m.max_refused_k_per_split[i]), c.coef.push_back(m.coef[i]);
  }
  if (c.tiles.size() > kLtMaxDistinct || c.ksteps.size() > kLtMaxDistinct)
    throw InputError(m.source, "more than " + std::to_string(kLtMaxDistinct) + " distinct tiles or K steps");
  compile_lt_neighbours(m, c);
  return c;
}

int decide_lt(const LtCompiled& c, int64_t m, int64_t n, int64_t k, int heur0) {
  if (c.switch_margin >= 0 && c.neighbours > 0) {
    const int i = decide_lt_neighbours(c, m, n, k);
    return i < 0 ? -1 : c.config[size_t(i)];
  }
  int best = -1;
  double best_t = kInf;
  int64_t gmn[kLtMaxDistinct], lv[kLtMaxDistinct];
  for (size_t t = 0; t < c.tiles.size(); ++t) gmn[t] = cdiv(n, c.tiles[t][0]) * cdiv(m, c.tiles[t][1]);
  for (size_t s = 0; s < c.ksteps.size(); ++s) lv[s] = cdiv(k, c.ksteps[s]);
  const double dk = double(k), sms = double(c.sms), bytes = shape_bytes(double(m), double(n), dk),
               partial = shape_partial(double(m), double(n));
  for (size_t i = 0; i < c.coef.size(); ++i) {
    const int64_t sk = c.splitk[i];
    if (!(dk / double(sk) > c.max_refused_k[i])) continue;
    const int64_t g = gmn[c.tile_of[i]] * sk, l = lv[c.kstep_of[i]];
    int64_t w = int64_t(double(g) * c.inv_sms);  // ceil(g / sms): the reciprocal's quotient is off by at most one
    w += w * c.sms < g;
    double f[kLtFeatures];
    features(g, l, w, sk, sms, bytes, partial, f);
    double t = 0;
    for (int j = 0; j < kLtFeatures; ++j) t += c.coef[i][size_t(j)] * f[j];
    if (t < best_t) best_t = t, best = int(i);
  }
  if (c.switch_margin < 0) return best < 0 ? -1 : c.config[size_t(best)];
  // Hybrid: heuristic #0's config predicted with the same expression; switch only for a clear predicted gain.
  if (best < 0 || heur0 < 0 || size_t(heur0) >= c.fitted.size() || !c.fitted[size_t(heur0)]) return -1;
  const auto& g4 = c.geom_all[size_t(heur0)];
  const int64_t sk = g4[3], g = cdiv(n, g4[0]) * cdiv(m, g4[1]) * sk, l = cdiv(k, sk * g4[2]), w = cdiv(g, c.sms);
  double f[kLtFeatures], t0 = 0;
  features(g, l, w, sk, sms, bytes, partial, f);
  for (int j = 0; j < kLtFeatures; ++j) t0 += c.coef_all[size_t(heur0)][size_t(j)] * f[j];
  const int pick = c.config[size_t(best)];
  return pick != heur0 && best_t < (1.0 - c.switch_margin) * t0 ? pick : -1;
}

namespace {

// Latency / best of a decision on shape s: a pick of -1 or one cuBLASLt refuses runs heuristic #0 (its returned
// algo as timed, not below the best config; twice the best where it failed).
double chosen_ratio(const LtSweep& sw, size_t s, int pick, double best) {
  const double t = pick >= 0 ? sw.us[s][size_t(pick)] : kInf;
  if (std::isfinite(t)) return t / best;
  return std::isfinite(sw.heur0_us[s]) ? std::max(1.0, sw.heur0_us[s] / best) : 2.0;
}

// Mean log(chosen/best) of a model on the shapes in `eval`, once per switch margin (the fit does not depend on it).
std::vector<double> loss_on(const LtSweep& sw, const LtModel& m, const std::vector<bool>& eval,
                            const std::vector<double>& margins) {
  LtCompiled c = compile_lt(m);
  std::vector<double> out;
  for (double margin : margins) {
    c.switch_margin = margin;
    double sum = 0;
    int64_t n = 0;
    for (size_t s = 0; s < sw.shapes.size(); ++s) {
      if (!eval[s]) continue;
      const double best = best_of(sw.us[s]);
      if (!std::isfinite(best)) continue;
      const int pick = decide_lt(c, sw.shapes[s].m, sw.shapes[s].n, sw.shapes[s].k, sw.heur0_config[s]);
      sum += std::log(chosen_ratio(sw, s, pick, best)), ++n;
    }
    out.push_back(n ? sum / double(n) : 0);
  }
  return out;
}

}  // namespace

LtParams choose_lt_params(const LtSweep& sw, const std::vector<bool>& sampled, const std::vector<double>& lambdas,
                          const std::vector<double>& tolerances, const std::vector<int>& set_sizes,
                          const std::vector<double>& margins, const std::vector<int>& neighbours) {
  std::vector<size_t> idx;
  for (size_t s = 0; s < sampled.size(); ++s)
    if (sampled[s]) idx.push_back(s);
  LtParams best_p{lambdas.empty() ? 0.03 : lambdas.front(), 1e9, 0, margins.empty() ? -1.0 : margins.front(), 0};
  double best_loss = kInf;
  constexpr int kFolds = 4;
  for (int nb : neighbours)
  for (int size : set_sizes)
  for (double tol : tolerances)
  for (double lambda : nb > 0 ? std::vector<double>{lambdas.front()} : lambdas) {  // the gate ignores the fit
    std::vector<double> loss(margins.size(), 0.0);
    for (int fold = 0; fold < kFolds; ++fold) {
      std::vector<bool> train(sampled.size(), false), test(sampled.size(), false);
      for (size_t i = 0; i < idx.size(); ++i) (int(i % kFolds) == fold ? test : train)[idx[i]] = true;
      if (std::none_of(train.begin(), train.end(), [](bool b) { return b; })) continue;
      const std::vector<double> l = loss_on(sw, fit_lt_model(sw, train, lambda, tol, size, 0.0, nb), test, margins);
      for (size_t i = 0; i < l.size(); ++i) loss[i] += l[i];
    }
    for (size_t i = 0; i < margins.size(); ++i)
      if (loss[i] < best_loss - 1e-12 && (nb == 0 || margins[i] >= 0))
        best_loss = loss[i], best_p = {lambda, tol, size, margins[i], margins[i] >= 0 ? nb : 0};
  }
  return best_p;
}

LtValidation validate_lt(const LtSweep& sw, const std::vector<bool>& sampled, const LtModel& m, bool time_decisions,
                         const LtPlan* plan) {
  LtValidation v;
  const LtCompiled c = compile_lt(m);
  LtCompiled alone = c;
  alone.switch_margin = -1;
  std::vector<double> ratio, vs_heur, oracle, heur_ratio, rebuilt, query, model_ratio;
  double grid_us = 0, sampled_us = 0;
  for (size_t s = 0; s < sw.shapes.size(); ++s) {
    double row_us = 0, part_us = 0;
    const bool partial = plan && plan->partial[s];
    for (size_t ci = 0; ci < sw.us[s].size(); ++ci) {
      const double x = sw.us[s][ci];
      if (!std::isfinite(x)) continue;
      row_us += x, ++v.points;
      const bool measured = partial ? std::count(plan->set.begin(), plan->set.end(), int(ci)) > 0 : sampled[s];
      v.sampled_points += measured, part_us += measured ? x : 0;
    }
    if (partial && std::isfinite(sw.heur0_us[s])) ++v.sampled_points, part_us += sw.heur0_us[s];  // heuristic #0
    grid_us += row_us, sampled_us += part_us;
    if (sampled[s]) {
      ++v.sampled;
      continue;
    }
    const double best = best_of(sw.us[s]);
    if (!std::isfinite(best)) continue;
    ++v.heldout;
    const LtShape& sh = sw.shapes[s];
    const int pick = decide_lt(c, sh.m, sh.n, sh.k, sw.heur0_config[s]);
    const double h0 = sw.heur0_us[s];
    if (pick >= 0 && !std::isfinite(sw.us[s][size_t(pick)])) ++v.invalid_choices;
    v.switched_share += pick >= 0 && m.switch_margin >= 0;
    const double r = chosen_ratio(sw, s, pick, best), t = r * best;
    ratio.push_back(r);
    model_ratio.push_back(chosen_ratio(sw, s, decide_lt(alone, sh.m, sh.n, sh.k), best));
    v.optimal_share += r <= 1.0;
    if (std::isfinite(h0)) {
      vs_heur.push_back(h0 / t), oracle.push_back(h0 / best), heur_ratio.push_back(std::max(1.0, h0 / best));
      const int hc = sw.heur0_config[s];
      if (hc >= 0 && std::isfinite(sw.us[s][size_t(hc)])) rebuilt.push_back(sw.us[s][size_t(hc)] / h0);
    }
    if (std::isfinite(sw.heur_query_us[s])) query.push_back(sw.heur_query_us[s]);
  }
  if (v.heldout == 0) throw InputError(sw.path, "no held-out shape to validate on; lower --sample-fraction");
  {  // nearest-sampled-shape baseline
    std::vector<double> nn, nn_vs;
    for (size_t s = 0; s < sw.shapes.size(); ++s) {
      const double best = best_of(sw.us[s]);
      if (sampled[s] || !std::isfinite(best)) continue;
      size_t near = s;
      double dmin = kInf;
      for (size_t q = 0; q < sw.shapes.size(); ++q) {
        if (!sampled[q] || (plan && plan->partial[q])) continue;  // only shapes with every config measured
        const double d = std::pow(std::log2(double(sw.shapes[q].m) / double(sw.shapes[s].m)), 2) +
                         std::pow(std::log2(double(sw.shapes[q].n) / double(sw.shapes[s].n)), 2) +
                         std::pow(std::log2(double(sw.shapes[q].k) / double(sw.shapes[s].k)), 2);
        if (d < dmin) dmin = d, near = q;
      }
      const auto& row = sw.us[near];
      const size_t pick = size_t(std::min_element(row.begin(), row.end(), [](double a, double b) {
                                   return std::isfinite(a) && (!std::isfinite(b) || a < b);
                                 }) - row.begin());
      double t = sw.us[s][pick];
      if (!std::isfinite(t)) t = std::isfinite(sw.heur0_us[s]) ? sw.heur0_us[s] : best;
      nn.push_back(t / best);
      if (std::isfinite(sw.heur0_us[s])) nn_vs.push_back(sw.heur0_us[s] / t);
    }
    v.nn_geomean = geomean(nn), v.nn_p95 = percentile(nn, 0.95), v.nn_speedup_vs_heur0 = geomean(nn_vs);
  }
  v.geomean = geomean(ratio), v.p95 = percentile(ratio, 0.95), v.max = *std::max_element(ratio.begin(), ratio.end());
  v.optimal_share /= double(v.heldout), v.switched_share /= double(v.heldout);
  v.model_geomean = geomean(model_ratio), v.model_p95 = percentile(model_ratio, 0.95);
  v.speedup_vs_heur0 = geomean(vs_heur), v.oracle_vs_heur0 = geomean(oracle);
  v.heur0_geomean = geomean(heur_ratio), v.heur0_p95 = percentile(heur_ratio, 0.95);
  v.rebuilt_vs_returned = geomean(rebuilt), v.heur_query_us = percentile(query, 0.5);
  v.grid_time_share = grid_us > 0 ? sampled_us / grid_us : 0;
  if (time_decisions) {  // median over 201 batches of one decision per held-out shape
    std::vector<double> ns;
    volatile int sink = 0;
    for (int r = 0; r < 201; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      int64_t count = 0;
      for (size_t s = 0; s < sw.shapes.size(); ++s)
        if (!sampled[s])
          sink = sink + decide_lt(c, sw.shapes[s].m, sw.shapes[s].n, sw.shapes[s].k, sw.heur0_config[s]), ++count;
      ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                   double(std::max<int64_t>(1, count)));
    }
    v.decision_ns = percentile(ns, 0.5);
  }
  return v;
}

}  // namespace loom::wave
