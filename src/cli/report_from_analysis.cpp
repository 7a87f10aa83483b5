// Adapters from Analysis/GpuSpec to the report's roofline and speed-of-light structs.
#include "cli/report_from_analysis.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "cli/table.h"
#include "core/dtype.h"
#include "core/error.h"
#include "kernels/kernel_spec.h"

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
  c.dram_bytes_per_s = gpu.effective_dram_bytes_per_s();
  c.l2_bytes_per_s = gpu.l2_bytes_per_s;
  for (const auto& a : analyses) {
    // Kernels with no FLOP (copies) or no DRAM traffic have no place on a roofline; the renderer notes them.
    double intensity = a.dram_bytes > 0 ? a.flops / a.dram_bytes : 0;
    double flops_per_s = a.latency_us > 0 ? a.flops / (a.latency_us * 1e-6) : 0;
    c.points.push_back({a.kernel, a.family, intensity, flops_per_s, std::nullopt});
  }
  return c;
}

MeasuredPlacement add_measured_points(report::RooflineChart& chart, const GpuSpec& gpu,
                                      const std::vector<report::ValidationPoint>& points, size_t max_drawn) {
  MeasuredPlacement m;
  std::set<std::string> seen;
  std::vector<report::RooflinePoint> placed;
  for (const auto& p : points) {
    // Partitioned runs (fewer SMs) sit under a lower roof than the chart's whole-chip one: left out.
    if (p.gpu != gpu.name || (p.sms != 0 && p.sms != gpu.sms) || !seen.insert(p.spec).second) continue;
    try {
      Analysis a = analyze(gpu, parse_kernel_spec(p.spec, "validation point"));
      if (!(a.flops > 0) || !(a.dram_bytes > 0)) continue;  // no FLOP or no DRAM traffic: not on a roofline
      placed.push_back({p.spec + " (measured; learned prediction from split " + p.split + ")", p.family,
                        a.flops / a.dram_bytes, a.flops / (p.learned_us * 1e-6), a.flops / (p.measured_us * 1e-6)});
    } catch (const InputError&) {
      ++m.unplaced;
    }
  }
  m.found = placed.size();
  if (max_drawn > 0 && placed.size() > max_drawn) {
    std::stable_sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) {
      return a.intensity_flop_per_byte < b.intensity_flop_per_byte;
    });
    std::vector<report::RooflinePoint> kept;
    for (size_t i = 0; i < max_drawn; ++i)
      kept.push_back(
          placed[max_drawn == 1 ? 0
                                : static_cast<size_t>(std::llround(i * (placed.size() - 1.0) / (max_drawn - 1.0)))]);
    placed = std::move(kept);
  }
  m.drawn = placed.size();
  chart.points.insert(chart.points.end(), placed.begin(), placed.end());
  return m;
}

report::SolBars sol_from(const Analysis& a, std::optional<double> measured_us) {
  report::SolBars s{a.kernel, a.gpu, a.bottleneck, a.ceiling_us, measured_us, {}};
  for (const auto& p : a.pipes)
    s.bars.push_back({p.pipe, p.time_us, a.ceiling_us > 0 ? p.time_us / a.ceiling_us : 0,
                      human(p.total, p.unit == "bytes" ? "B" : p.unit)});
  return s;
}

}  // namespace loom::cli
