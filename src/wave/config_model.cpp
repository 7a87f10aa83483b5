// Per-config ridge wave model (see config_model.h).
#include "wave/config_model.h"

#include <algorithm>
#include <cmath>
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

}  // namespace

ConfigCoef config_features(const TuneShape& s, const TuneConfig& c, int sms) {
  const GridMap g = map_grid(s, c.bm, c.bn, c.bk);
  const double slots = double(std::max(1, sms) * std::max(1, c.ctas_per_sm));
  const double w = double(std::max<int64_t>(1, cdiv(g.ctas, int64_t(slots))));
  const double l = double(g.loop_iters);
  double bytes;
  if (s.family == "gemm") {
    bytes = double(s.n) * double(s.k);
  } else {
    const int64_t n = s.stage == 2 ? s.hidden : 2 * s.inter, k = s.stage == 2 ? s.inter : s.hidden;
    bytes = double(std::min(s.experts, s.tokens * s.topk)) * double(n) * double(k);
  }
  return {w * l, w, double(g.ctas) * l / slots, 1.0, bytes / 1e8, l};
}

ConfigModel fit_config_model(const Pool& pool, const std::vector<bool>& sampled, double lambda, int dropped_feature,
                             double keep_tolerance) {
  ConfigModel m;
  m.lambda = lambda;  // a dropped feature shows as a zero column in the saved coefficients
  std::vector<size_t> rows;
  for (size_t s = 0; s < pool.shapes.size(); ++s)
    if (sampled[s]) rows.push_back(s);
  if (rows.empty()) throw InputError(pool.gpu + "-" + pool.family, "no sampled shapes to fit the config model on");
  const Eigen::Index n = Eigen::Index(rows.size());
  for (size_t ci = 0; ci < pool.configs.size(); ++ci) {
    Eigen::MatrixXd a(n, kConfigFeatures);
    Eigen::VectorXd b(n);
    for (Eigen::Index r = 0; r < n; ++r) {
      const size_t s = rows[size_t(r)];
      const double y = pool.us[s][ci];
      const ConfigCoef f = config_features(pool.shapes[s], pool.configs[ci], pool.sms);
      for (int j = 0; j < kConfigFeatures; ++j) a(r, j) = j == dropped_feature ? 0.0 : f[size_t(j)] / y;
      b(r) = 1.0;  // y / y: relative residuals
    }
    Eigen::VectorXd scale = (a.array().square().colwise().mean()).sqrt().transpose();
    for (int j = 0; j < kConfigFeatures; ++j) scale(j) = scale(j) > 0 ? scale(j) : 1.0;
    const Eigen::MatrixXd an = a * scale.cwiseInverse().asDiagonal();
    Eigen::MatrixXd lhs = an.transpose() * an;
    lhs.diagonal().array() += lambda * double(n);
    const Eigen::VectorXd x = lhs.ldlt().solve(an.transpose() * b);
    ConfigCoef c{};
    for (int j = 0; j < kConfigFeatures; ++j) c[size_t(j)] = j == dropped_feature ? 0.0 : x(j) / scale(j);
    m.coef.push_back(c);
  }
  if (keep_tolerance < 1e8) {
    std::vector<bool> kept(pool.configs.size(), false);
    for (size_t s : rows) {
      const double best = *std::min_element(pool.us[s].begin(), pool.us[s].end());
      for (size_t ci = 0; ci < pool.configs.size(); ++ci)
        kept[ci] = kept[ci] || pool.us[s][ci] <= (1 + keep_tolerance) * best;
    }
    for (size_t ci = 0; ci < kept.size(); ++ci)
      if (!kept[ci]) m.coef[ci] = {0, 0, 0, kPrunedIntercept, 0, 0};
  }
  return m;
}

ConfigParams choose_config_params(const Pool& pool, const std::vector<bool>& sampled,
                                  const std::vector<double>& lambdas, const std::vector<int>& drops,
                                  const std::vector<double>& tolerances) {
  std::vector<size_t> idx;
  for (size_t s = 0; s < sampled.size(); ++s)
    if (sampled[s]) idx.push_back(s);
  constexpr int kFolds = 4;
  ConfigParams best_p{lambdas.empty() ? 0.03 : lambdas.front(), drops.empty() ? -1 : drops.front(),
                      tolerances.empty() ? 1e9 : tolerances.front()};
  double best_loss = 1e300;
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
        const ConfigModel m = fit_config_model(pool, train, lambda, drop, tol);
        for (size_t s : test) {
          size_t pick = 0;
          double pick_t = 1e300, best = 1e300;
          for (size_t ci = 0; ci < pool.configs.size(); ++ci) {
            const ConfigCoef f = config_features(pool.shapes[s], pool.configs[ci], pool.sms);
            double t = 0;
            for (int j = 0; j < kConfigFeatures; ++j) t += m.coef[ci][size_t(j)] * f[size_t(j)];
            if (t < pick_t) pick_t = t, pick = ci;
            best = std::min(best, pool.us[s][ci]);
          }
          loss += std::log(pool.us[s][pick] / best);
        }
      }
      if (loss < best_loss - 1e-12) best_loss = loss, best_p = {lambda, drop, tol};
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

nlohmann::ordered_json config_model_json(const ConfigModel& m, const std::vector<TuneConfig>& configs) {
  nlohmann::ordered_json coef = nlohmann::ordered_json::object();
  for (size_t i = 0; i < m.coef.size(); ++i) coef[configs[i].name] = m.coef[i];
  return nlohmann::ordered_json{{"features", {"W*L", "W", "G*L/slots", "1", "bytes/1e8", "L"}},
                                {"lambda", m.lambda},
                                {"coef", coef}};
}

ConfigModel config_model_from_json(const nlohmann::json& j, const std::vector<TuneConfig>& configs,
                                   const std::string& where) {
  ConfigModel m;
  if (!j.is_object() || !j.contains("lambda") || !j["lambda"].is_number() || !j.contains("coef") ||
      !j["coef"].is_object())
    throw InputError(where, "config_model needs a numeric 'lambda' and a 'coef' object");
  m.lambda = j["lambda"].get<double>();
  for (const auto& c : configs) {
    auto it = j["coef"].find(c.name);
    if (it == j["coef"].end() || !it->is_array() || it->size() != size_t(kConfigFeatures))
      throw InputError(where, "config_model.coef." + c.name + ": missing or not " + std::to_string(kConfigFeatures) +
                                  " numbers");
    ConfigCoef v{};
    for (int k = 0; k < kConfigFeatures; ++k) {
      if (!(*it)[size_t(k)].is_number()) throw InputError(where, "config_model.coef." + c.name + ": not a number");
      v[size_t(k)] = (*it)[size_t(k)].get<double>();
      if (!std::isfinite(v[size_t(k)])) throw InputError(where, "config_model.coef." + c.name + ": not finite");
    }
    m.coef.push_back(v);
  }
  if (j["coef"].size() != configs.size()) throw InputError(where, "config_model.coef names configs not in 'configs'");
  return m;
}

}  // namespace loom::wave
