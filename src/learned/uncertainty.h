// Uncertainty of a learned kernel prediction: an interval from the model's own held-out errors, and an
// extrapolation flag when the GPU's architecture, the GPU or the implementation lies outside the measured data.
// Both come from <model dir>/coverage.json, written by `loom train`; evaluated only on request (predict
// --interval), so the fast prediction path never loads it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "learned/dataset.h"
#include "learned/predictor.h"
#include "learned/validate.h"

namespace loom {

/// Held-out error quantiles of log(measured / predicted), for one family.
struct ResidualBand {
  size_t n = 0;
  double lo = 0, hi = 0;  ///< 10th and 90th percentile of log(measured / predicted)
};

struct FamilyCoverage {
  std::set<std::string> architectures, gpus, impls;  ///< what the training corpus measured for this family
  size_t kernels = 0;
  ResidualBand shapes;        ///< unseen shapes on measured GPUs (the "shapes" split)
  ResidualBand unseen_arch;   ///< unseen architectures (the "arch:*" splits pooled)
};

struct Coverage {
  std::map<std::string, FamilyCoverage> families;
  /// From a dataset and its validation report (points of the shapes and arch: splits).
  static Coverage from(const Dataset& ds, const ValidationReport& rep);
  /// Reads <dir>/coverage.json. Throws InputError(FILE, ...) when missing or malformed.
  static Coverage load(const std::string& dir);
  /// The same from the file's text; `path` names it in messages (the fuzz target's entry point).
  static Coverage from_text(const std::string& text, const std::string& path);
  void save(const std::string& dir) const;
};

struct Uncertainty {
  double lo_us = 0, hi_us = 0;      ///< the interval (10th-90th percentile of held-out errors)
  bool extrapolated = false;
  std::vector<std::string> reasons;  ///< "extrapolated: no measured ada gemm kernels", "note: ..."
};

/// Interval and extrapolation flags for one prediction of `family` on a GPU of `architecture` / `gpu_key`, run by
/// `impl` (an impl_class()). Families the coverage lacks get the analytical model's band (x0.5-x2) and a flag.
Uncertainty assess(const Coverage& cov, const std::string& family, const std::string& architecture,
                   const std::string& gpu_key, const std::string& impl, double latency_us);

/// The same for a Prediction: the learned band when the learned model made it (`cov` non-null), else the
/// analytical band (x0.5-x2, flagged "analytical model only").
Uncertainty assess_prediction(const Coverage* cov, const Prediction& p, const GpuSpec& gpu, const KernelSpec& spec);

}  // namespace loom
