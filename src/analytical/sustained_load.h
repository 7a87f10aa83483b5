// Kernel time under sustained load (issue 12): a GPU held at its power cap by seconds of tensor-core work runs its
// SMs at a lower clock (H200: 1980 -> ~1485 MHz within 0.15 s; traces/checks/clock/). loom's kernels are measured
// from a cool start (the sweeps idle between cases), so `--clock sustained` slows the SM-clocked part of each
// predicted kernel by the GPU's measured `sustained_load.tensor_slowdown` s, on a roofline: with r = the kernel's
// compute time / memory time (its analysed pipes at the reference clock), the factor is max(r*s, 1) / max(r, 1):
// s for compute-bound kernels, 1 for DRAM-bound ones (the measured copy and small-M GEMM stay at 1.00x), partial in
// between. GPUs without a measurement keep factor 1 (and say so).
//
// The clock leaves boost within `sustained_load.onset` of a heavy load's start (H200 0.14-0.16 s, H100 0.06-0.10 s)
// and comes back as fast when the load stops, so `--clock auto` applies the slowdown only to what runs past the
// onset: a kernel (or, in `loom e2e`, a step) of boost time T > onset gets weight w = (T - onset) / T on its factor,
// i.e. t = onset + (T - onset) * factor; shorter work stays at boost.
#pragma once

#include <string>

#include "analytical/analysis.h"
#include "hw/gpu_spec.h"

namespace loom {

/// boost: kernels as measured from a cool start (loom's default). sustained: after seconds of heavy load.
/// automatic: sustained for what runs past the GPU's measured throttle onset, boost before it.
enum class ClockMode { boost, sustained, automatic };

/// "boost" | "sustained" | "auto". Throws InputError("--clock", ...) for anything else.
ClockMode parse_clock_mode(const std::string& text);

const char* clock_mode_name(ClockMode m);

/// The multiplier on a cool-start latency when fully throttled (1 for an unmeasured GPU): see above.
double sustained_load_factor(const GpuSpec& gpu, const Analysis& a);

/// The weight of that factor for work of `boost_us` under `mode`: 0 (boost), 1 (sustained), or the share of the
/// work past the GPU's onset (automatic; 0 when the GPU has no measured onset).
double sustained_load_weight(const GpuSpec& gpu, double boost_us, ClockMode mode);

}  // namespace loom
