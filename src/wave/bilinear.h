// Wave model, step 2: the bilinear latency model T(G, L) = a*G*L + b*G + c*L + d of one (macro config, wave bucket),
// fit by weighted least squares (Eigen), with a fallback to fewer terms when the samples cannot determine all four.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::wave {

struct BilinearSample {
  double ctas = 0;        ///< G
  double loop_iters = 0;  ///< L
  double latency_us = 0;  ///< measured T
};

/// Coefficients and fit quality. `terms` says which model was fitted: 4 = a,b,c,d; 2 = a,d (T = a*G*L + d);
/// 1 = a only (T = a*G*L); 0 = no samples (predict() returns 0).
struct BilinearFit {
  double a = 0, b = 0, c = 0, d = 0;
  int terms = 0;
  int samples = 0;
  double r2 = 0;          ///< 1 - SS_res / SS_tot on T (1 when all samples are predicted exactly)
  double rel_rms = 0;     ///< root mean square of (predicted - measured) / measured
  double max_rel_err = 0; ///< largest |predicted - measured| / measured
  double min_us = 0;      ///< smallest measured T (predictions are floored at half of it)
  double mean_waves = 0;  ///< mean wave count of the samples (reference for wave-ratio extrapolation)
  double predict(double ctas, double loop_iters) const {
    double t = a * ctas * loop_iters + b * ctas + c * loop_iters + d;
    return t > 0.5 * min_us ? t : 0.5 * min_us;
  }
};

/// Fits T = a*G*L + b*G + c*L + d minimising relative residuals (weights 1/T), columns scaled for conditioning.
/// Falls back to {a, d}, then {a} when the samples are fewer than the terms or the design is rank-deficient
/// (column-pivoted QR rank). `mean_waves` is stored as given.
BilinearFit fit_bilinear(const std::vector<BilinearSample>& samples, double mean_waves = 0);

}  // namespace loom::wave
