// Internal: what one family model hands to the common finisher (analysis.cpp): per-CTA and per-iteration pipeline
// demand, the grid, memory traffic and remarks. Not part of the public API.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "hw/gpu_spec.h"
#include "kernels/config_space.h"
#include "kernels/shape.h"

namespace loom {

/// Demand on the per-SM pipes (tensor and fma in FLOP, sfu and alu in ops, smem bytes) and L2 bytes requested.
/// fma counts every FP32 lane instruction as 2 FLOP (one FMA slot), so its rate is fp32_flops_per_clk_per_sm.
struct PipeWork {
  double tensor = 0, fma = 0, sfu = 0, alu = 0, smem = 0, l2 = 0;
  PipeWork operator+(const PipeWork& o) const {
    return {tensor + o.tensor, fma + o.fma, sfu + o.sfu, alu + o.alu, smem + o.smem, l2 + o.l2};
  }
  PipeWork operator*(double f) const { return {tensor * f, fma * f, sfu * f, alu * f, smem * f, l2 * f}; }
};

struct Demand {
  TileConfig config;
  std::string config_suffix_reason;    ///< extra words for config_reason (e.g. how splits were chosen)
  Dtype tensor_dtype = Dtype::bf16;    ///< which tensor rate the tensor pipe runs at
  int64_t ctas = 0;                    ///< grid size G
  int64_t loop_iters = 1;              ///< inner-loop length L of a full CTA
  PipeWork per_cta;                    ///< one CTA's demand outside the loop (prologue, epilogue)
  PipeWork per_iter;                   ///< one loop iteration's demand
  /// Non-uniform grids (causal attention): loop iterations of CTAs in launch order; the pattern repeats to cover
  /// all CTAs. Empty = every CTA runs loop_iters iterations.
  std::vector<int64_t> iters_pattern;
  double flops = 0;                    ///< useful FLOP
  double dram_bytes = 0;               ///< predicted DRAM reads + writes
  double min_dram_bytes = 0;           ///< compulsory DRAM traffic
  double extra_l2_bytes = 0;           ///< L2 traffic outside the CTAs' loops (split-K / split-KV reductions)
  double tile_waste = 0;
  double working_set_bytes = 0;        ///< bytes of all operands (for the learned model's L2-fit feature)
  double fixed_overhead_us = 0;
  double link_bytes = 0;               ///< collectives: bytes each GPU sends over its link
  double link_time_us = 0;             ///< collectives: link time at peak incl. per-step latency (ring), the model's
  /// collectives: the link's speed of light, the lower of the algorithms NCCL could run on the node (NVLS on an
  /// NVSwitch Hopper/Blackwell node, else the ring): the ceiling's link pipe, at most link_bytes / link_time_us.
  double link_min_bytes = 0;
  double link_min_time_us = 0;
  double sol_dram_bytes = 0;           ///< collectives: that algorithm's DRAM bytes, the ceiling's (0 = dram_bytes)
  /// Kernel variant within the family, a learned-model feature: elementwise 0 = vectorized map, 1 = offset-
  /// calculator map (strided / broadcast / expand), 2 = row reduction, 3 = unrolled map without vector loads (a
  /// widening cast); attention_decode 1 = explicit mask.
  int variant = 0;
  std::vector<std::string> notes;
};

/// Fraction of the L2 that operand reuse can count on: set conflicts, the other partition's copies on
/// two-partition chips (A100/H100 "far" L2) and write-back lines make the full capacity optimistic
/// (loom assumption, to be calibrated against measured DRAM bytes).
inline constexpr double kL2UsableFraction = 0.75;

/// Kernel launch-to-first-instruction plus prologue and teardown, as seen in a CUPTI kernel duration
/// (loom assumption: an empty kernel measures ~2 us on A100/H100; the learned model corrects it).
inline constexpr double kKernelStartupUs = 2.0;

/// "12.3 MiB", for notes.
std::string fmt_mib(double bytes);

// Family models (gemm_model.cpp, attention_model.cpp, rowwise_model.cpp, collective_model.cpp). `notes`: build the
// human notes; false while analyze() scores config candidates (it keeps one and rebuilds it with notes).
Demand gemm_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand moe_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand attention_prefill_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand attention_decode_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand rowwise_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand elementwise_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand rotary_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);
Demand all_reduce_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes);

/// Busiest SM of a grid with per-CTA iterations d.iters_pattern (repeated over d.ctas CTAs), greedy dispatch to
/// the earliest free slot: (CTAs, iterations) of that SM; sets total_iters. Exact up to 4096 CTAs, a bound above.
std::pair<double, double> busiest_sm_nonuniform(const Demand& d, int sms, int ctas_per_sm, double& total_iters);

}  // namespace loom
