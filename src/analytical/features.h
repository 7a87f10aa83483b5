// The learned model's view of an Analysis: a stable, named feature vector (same names and order for every family).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analytical/analysis.h"
#include "hw/gpu_spec.h"

namespace loom {

/// Features for the learned efficiency model: per-pipe log time relative to the ceiling, log ceiling, occupancy,
/// waves, tail, tile waste, intensity, L2 fit, launch shape, GPU scalars and a family one-hot. Names and order
/// never depend on the family (0 where not applicable).
std::vector<std::pair<std::string, double>> analysis_features(const Analysis& a, const GpuSpec& gpu);

/// The same values, as floats, into out[0..analysis_feature_names().size()) without allocating; returns the count.
size_t analysis_feature_values(const Analysis& a, const GpuSpec& gpu, float* out);

/// The feature names analysis_features() returns, in order.
const std::vector<std::string>& analysis_feature_names();
/// The features that are constants of the GPU (size, clocks, rates, architecture path), not of the kernel.
const std::vector<std::string>& gpu_constant_feature_names();

}  // namespace loom
