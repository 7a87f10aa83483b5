// Measured rows faster than the GPU's peak (see peak_check.h).
#include "trace/peak_check.h"

#include <algorithm>
#include <cstdio>

#include "analytical/analysis.h"
#include "core/error.h"
#include "kernels/shape.h"

namespace loom {

double peak_floor_us(const GpuSpec& gpu, const KernelSpec& spec) {
  const KernelShape s = parse_shape(spec, gpu);
  const bool tensor_family = s.family == Family::gemm || s.family == Family::moe ||
                             s.family == Family::attention_prefill || s.family == Family::attention_decode;
  if (!tensor_family) return 0;
  double per_clk_per_sm = gpu.tensor_flops_per_clk(s.dtype);
  if (s.dtype == Dtype::fp32)  // PyTorch's fp32 matmul runs on the FMA pipe, or on TF32 tensor cores when allowed
    per_clk_per_sm = std::max({per_clk_per_sm, gpu.tensor_flops_per_clk(Dtype::tf32), gpu.fp32_flops_per_clk_per_sm});
  const double peak_flops_per_s = per_clk_per_sm * gpu.sms * gpu.boost_clock_mhz * 1e6;
  if (peak_flops_per_s <= 0) return 0;
  // The FLOP count does not depend on the tile config; a pinned one may not fit this GPU (PipeWeave's MoE sweeps
  // hold configs beyond an A40's shared memory), so it is dropped.
  KernelSpec any_config = spec;
  any_config.params.erase("config");
  return analyze(gpu, any_config, false).flops / peak_flops_per_s * 1e6;
}

FasterThanPeak faster_than_peak(const Corpus& c, const GpuSpec& gpu) {
  FasterThanPeak out;
  for (const CorpusRow& row : c.rows) {
    double floor_us = 0;
    try {
      floor_us = peak_floor_us(gpu, parse_kernel_spec(row.spec, c.path));
    } catch (const InputError&) {
      continue;  // a spec this GPU cannot run has no floor here; predict says what is wrong with it
    }
    if (!(row.median_us < floor_us)) continue;
    if (out.rows++ == 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": %.4g us measured, %.4g us at peak", row.median_us, floor_us);
      out.example = "'" + row.spec.substr(0, 80) + "'" + buf;
    }
  }
  return out;
}

}  // namespace loom
