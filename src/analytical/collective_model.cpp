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
/// NVLS (NVLink SHARP) all_reduce: the GPU pushes its buffer to the switch, which reduces it and multicasts the sum
/// back: two hops whatever the GPU count.
constexpr double kNvlsSteps = 2.0;

/// Whether NCCL can run NVLS on `gpus` GPUs of this node: a switch that reduces (interconnect.topology nvswitch on
/// Hopper or Blackwell: third-generation NVSwitch, GpuSpec::nvls_switch), every GPU of the collective in one NVLink
/// domain (nvlink_gpus 0 = the whole node) and more than 2 GPUs (NCCL src/transport/nvls.cc turns NVLS off at <= 2).
/// A GPU without the key is inferred an NVSwitch node when it has NVLink and no 2-way bridge (h100-sxm, h200, h800,
/// h20 and b200 say so in their YAML), as the collective fits assume (learned/collectives.cpp nvls_capable).
bool nvls_node(const GpuSpec& gpu, int gpus) {
  const bool one_domain = gpu.nvlink_gpus == 0 || gpus <= gpu.nvlink_gpus;
  return gpu.nvls_switch() && one_domain && gpus > 2;
}

/// The NVLink bandwidth a collective of `gpus` GPUs can use per GPU. On an NVLink mesh (no switch) a GPU's links are
/// split evenly over its peers of the mesh (nvlink_gpus, or the node): a ring over g of its n GPUs reaches g-1 of
/// the n-1 peers (HGX A100/H100 4-GPU boards: 4 / 6 links to each of 3 peers). A switch gives every GPU all of it.
double nvlink_bw(const GpuSpec& gpu, int gpus) {
  return gpu.node_topology() == "nvlink-mesh" ? gpu.mesh_nvlink_bytes_per_s(gpus) : gpu.nvlink_bytes_per_s;
}

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
  if (s.engine_nccl && notes)
    d.notes.push_back("impl=custom: vLLM and SGLang run their custom all-reduce on 2, 4, 6, 8 or 16 GPUs and above 2 "
                      "only when every pair is NVLink-connected; on this node (" + gpu.node_topology() + ", " +
                      std::to_string(s.gpus) + " GPUs) they fall back to NCCL, predicted here");
  const double g = double(s.gpus), bytes = double(s.bytes);
  // Past a 2-way bridge's pair (interconnect.nvlink_gpus) the ring crosses PCIe between the bridged pairs.
  const bool nvlink = gpu.nvlink_bytes_per_s > 0 && !(gpu.nvlink_gpus > 0 && s.gpus > gpu.nvlink_gpus);
  const double bw = nvlink ? nvlink_bw(gpu, int(s.gpus)) : gpu.pcie_bytes_per_s;
  const bool ar = s.family == Family::all_reduce, rs = s.family == Family::reduce_scatter,
             p2p = s.family == Family::send_recv;
  const double steps = p2p ? 1.0 : ar ? 2.0 * (g - 1) : g - 1;
  d.link_bytes = bytes * (p2p  ? 1.0
                          : ar ? 2.0 * (g - 1) / g
                               : (g - 1) / g);  // all_reduce = reduce-scatter + all-gather
  d.link_time_us = d.link_bytes / bw * 1e6 + steps * (nvlink ? kNvlinkStepUs : kPcieStepUs);
  // Speed of light: the ring's, or NVLS's where the switch reduces. An NVLS all_reduce sends the buffer once and
  // receives the sum once (1x the bytes each way, ring: 2(g-1)/g). A reduce_scatter must still send the (g-1)/g of
  // its buffer the others reduce, an all_gather receive the (g-1)/g it lacks, whatever the algorithm: the ring's.
  d.link_min_bytes = d.link_bytes, d.link_min_time_us = d.link_time_us;
  if (ar && nvlink && nvls_node(gpu, int(s.gpus))) {
    const double nvls_us = bytes / bw * 1e6 + kNvlsSteps * kNvlinkStepUs;
    if (nvls_us < d.link_min_time_us) d.link_min_bytes = bytes, d.link_min_time_us = nvls_us;
  }
  d.ctas = std::min(kNcclChannels, gpu.sms);  // NCCL spreads send/recv over its channels too
  d.loop_iters = static_cast<int64_t>(steps);
  // Local memory: each reduce-scatter step reads the local chunk and the received chunk and writes the sum;
  // all-gather steps write the received chunk: ~ (2 + 1) * (g-1)/g + (g-1)/g buffer passes for all_reduce.
  // send_recv reads the message (sender) and writes it (receiver).
  // all_gather copies its shard in and writes the g-1 received ones: 1 + 1/g passes.
  const double chunk_passes = p2p ? 1.0 : ar ? 4.0 * (g - 1) / g : rs ? 3.0 * (g - 1) / g : 1 + 1 / g;
  d.dram_bytes = chunk_passes * bytes;
  d.min_dram_bytes = p2p ? bytes : ar ? 2.0 * bytes : bytes * (1 + 1 / g);  // read the input, write the result
  // NVLS reduces in the switch: the GPU reads its buffer once (to the switch) and writes the sum once.
  if (d.link_min_time_us < d.link_time_us) d.sol_dram_bytes = d.min_dram_bytes;
  d.working_set_bytes = bytes;
  const double adds = ar || rs ? (g - 1) / g * bytes / dtype_bytes(Dtype::bf16) : 0;  // one add per element (bf16)
  d.per_cta.fma = (ar ? 2.0 : 1.0) * adds / d.ctas;
  d.per_cta.l2 = d.dram_bytes / d.ctas;
  d.flops = adds;
  d.fixed_overhead_us = kKernelStartupUs + kNcclSetupUs;
  if (notes)
    d.notes.push_back(
        p2p ? std::string("one message over ") + (nvlink ? "NVLink" : "PCIe")
            : std::string("ring over ") + (nvlink ? "NVLink" : "PCIe") + ": " + std::to_string(int(steps)) +
                  (ar ? " steps, 2(g-1)/g of the buffer per GPU" : " steps, (g-1)/g of the buffer per GPU"));
  if (notes && d.link_min_time_us < d.link_time_us)
    d.notes.push_back("ceiling: NVLS (the NVSwitch reduces), 1x the buffer per GPU each way in 2 hops, the buffer "
                      "read once and the sum written once");
  return d;
}

}  // namespace loom
