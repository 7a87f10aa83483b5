// `--interval` for end-to-end commands: kernel predictors that return each kernel's interval bounds, so a step's
// band is the step recomputed at every kernel's lower and upper bound (errors assumed fully correlated: wide, not
// optimistic), plus the extrapolation notes of every kernel met.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "cli/common.h"
#include "e2e/timeline.h"

namespace loom::cli {

struct BandPredictors {
  KernelPredictor lo, hi;
  std::shared_ptr<std::set<std::string>> notes;  ///< "extrapolated: no measured ada gemm kernels", ...
};

/// Band predictors for `--kernel-model` (learned: coverage.json of the committed model; analytical: x0.5-x2).
BandPredictors band_predictors(const Args& args);

}  // namespace loom::cli
