// Adapters from Analysis/GpuSpec to the report's roofline and speed-of-light structs.
#include "cli/report_from_analysis.h"

#include <algorithm>
#include <cmath>

#include "cli/table.h"
#include "core/dtype.h"

namespace loom::cli {

report::RooflineChart roofline_from(const GpuSpec& gpu, const std::vector<Analysis>& analyses) {
  report::RooflineChart c;
  c.gpu = gpu.name;
  // Floating-point tensor ceilings only (int8 counts ops, fp64 tensor is beside the point for ML kernels); dtypes
  // with the same peak share one line ("fp16/bf16 tensor").
  for (Dtype d : {Dtype::fp4, Dtype::fp8, Dtype::fp16, Dtype::bf16, Dtype::tf32}) {
    double peak = gpu.tensor_flops_per_s(d);
    if (!(peak > 0)) continue;
    auto same = std::find_if(c.ceilings.begin(), c.ceilings.end(),
                             [&](const auto& cc) { return std::abs(cc.flops_per_s - peak) <= 0.005 * peak; });
    if (same != c.ceilings.end())
      same->name.insert(same->name.find(' '), "/" + std::string(dtype_name(d)));
    else
      c.ceilings.push_back({std::string(dtype_name(d)) + " tensor", peak});
  }
  if (gpu.fp32_flops_per_s() > 0) c.ceilings.push_back({"fp32 FMA", gpu.fp32_flops_per_s()});
  c.dram_bytes_per_s = gpu.dram_bytes_per_s;
  c.l2_bytes_per_s = gpu.l2_bytes_per_s;
  for (const auto& a : analyses) {
    // Kernels with no FLOP (copies) or no DRAM traffic have no place on a roofline; the renderer notes them.
    double intensity = a.dram_bytes > 0 ? a.flops / a.dram_bytes : 0;
    double flops_per_s = a.latency_us > 0 ? a.flops / (a.latency_us * 1e-6) : 0;
    c.points.push_back({a.kernel, a.family, intensity, flops_per_s, std::nullopt});
  }
  return c;
}

report::SolBars sol_from(const Analysis& a, std::optional<double> measured_us) {
  report::SolBars s{a.kernel, a.gpu, a.bottleneck, a.ceiling_us, measured_us, {}};
  for (const auto& p : a.pipes)
    s.bars.push_back({p.pipe, p.time_us, a.ceiling_us > 0 ? p.time_us / a.ceiling_us : 0,
                      human(p.total, p.unit == "bytes" ? "B" : p.unit)});
  return s;
}

}  // namespace loom::cli
