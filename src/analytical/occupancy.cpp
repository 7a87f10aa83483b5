// Occupancy calculator (see occupancy.h for the rules and their sources).
#include "analytical/occupancy.h"

#include <algorithm>
#include <limits>

namespace loom {
namespace {

int64_t round_up(int64_t x, int64_t g) { return (x + g - 1) / g * g; }

}  // namespace

Occupancy occupancy(const GpuSpec& gpu, int threads, int regs_per_thread, int64_t smem_bytes, int tmem_cols) {
  Occupancy o;
  const int kBig = std::numeric_limits<int>::max();
  const int warps = std::max(1, (threads + 31) / 32);
  constexpr int kSubPartitions = 4;  // SM sub-partitions (warp schedulers) per SM, Volta through Blackwell
  // Registers.
  o.by_regs = kBig;
  if (regs_per_thread > 0 && gpu.regs_per_sm > 0) {
    int64_t regs_per_warp = round_up(round_up(regs_per_thread, 8) * 32, 256);
    int64_t warps_per_part = (gpu.regs_per_sm / kSubPartitions) / regs_per_warp;
    o.by_regs = static_cast<int>(warps_per_part * kSubPartitions / warps);
  }
  // Shared memory.
  const bool ampere_plus = gpu.compute_capability >= 80;
  const int64_t gran = ampere_plus ? 128 : 256;
  const int64_t reserved = ampere_plus ? 1024 : 0;
  int64_t per_cta = round_up(smem_bytes, gran) + reserved;
  o.by_smem = per_cta > 0 ? static_cast<int>(gpu.smem_per_sm_bytes / per_cta) : kBig;
  // Threads / warps.
  o.by_threads = kBig;
  if (gpu.max_threads_per_sm > 0) o.by_threads = gpu.max_threads_per_sm / (warps * 32);
  if (gpu.max_warps_per_sm > 0) o.by_threads = std::min(o.by_threads, gpu.max_warps_per_sm / warps);
  o.by_ctas = gpu.max_ctas_per_sm > 0 ? gpu.max_ctas_per_sm : kBig;
  o.by_tmem = kBig;
  if (tmem_cols > 0) {
    int alloc = 32;
    while (alloc < tmem_cols) alloc *= 2;
    o.by_tmem = kTensorMemoryColumns / alloc;
  }

  o.ctas_per_sm = std::min({o.by_regs, o.by_smem, o.by_threads, o.by_ctas, o.by_tmem});
  if (o.ctas_per_sm == kBig) o.ctas_per_sm = 1;
  o.limit = o.ctas_per_sm == o.by_regs ? "regs" : o.ctas_per_sm == o.by_smem ? "smem"
            : o.ctas_per_sm == o.by_threads ? "threads" : o.ctas_per_sm == o.by_ctas ? "ctas" : "tmem";
  if (gpu.max_warps_per_sm > 0)
    o.occupancy = std::min(1.0, double(o.ctas_per_sm) * warps / gpu.max_warps_per_sm);
  return o;
}

}  // namespace loom
