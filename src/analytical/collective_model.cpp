// NCCL collectives over the GPU's NVLink (or PCIe when it has none): link time, step latency, local memory traffic.
// Ring all_reduce: 2(g-1) steps moving 2(g-1)/g x bytes per GPU; ring all_gather / reduce_scatter: g-1 steps moving
// (g-1)/g x bytes (bytes = the whole gathered / scattered tensor); send_recv: the message over one link, one step.
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
  // Past a 2-way bridge's pair (interconnect.nvlink_gpus) the ring crosses PCIe between the bridged pairs.
  const bool nvlink = gpu.nvlink_bytes_per_s > 0 && !(gpu.nvlink_gpus > 0 && s.gpus > gpu.nvlink_gpus);
  const double bw = nvlink ? gpu.nvlink_bytes_per_s : gpu.pcie_bytes_per_s;
  const bool ar = s.family == Family::all_reduce, rs = s.family == Family::reduce_scatter,
             p2p = s.family == Family::send_recv;
  const double steps = p2p ? 1.0 : ar ? 2.0 * (g - 1) : g - 1;
  d.link_bytes = bytes * (p2p ? 1.0 : ar ? 2.0 * (g - 1) / g : (g - 1) / g);  // all_reduce = reduce-scatter + all-gather
  d.link_time_us = d.link_bytes / bw * 1e6 + steps * (nvlink ? kNvlinkStepUs : kPcieStepUs);
  d.ctas = std::min(kNcclChannels, gpu.sms);  // NCCL spreads send/recv over its channels too
  d.loop_iters = static_cast<int64_t>(steps);
  // Local memory: each reduce-scatter step reads the local chunk and the received chunk and writes the sum;
  // all-gather steps write the received chunk: ~ (2 + 1) * (g-1)/g + (g-1)/g buffer passes for all_reduce.
  // send_recv reads the message (sender) and writes it (receiver).
  // all_gather copies its shard in and writes the g-1 received ones: 1 + 1/g passes.
  const double chunk_passes = p2p ? 1.0 : ar ? 4.0 * (g - 1) / g : rs ? 3.0 * (g - 1) / g : 1 + 1 / g;
  d.dram_bytes = chunk_passes * bytes;
  d.min_dram_bytes = p2p ? bytes : ar ? 2.0 * bytes : bytes * (1 + 1 / g);  // read the input, write the result
  d.working_set_bytes = bytes;
  const double adds = ar || rs ? (g - 1) / g * bytes / dtype_bytes(Dtype::bf16) : 0;  // one add per element (bf16)
  d.per_cta.fma = (ar ? 2.0 : 1.0) * adds / d.ctas;
  d.per_cta.l2 = d.dram_bytes / d.ctas;
  d.flops = adds;
  d.fixed_overhead_us = kKernelStartupUs + kNcclSetupUs;
  if (notes)
    d.notes.push_back(p2p ? std::string("one message over ") + (nvlink ? "NVLink" : "PCIe")
                          : std::string("ring over ") + (nvlink ? "NVLink" : "PCIe") + ": " + std::to_string(int(steps)) +
                                (ar ? " steps, 2(g-1)/g of the buffer per GPU" : " steps, (g-1)/g of the buffer per GPU"));
  return d;
}

}  // namespace loom
