// Fills the HTML report's plain structs (report/report.h) from loom's analytical model, so `loom report --gpu G
// --kernel SPEC` draws predicted kernels on each GPU's roofline and their speed-of-light bars.
#pragma once

#include <optional>
#include <vector>

#include "analytical/analysis.h"
#include "hw/gpu_spec.h"
#include "report/loom_json.h"
#include "report/report.h"

namespace loom::cli {

/// One GPU's roofline: a compute ceiling per tensor dtype the GPU supports plus fp32 FMA, DRAM and L2 slopes, and
/// one predicted point per analysis (intensity = useful FLOP / DRAM bytes; FLOP/s at the predicted latency).
report::RooflineChart roofline_from(const GpuSpec& gpu, const std::vector<Analysis>& analyses);

/// What add_measured_points() did: kernels found for the GPU, drawn, and rejected by the analytical model.
struct MeasuredPlacement {
  size_t found = 0, drawn = 0, unplaced = 0;
};

/// Adds the measured kernels of a validation file to `gpu`'s roofline: the whole-chip points on gpu.name (one per
/// kernel spec), at the analytical model's intensity (FLOP / DRAM bytes), FLOP/s at the learned prediction and at
/// the measured time; at most `max_drawn` of them (0 = all), evenly spread over intensity.
MeasuredPlacement add_measured_points(report::RooflineChart& chart, const GpuSpec& gpu,
                                      const std::vector<report::ValidationPoint>& points, size_t max_drawn);

/// Speed-of-light bars of one analysis, with the measured time when given.
report::SolBars sol_from(const Analysis& a, std::optional<double> measured_us);

}  // namespace loom::cli
