// Weighted least-squares fit of the bilinear wave model (see bilinear.h), with rank guards.
#include "wave/bilinear.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

namespace loom::wave {
namespace {

// Term sets tried in order: {G*L, G, L, 1}, {G*L, 1}, {G*L}.
const std::vector<std::vector<int>>& term_sets() {
  static const std::vector<std::vector<int>> sets = {{0, 1, 2, 3}, {0, 3}, {0}};
  return sets;
}

double term(int t, const BilinearSample& s) {
  switch (t) {
    case 0: return s.ctas * s.loop_iters;
    case 1: return s.ctas;
    case 2: return s.loop_iters;
    default: return 1.0;
  }
}

}  // namespace

BilinearFit fit_bilinear(const std::vector<BilinearSample>& samples, double mean_waves) {
  BilinearFit fit;
  fit.samples = static_cast<int>(samples.size());
  fit.mean_waves = mean_waves;
  if (samples.empty()) return fit;
  fit.min_us = samples[0].latency_us;
  for (const auto& s : samples) fit.min_us = std::min(fit.min_us, s.latency_us);

  const Eigen::Index n = static_cast<Eigen::Index>(samples.size());
  for (const auto& set : term_sets()) {
    const Eigen::Index p = static_cast<Eigen::Index>(set.size());
    if (n < p) continue;
    Eigen::MatrixXd x(n, p);
    Eigen::VectorXd y(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double w = 1.0 / std::max(1e-9, samples[i].latency_us);  // relative residuals
      for (Eigen::Index j = 0; j < p; ++j) x(i, j) = w * term(set[j], samples[i]);
      y(i) = w * samples[i].latency_us;
    }
    Eigen::VectorXd scale = x.cwiseAbs().colwise().maxCoeff().transpose();
    for (Eigen::Index j = 0; j < p; ++j) {
      if (scale(j) <= 0) scale(j) = 1;
      x.col(j) /= scale(j);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x);
    qr.setThreshold(1e-9);
    if (qr.rank() < p) continue;
    Eigen::VectorXd beta = qr.solve(y);
    double coef[4] = {0, 0, 0, 0};
    for (Eigen::Index j = 0; j < p; ++j) coef[set[j]] = beta(j) / scale(j);
    fit.a = coef[0], fit.b = coef[1], fit.c = coef[2], fit.d = coef[3];
    fit.terms = static_cast<int>(p);
    break;
  }
  // Quality on the samples themselves (unfloored model).
  double mean = 0;
  for (const auto& s : samples) mean += s.latency_us;
  mean /= double(n);
  double ss_res = 0, ss_tot = 0, rel2 = 0;
  for (const auto& s : samples) {
    const double t = fit.a * s.ctas * s.loop_iters + fit.b * s.ctas + fit.c * s.loop_iters + fit.d;
    const double e = t - s.latency_us, rel = e / s.latency_us;
    ss_res += e * e, ss_tot += (s.latency_us - mean) * (s.latency_us - mean), rel2 += rel * rel;
    fit.max_rel_err = std::max(fit.max_rel_err, std::abs(rel));
  }
  fit.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res < 1e-12 ? 1.0 : 0.0);
  fit.rel_rms = std::sqrt(rel2 / double(n));
  return fit;
}

}  // namespace loom::wave
