// Per-config ridge wave model (see config_model.h).
#include "wave/config_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <Eigen/Dense>

#include "core/error.h"

namespace loom::wave {
namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

uint64_t hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// min 1/2 x'Qx - c'x subject to x >= 0 (Q positive definite: a ridge Gram matrix), by cyclic coordinate descent, each
// coordinate minimised exactly and clipped at 0; from the unconstrained solution clipped, until no coordinate moves
// by more than 1e-12 of the largest (at most 500 sweeps; the 6 x 6 problems here settle in tens).
Eigen::VectorXd nonneg_quadratic(const Eigen::MatrixXd& q, const Eigen::VectorXd& c, Eigen::VectorXd x) {
  x = x.cwiseMax(0.0);
  for (int sweep = 0; sweep < 500; ++sweep) {
    double moved = 0;
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      const double r = c(j) - q.row(j).dot(x) + q(j, j) * x(j);
      const double v = std::max(0.0, r / q(j, j));
      moved = std::max(moved, std::abs(v - x(j)));
      x(j) = v;
    }
    if (moved <= 1e-12 * std::max(1.0, x.cwiseAbs().maxCoeff())) break;
  }
  return x;
}

}  // namespace

double shape_bytes(const TuneShape& s, BytesFeature kind, double m_tiles, double n_tiles) {
  const bool gemm = s.family == "gemm";
  const double elem = s.dtype == "fp8" ? 1.0 : 2.0;
  const double n = double(gemm ? s.n : s.stage == 2 ? s.hidden : 2 * s.inter);
  const double k = double(gemm ? s.k : s.stage == 2 ? s.inter : s.hidden);
  const double rows = double(gemm ? s.m : s.tokens * s.topk);  // rows of A (moe: routed token copies)
  const double experts = gemm ? 1.0 : double(std::min(s.experts, s.tokens * s.topk));
  switch (kind) {
    case BytesFeature::weights: return experts * n * k / 1e8;  // elements, as first fitted
    case BytesFeature::operands: return (elem * (experts * n * k + rows * k) + 2.0 * rows * n) / 1e8;
    case BytesFeature::tiles: return (elem * k * (m_tiles * n + rows * n_tiles) + 2.0 * rows * n) / 1e8;
  }
  return 0;
}

ConfigCoef config_features(const TuneShape& s, const TuneConfig& c, int sms, BytesFeature bytes,
                           double work_floor_ctas) {
  const GridMap g = map_grid(s, c.bm, c.bn, c.bk);
  const double slots = double(std::max(1, sms) * std::max(1, c.ctas_per_sm));
  const double w = double(std::max<int64_t>(1, cdiv(g.ctas, int64_t(slots))));
  const double l = double(g.loop_iters);
  const int64_t n = s.family == "gemm" ? s.n : s.stage == 2 ? s.hidden : 2 * s.inter;
  const double n_tiles = double(cdiv(n, c.bn)), m_tiles = double(g.ctas) / n_tiles;
  const double work = double(g.ctas) * l / slots;
  const double x = s.family == "gemm" ? work * row_repeats(s, c.bm) : empty_programs(s, c.bm, c.bn) / slots;
  return {w * l, w, std::max(double(g.ctas), work_floor_ctas) * l / slots, 1.0, shape_bytes(s, bytes, m_tiles, n_tiles),
          l, x};
}

double empty_programs(const TuneShape& s, int bm, int bn) {
  if (s.family == "gemm" || bm <= 0 || bn <= 0) return 0.0;
  const TiledGemm t = tiled_gemm(s, true);
  return double((t.launched_m_tiles(bm) - t.m_tiles(bm)) * cdiv(t.n, int64_t(bn)));
}

double row_repeats(const TuneShape& s, int bm) {
  if (s.family != "gemm" || s.m <= 0 || s.m >= bm) return 0.0;
  return double(bm) / double(s.m) - 1.0;
}

std::string bytes_feature_name(BytesFeature b) {
  return b == BytesFeature::tiles ? "tiles" : b == BytesFeature::operands ? "operands" : "weights";
}

BytesFeature parse_bytes_feature(const std::string& s, const std::string& where) {
  for (BytesFeature b : {BytesFeature::weights, BytesFeature::operands, BytesFeature::tiles})
    if (s == bytes_feature_name(b)) return b;
  throw InputError(where, "'" + s + "' is not a bytes feature; use weights, operands or tiles");
}

ConfigModel fit_config_model(const Pool& pool, const std::vector<bool>& sampled, double lambda, int dropped_feature,
                             double keep_tolerance, BytesFeature bytes, bool nonneg, double work_floor_ctas,
                             bool macro_prior) {
  ConfigModel m;
  // A dropped feature shows as a zero column in the saved coefficients.
  m.lambda = lambda, m.bytes = bytes, m.nonneg = nonneg, m.work_floor_ctas = work_floor_ctas;
  m.macro_prior = macro_prior;
  std::vector<size_t> rows;
  for (size_t s = 0; s < pool.shapes.size(); ++s)
    if (sampled[s]) rows.push_back(s);
  if (rows.empty()) throw InputError(pool.gpu + "-" + pool.family, "no sampled shapes to fit the config model on");
  // One ridge fit over the rows of the configs in `members` (relative residuals, scaled columns), shrunk towards
  // `prior` (unscaled coefficients; zero: plain ridge) with strength lambda * rows.
  auto fit_rows = [&](const std::vector<size_t>& members, const ConfigCoef& prior) {
    const Eigen::Index n = Eigen::Index(rows.size() * members.size());
    Eigen::MatrixXd a(n, kConfigFeatures);
    Eigen::Index r = 0;
    for (size_t ci : members)
      for (size_t s : rows) {
        const double y = pool.us[s][ci];
        const ConfigCoef f = config_features(pool.shapes[s], pool.configs[ci], pool.sms, bytes, work_floor_ctas);
        for (int j = 0; j < kConfigFeatures; ++j) a(r, j) = j == dropped_feature ? 0.0 : f[size_t(j)] / y;
        ++r;
      }
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(n);  // y / y: relative residuals
    Eigen::VectorXd scale = (a.array().square().colwise().mean()).sqrt().transpose();
    for (int j = 0; j < kConfigFeatures; ++j) scale(j) = scale(j) > 0 ? scale(j) : 1.0;
    const Eigen::MatrixXd an = a * scale.cwiseInverse().asDiagonal();
    Eigen::MatrixXd lhs = an.transpose() * an;
    lhs.diagonal().array() += lambda * double(n);
    Eigen::VectorXd rhs = an.transpose() * b;
    for (int j = 0; j < kConfigFeatures; ++j) rhs(j) += lambda * double(n) * prior[size_t(j)] * scale(j);
    Eigen::VectorXd x = lhs.ldlt().solve(rhs);
    if (nonneg) x = nonneg_quadratic(lhs, rhs, x);  // scaling is positive: signs carry over to the coefficients
    ConfigCoef c{};
    for (int j = 0; j < kConfigFeatures; ++j) c[size_t(j)] = j == dropped_feature ? 0.0 : x(j) / scale(j);
    return c;
  };
  // macro_prior: each config's ridge shrinks towards its macro's fit (every config of the same BM x BN x BK, their
  // rows pooled), not towards zero: configs that differ only in stages, warps or grouping share most of their costs.
  std::vector<ConfigCoef> prior(pool.configs.size(), ConfigCoef{});
  if (macro_prior)
    for (size_t ci = 0; ci < pool.configs.size(); ++ci) {
      const TuneConfig& x = pool.configs[ci];
      size_t first = 0;
      while (!(pool.configs[first].bm == x.bm && pool.configs[first].bn == x.bn && pool.configs[first].bk == x.bk))
        ++first;
      if (first < ci) {
        prior[ci] = prior[first];
        continue;
      }
      std::vector<size_t> members;
      for (size_t cj = 0; cj < pool.configs.size(); ++cj)
        if (pool.configs[cj].bm == x.bm && pool.configs[cj].bn == x.bn && pool.configs[cj].bk == x.bk)
          members.push_back(cj);
      prior[ci] = fit_rows(members, ConfigCoef{});
    }
  for (size_t ci = 0; ci < pool.configs.size(); ++ci) m.coef.push_back(fit_rows({ci}, prior[ci]));
  if (keep_tolerance < 1e8) {
    std::vector<bool> kept(pool.configs.size(), false);
    for (size_t s : rows) {
      const double best = *std::min_element(pool.us[s].begin(), pool.us[s].end());
      for (size_t ci = 0; ci < pool.configs.size(); ++ci)
        kept[ci] = kept[ci] || pool.us[s][ci] <= (1 + keep_tolerance) * best;
    }
    for (size_t ci = 0; ci < kept.size(); ++ci)
      if (!kept[ci]) m.coef[ci] = {0, 0, 0, kPrunedIntercept, 0, 0, 0};
  }
  return m;
}

ConfigParams choose_config_params(const Pool& pool, const std::vector<bool>& sampled,
                                  const std::vector<double>& lambdas, const std::vector<int>& drops,
                                  const std::vector<double>& tolerances, const std::vector<BytesFeature>& bytes,
                                  const std::vector<bool>& nonnegs,
                                  const std::vector<double>& work_floors, const std::vector<bool>& priors) {
  std::vector<size_t> idx;
  for (size_t s = 0; s < sampled.size(); ++s)
    if (sampled[s]) idx.push_back(s);
  constexpr int kFolds = 4;
  ConfigParams best_p{lambdas.empty() ? 0.03 : lambdas.front(), drops.empty() ? -1 : drops.front(),
                      tolerances.empty() ? 1e9 : tolerances.front(),
                      bytes.empty() ? BytesFeature::weights : bytes.front(), !nonnegs.empty() && nonnegs.front(),
                      work_floors.empty() ? 0.0 : work_floors.front(), !priors.empty() && priors.front()};
  double best_loss = 1e300;
  for (bool mp : priors)
  for (double floor : work_floors)
  for (bool nonneg : nonnegs)
  for (BytesFeature kind : bytes)
  for (double tol : tolerances)
  for (int drop : drops)
    for (double lambda : lambdas) {
      double loss = 0;
      for (int fold = 0; fold < kFolds; ++fold) {
        std::vector<bool> train(sampled.size(), false);
        std::vector<size_t> test;
        for (size_t i = 0; i < idx.size(); ++i)
          if (int(i % kFolds) == fold) test.push_back(idx[i]);
          else train[idx[i]] = true;
        if (test.empty() || test.size() == idx.size()) continue;
        const ConfigModel m = fit_config_model(pool, train, lambda, drop, tol, kind, nonneg, floor, mp);
        for (size_t s : test) {
          size_t pick = 0;
          double pick_t = 1e300, best = 1e300;
          for (size_t ci = 0; ci < pool.configs.size(); ++ci) {
            const ConfigCoef f = config_features(pool.shapes[s], pool.configs[ci], pool.sms, kind, floor);
            double t = 0;
            for (int j = 0; j < kConfigFeatures; ++j) t += m.coef[ci][size_t(j)] * f[size_t(j)];
            if (t < pick_t) pick_t = t, pick = ci;
            best = std::min(best, pool.us[s][ci]);
          }
          loss += std::log(pool.us[s][pick] / best);
        }
      }
      if (loss < best_loss - 1e-12) best_loss = loss, best_p = {lambda, drop, tol, kind, nonneg, floor, mp};
    }
  return best_p;
}

std::vector<bool> select_stratified(const Pool& pool, double fraction) {
  const size_t n = pool.shapes.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  auto density = [&](size_t i) {
    const TuneShape& s = pool.shapes[i];
    return s.family == "gemm" ? double(s.m) : double(s.tokens * s.topk) / double(std::max<int64_t>(1, s.experts));
  };
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const double dx = density(x), dy = density(y);
    if (dx != dy) return dx < dy;
    if (pool.shapes[x].stage != pool.shapes[y].stage) return pool.shapes[x].stage < pool.shapes[y].stage;
    return hash(pool.keys[x]) < hash(pool.keys[y]);
  });
  std::vector<bool> sampled(n, false);
  const size_t take = std::min(n, size_t(std::llround(fraction * double(n))));
  for (size_t i = 0; i < take; ++i) sampled[order[(2 * i + 1) * n / (2 * take)]] = true;  // centres of equal strata
  return sampled;
}

namespace {
const std::vector<std::string> kFeatureNames(std::begin(kConfigFeatureNames), std::end(kConfigFeatureNames));
// The features a saved model names, in order: moe's seventh is its empty programs, gemm's the row repeats.
std::vector<std::string> feature_names(bool moe) {
  std::vector<std::string> names = kFeatureNames;
  if (moe) names.back() = kMoeLastFeatureName;
  return names;
}
}  // namespace

nlohmann::ordered_json config_model_json(const ConfigModel& m, const std::vector<TuneConfig>& configs, bool moe) {
  const std::vector<std::string> names = feature_names(moe);
  nlohmann::ordered_json coef = nlohmann::ordered_json::object();
  for (size_t i = 0; i < m.coef.size(); ++i) coef[configs[i].name] = m.coef[i];
  // The first tables (weight elements) keep their exact form; another bytes feature is named.
  if (m.bytes == BytesFeature::weights && !m.nonneg && m.work_floor_ctas == 0 && !m.macro_prior)
    return nlohmann::ordered_json{{"features", names},
                                  {"lambda", m.lambda},
                                  {"coef", coef}};
  nlohmann::ordered_json j{{"features", names}, {"bytes", bytes_feature_name(m.bytes)}};
  if (m.nonneg) j["nonneg"] = true;
  if (m.macro_prior) j["macro_prior"] = true;
  if (m.work_floor_ctas > 0) j["work_floor_ctas"] = m.work_floor_ctas;
  j["lambda"] = m.lambda;
  j["coef"] = coef;
  return j;
}

ConfigModel config_model_from_json(const nlohmann::json& j, const std::vector<TuneConfig>& configs,
                                   const std::string& where, bool moe) {
  auto num = [](double v) {  // for messages: 1e+300, not 300 digits
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return std::string(b);
  };
  ConfigModel m;
  if (!j.is_object() || !j.contains("lambda") || !j["lambda"].is_number() || !j.contains("coef") ||
      !j["coef"].is_object())
    throw InputError(where, "config_model needs a numeric 'lambda' and a 'coef' object");
  m.lambda = j["lambda"].get<double>();
  // The ridge strength --fit used (0.03; --lambda takes [0, 100]): shown by --validate, so a corrupt one is refused.
  if (!(m.lambda >= 0 && m.lambda <= 100))
    throw InputError(where, "config_model.lambda = " + num(m.lambda) + " is not in [0, 100]");
  // The features the coefficients multiply, in order. Tables without the list read as this loom's; a list naming
  // others (a moe table fitted with row repeats as its seventh feature) would be read with another meaning.
  const std::vector<std::string> names = feature_names(moe);
  if (j.contains("features")) {
    const auto& f = j["features"];
    bool same = f.is_array() && (f.size() == names.size() || (!moe && f.size() + 1 == names.size()));
    for (size_t i = 0; same && i < f.size(); ++i) same = f[i].is_string() && f[i].get<std::string>() == names[i];
    if (!same) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw InputError(where, "config_model.features: not this loom's " + std::string(moe ? "moe" : "gemm") +
                                  " features (" + list + "); refit with `loom tune --fit`");
    }
  }
  if (j.contains("bytes")) {
    if (!j["bytes"].is_string())
      throw InputError(where, "config_model.bytes: not a string; use weights, operands or tiles");
    m.bytes = parse_bytes_feature(j["bytes"].get<std::string>(), where + ": config_model.bytes");
  }
  if (j.contains("nonneg")) {
    if (!j["nonneg"].is_boolean()) throw InputError(where, "config_model.nonneg: not true or false");
    m.nonneg = j["nonneg"].get<bool>();
  }
  if (j.contains("macro_prior")) {
    if (!j["macro_prior"].is_boolean()) throw InputError(where, "config_model.macro_prior: not true or false");
    m.macro_prior = j["macro_prior"].get<bool>();
  }
  if (j.contains("work_floor_ctas")) {
    if (!j["work_floor_ctas"].is_number() || !(j["work_floor_ctas"].get<double>() >= 0))
      throw InputError(where, "config_model.work_floor_ctas: not a number >= 0");
    m.work_floor_ctas = j["work_floor_ctas"].get<double>();
  }
  for (const auto& c : configs) {
    auto it = j["coef"].find(c.name);
    // Tables fitted before the row-repeat feature have 6 numbers; its coefficient is then 0.
    // A moe table's seventh feature (the grid's empty programs) has been there since it was added: a moe row of 6
    // numbers would read it as 0 and misjudge every small batch.
    if (it == j["coef"].end() || !it->is_array() ||
        (it->size() != size_t(kConfigFeatures) && (moe || it->size() != size_t(kConfigFeatures - 1))))
      throw InputError(where, "config_model.coef." + c.name + ": missing or not " + std::to_string(kConfigFeatures) +
                                  " numbers" +
                                  (it != j["coef"].end() && it->is_array()
                                       ? " (" + std::to_string(it->size()) + " numbers" +
                                             (moe ? "; the moe model's seventh is " + std::string(kMoeLastFeatureName)
                                                  : std::string()) +
                                             ")"
                                       : std::string()));
    ConfigCoef v{};
    for (int k = 0; k < int(it->size()); ++k) {
      if (!(*it)[size_t(k)].is_number()) throw InputError(where, "config_model.coef." + c.name + ": not a number");
      v[size_t(k)] = (*it)[size_t(k)].get<double>();
      if (!std::isfinite(v[size_t(k)])) throw InputError(where, "config_model.coef." + c.name + ": not finite");
      // Beyond the pruned intercept (1e9 us) a term overflows a prediction to inf; below 0 in a model fitted with
      // coefficients >= 0 a config looks nearly free far from its samples (config_model.h).
      if (std::abs(v[size_t(k)]) > kPrunedIntercept)
        throw InputError(where, "config_model.coef." + c.name + "[" + std::to_string(k) + "] = " +
                                    num(v[size_t(k)]) + " is beyond +-1e9");
      if (m.nonneg && v[size_t(k)] < 0)
        throw InputError(where, "config_model.coef." + c.name + "[" + std::to_string(k) + "] is negative in a model "
                                    "fitted with coefficients >= 0 ('nonneg': true)");
    }
    m.coef.push_back(v);
  }
  if (j["coef"].size() != configs.size()) throw InputError(where, "config_model.coef names configs not in 'configs'");
  return m;
}

}  // namespace loom::wave
