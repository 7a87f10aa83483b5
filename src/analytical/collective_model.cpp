// Ring all-reduce over the GPU's NVLink (or PCIe when it has none): link time, step latency, local memory traffic.
#include <algorithm>

#include "analytical/demand.h"

namespace loom {
namespace {

/// Per ring step latency (loom assumption after NCCL's tuning model, src/graph/tuning.cc: ~1 us per hop for
/// the LL/LL128 protocols over NVLink, more over PCIe).
constexpr double kNvlinkStepUs = 1.0;
constexpr double kPcieStepUs = 2.0;
/// NCCL launch plus channel setup beyond a plain kernel start (loom assumption: small all-reduces measure
/// ~8-12 us on 8x H100 with nccl-tests).
constexpr double kNcclSetupUs = 4.0;
/// CTAs (NCCL channels) a ring all-reduce runs on NVLink machines.
constexpr int kNcclChannels = 16;

}  // namespace

Demand all_reduce_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes) {
  Demand d;
  d.config = c;
  d.config.threads = 512;  // NCCL_MAX_NTHREADS / LL128 threads per channel
  d.config.regs_per_thread = 96;
  if (s.gpus <= 1) {
    d.ctas = 0;
    d.loop_iters = 0;
    if (notes) d.notes.push_back("gpus=1: nothing to reduce, no kernel is launched");
    return d;
  }
  const double g = double(s.gpus), bytes = double(s.bytes);
  const bool nvlink = gpu.nvlink_bytes_per_s > 0;
  const double bw = nvlink ? gpu.nvlink_bytes_per_s : gpu.pcie_bytes_per_s;
  const double steps = 2.0 * (g - 1);
  d.link_bytes = 2.0 * (g - 1) / g * bytes;  // reduce-scatter + all-gather, each (g-1)/g of the buffer
  d.link_time_us = d.link_bytes / bw * 1e6 + steps * (nvlink ? kNvlinkStepUs : kPcieStepUs);
  d.ctas = std::min(kNcclChannels, gpu.sms);
  d.loop_iters = static_cast<int64_t>(steps);
  // Local memory: each reduce-scatter step reads the local chunk and the received chunk and writes the sum;
  // all-gather steps write the received chunk: ~ (2 + 1) * (g-1)/g + (g-1)/g buffer passes.
  const double chunk_passes = 4.0 * (g - 1) / g;
  d.dram_bytes = chunk_passes * bytes;
  d.min_dram_bytes = 2.0 * bytes;  // read the input, write the result
  d.working_set_bytes = bytes;
  d.per_cta.fma = 2.0 * (g - 1) / g * bytes / dtype_bytes(Dtype::bf16) / d.ctas;  // one add per element (bf16 assumed)
  d.per_cta.l2 = d.dram_bytes / d.ctas;
  d.flops = (g - 1) / g * bytes / dtype_bytes(Dtype::bf16);
  d.fixed_overhead_us = kKernelStartupUs + kNcclSetupUs;
  if (notes) d.notes.push_back(std::string("ring over ") + (nvlink ? "NVLink" : "PCIe") + ": " + std::to_string(int(steps)) +
                    " steps, 2(g-1)/g of the buffer per GPU");
  return d;
}

}  // namespace loom
