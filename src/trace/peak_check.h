// Measured rows faster than the GPU's peak: a kernel's useful FLOP at the chip's fastest rate for its dtype (every
// SM, boost clock) is a floor no run of it can beat, so a row below it is no measurement of that kernel on that GPU
// (a wrong time unit, another GPU's row, a shifted column). `loom trace import --from` counts them (round 14).
#pragma once

#include <cstdint>
#include <string>

#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"
#include "trace/trace.h"

namespace loom {

/// The spec's useful FLOP at `gpu`'s peak rate for its dtype (tensor path, or TF32 / the FMA pipe for fp32, the
/// faster), in microseconds; 0 for the memory-bound families and collectives, whose floor a warm L2 or a cached
/// operand can undercut. A pinned config= is ignored (the FLOP do not depend on it). Throws InputError for a spec
/// `gpu` cannot run.
double peak_floor_us(const GpuSpec& gpu, const KernelSpec& spec);

/// The rows of `c` (measured on `gpu`) faster than their peak_floor_us, with the first one described (a row whose spec
/// `gpu` cannot run is not counted).
struct FasterThanPeak {
  int64_t rows = 0;
  std::string example;  ///< "'gemm m=...': 0.001 us measured, 12.3 us at peak"
};
FasterThanPeak faster_than_peak(const Corpus& c, const GpuSpec& gpu);

}  // namespace loom
