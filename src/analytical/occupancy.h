// Resident CTAs per SM from registers, shared memory, threads and the CTA limit (CUDA occupancy calculator rules).
#pragma once

#include <cstdint>
#include <string_view>

#include "hw/gpu_spec.h"

namespace loom {

struct Occupancy {
  int ctas_per_sm = 0;    ///< 0 = the CTA cannot be resident at all
  std::string_view limit;  ///< "regs" | "smem" | "threads" | "ctas" | "tmem" (first of these reaching the minimum)
  int by_regs = 0, by_smem = 0, by_threads = 0, by_ctas = 0, by_tmem = 0;
  double occupancy = 0;   ///< resident warps / max warps per SM
};

/// Occupancy of a CTA of `threads` threads using `regs_per_thread` registers and `smem_bytes` shared memory.
/// Registers: per-thread count rounded up to 8, per-warp allocation rounded up to 256, allocated per SM
/// sub-partition (4 per SM since Volta) as in cuda_occupancy.h. Shared memory: rounded up to 128 B (sm_80+;
/// 256 B before) plus 1 KiB reserved per CTA on sm_80+ (CUDA C Programming Guide, "reservedSharedMemPerBlock").
/// Tensor memory (tcgen05 tiles: TileConfig::tmem_cols): 512 columns a SM, allocated per CTA in powers of two of at
/// least 32 columns (PTX ISA, tcgen05.alloc).
Occupancy occupancy(const GpuSpec& gpu, int threads, int regs_per_thread, int64_t smem_bytes, int tmem_cols = 0);

}  // namespace loom
