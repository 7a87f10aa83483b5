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

ConfigModel fit_config_model(const Pool& pool, const std::vector<bool>& sampled, double lambda) {
  ConfigModel m;
  m.lambda = lambda;
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
      for (int j = 0; j < kConfigFeatures; ++j) a(r, j) = f[size_t(j)] / y;
      b(r) = 1.0;  // y / y: relative residuals
    }
    Eigen::VectorXd scale = (a.array().square().colwise().mean()).sqrt().transpose();
    for (int j = 0; j < kConfigFeatures; ++j) scale(j) = scale(j) > 0 ? scale(j) : 1.0;
    const Eigen::MatrixXd an = a * scale.cwiseInverse().asDiagonal();
    Eigen::MatrixXd lhs = an.transpose() * an;
    lhs.diagonal().array() += lambda * double(n);
    const Eigen::VectorXd x = lhs.ldlt().solve(an.transpose() * b);
    ConfigCoef c{};
    for (int j = 0; j < kConfigFeatures; ++j) c[size_t(j)] = x(j) / scale(j);
    m.coef.push_back(c);
  }
  return m;
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
