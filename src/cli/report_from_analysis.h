// Fills the HTML report's plain structs (report/report.h) from loom's analytical model, so `loom report --gpu G
// --kernel SPEC` draws predicted kernels on each GPU's roofline and their speed-of-light bars.
#pragma once

#include <optional>
#include <vector>

#include "analytical/analysis.h"
#include "hw/gpu_spec.h"
#include "report/report.h"

namespace loom::cli {

/// One GPU's roofline: a compute ceiling per tensor dtype the GPU supports plus fp32 FMA, DRAM and L2 slopes, and
/// one predicted point per analysis (intensity = useful FLOP / DRAM bytes; FLOP/s at the predicted latency).
report::RooflineChart roofline_from(const GpuSpec& gpu, const std::vector<Analysis>& analyses);

/// Speed-of-light bars of one analysis, with the measured time when given.
report::SolBars sol_from(const Analysis& a, std::optional<double> measured_us);

}  // namespace loom::cli
