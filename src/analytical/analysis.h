// The analytical pipeline-demand model's output for one kernel on one GPU: what each pipeline must do,
// how CTAs land on SMs, and the ceiling (slowest pipeline) with its name. This is also the feature source
// for the learned model (learned/) and the (G, L) source for the wave model (wave/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"

namespace loom {

/// One pipeline's demand. Names: "tensor", "fma", "sfu", "alu", "smem", "l2", "dram" (and "link" for all_reduce).
struct PipeLoad {
  std::string pipe;
  std::string unit;          ///< "FLOP", "ops", "bytes"
  double total = 0;          ///< whole-kernel demand
  double busiest_sm = 0;     ///< demand on the most loaded SM (equal to total for chip-wide levels: l2, dram, link)
  double time_us = 0;        ///< time at the GPU's peak rate, accounting for waves (busiest SM for per-SM pipes)
};

/// How the grid lands on the chip.
struct LaunchInfo {
  int64_t ctas = 0;            ///< grid size G
  int64_t loop_iters = 0;      ///< inner-loop length L per CTA (K/BK for GEMM, KV blocks for attention, 1 if none)
  int threads_per_cta = 0;
  int regs_per_thread = 0;
  int64_t smem_per_cta_bytes = 0;
  int ctas_per_sm = 0;         ///< resident CTAs per SM (occupancy)
  std::string occupancy_limit; ///< "regs" | "smem" | "threads" | "ctas" | "grid"
  double occupancy = 0;        ///< resident warps / max warps
  int64_t waves = 0;           ///< ceil(ctas / (sms * ctas_per_sm))
  double last_wave_fill = 0;   ///< fraction of the last wave's slots in use (1 = full)
  double tile_waste = 0;       ///< fraction of computed tile area that is padding (0 = none)
};

struct Analysis {
  std::string gpu;             ///< GpuSpec::name
  std::string kernel;          ///< canonical KernelSpec text
  std::string family;
  std::string config;          ///< tile config actually modelled, e.g. "128x256x64_s4_w8"
  bool config_pinned = false;  ///< true when the spec gave config=
  std::string config_reason;   ///< why this config (e.g. "cuBLAS-like heuristic: largest tile with >= 1 full wave")
  LaunchInfo launch;
  std::vector<PipeLoad> pipes;
  double flops = 0;            ///< useful FLOP (no padding)
  double dram_bytes = 0;       ///< predicted DRAM traffic, reads + writes
  double min_dram_bytes = 0;   ///< compulsory traffic (each input once, each output once)
  double l2_bytes = 0;
  double ceiling_us = 0;       ///< slowest pipeline's time (plus nothing else)
  std::string bottleneck;      ///< name of that pipeline
  double fixed_overhead_us = 0;///< launch/prologue/epilogue latency the pipelines do not capture
  double latency_us = 0;       ///< pure analytical latency: ceiling / nominal efficiency + fixed overhead
  int variant = 0;             ///< Demand::variant
  bool l2_warm = false;        ///< the spec's l2=warm (a learned-model feature; the demand model is the cold one)
  std::vector<std::string> notes;  ///< human remarks (e.g. "working set 120 MB > L2 50 MB: B re-read from DRAM")
};

/// Runs the analytical model. Throws InputError for unknown families/keys, missing or impossible sizes,
/// dtypes the family or GPU does not support, and unknown or impossible pinned configs. `with_text` = false leaves
/// the human text empty (kernel, config_reason, notes) for callers that print none of it; every value is the same.
Analysis analyze(const GpuSpec& gpu, const KernelSpec& spec, bool with_text = true);

/// analyze(gpu, spec).min_dram_bytes, without the config search where that cannot change it (row-wise,
/// elementwise and rotary kernels: their compulsory bytes are the shape's; analytical/compulsory_bytes.cpp);
/// otherwise (other families, a pinned config, no candidate) the full analysis. Throws as analyze() does.
double compulsory_dram_bytes(const GpuSpec& gpu, const KernelSpec& spec);

/// The family names of the public vocabulary, in documentation order.
const std::vector<std::string>& kernel_families();

}  // namespace loom
