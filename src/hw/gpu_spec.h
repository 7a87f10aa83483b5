// GpuSpec: a plain description of one GPU, as read from gpus/*.yaml. Models read this struct, never the YAML.
// All rates are dense (no structured sparsity). Units live in the field names.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/dtype.h"

namespace loom {

/// The node topology of a GPU whose YAML does not give interconnect.topology, as loom inferred it before the key
/// existed: no NVLink is "pcie", a 2-GPU NVLink domain (interconnect.nvlink_gpus 2) "nvlink-bridge", any other
/// NVLink GPU "nvswitch" (an HGX/DGX board).
inline std::string infer_topology(double nvlink_bytes_per_s, int nvlink_gpus) {
  if (!(nvlink_bytes_per_s > 0)) return "pcie";
  return nvlink_gpus == 2 ? "nvlink-bridge" : "nvswitch";
}

/// Tensor memory per SM on tcgen05 GPUs (sm_100/103): 128 lanes x 512 columns of 32 bits (PTX ISA, "Tensor
/// Memory"). An fp32 accumulator of BM x BN rows x columns takes ceil(BM / 128) x BN columns.
inline constexpr int kTensorMemoryColumns = 512;

struct GpuSpec {
  // Identity.
  std::string name;          ///< catalogue key, e.g. "h100-sxm" (file stem, or the path given on the command line)
  std::string full_name;     ///< marketing name, e.g. "NVIDIA H100 SXM5 80GB"
  std::string architecture;  ///< "pascal" | "volta" | "turing" | "ampere" | "ada" | "hopper" | "blackwell"
  int compute_capability = 0;  ///< e.g. 90
  std::string source_file;     ///< YAML file it came from (for error messages and `loom gpus show`)

  // Compute.
  int sms = 0;
  double boost_clock_mhz = 0;      ///< max SM clock
  /// Measured under seconds of dense tensor-core load at the power cap (0: not measured): the steady SM clock, and
  /// how much longer a compute-bound kernel then takes than from a cool start (traces/checks/clock/).
  double tensor_load_clock_mhz = 0;
  double tensor_load_slowdown = 0;
  double tensor_load_onset_s = 0;  ///< how soon after a heavy load starts the clock leaves boost (0: not measured)
  double sustained_clock_mhz = 0;  ///< clock loom assumes under sustained load (the model's default clock)
  /// Dense tensor-core FLOP per clock per SM, by dtype; 0 where the chip has no tensor path for that dtype.
  /// (An FMA counts as 2 FLOP.) Index with static_cast<int>(Dtype).
  std::array<double, 8> tensor_flops_per_clk_per_sm{};
  double fp32_flops_per_clk_per_sm = 0;  ///< non-tensor FP32 FMA pipe, FMA = 2 FLOP
  double fp64_flops_per_clk_per_sm = 0;  ///< non-tensor FP64
  double sfu_ops_per_clk_per_sm = 0;     ///< transcendental (MUFU) ops
  double int_ops_per_clk_per_sm = 0;     ///< integer / ALU ops
  double smem_bytes_per_clk_per_sm = 0;  ///< shared-memory (LSU) bandwidth per SM

  // Per-SM limits.
  int64_t regs_per_sm = 0;  ///< 32-bit registers
  int max_regs_per_thread = 0;
  int64_t smem_per_sm_bytes = 0;     ///< usable shared memory per SM
  int64_t smem_per_block_bytes = 0;  ///< max shared memory one CTA may opt in to
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_ctas_per_sm = 0;
  int max_threads_per_block = 1024;

  // Memory hierarchy.
  int64_t l1_bytes_per_sm = 0;  ///< combined L1/shared capacity per SM
  int64_t l2_bytes = 0;
  double l2_bytes_per_s = 0;  ///< sustained L2 bandwidth, whole chip
  double l2_bytes_per_clk_per_sm = 0;  ///< most one SM can pull from L2 per clock (limits small grids / partitions)
  int64_t dram_bytes = 0;
  double dram_bytes_per_s = 0;
  std::string dram_type;  ///< e.g. "HBM3"; GDDR* memory keeps its ECC bits in band (see dram_ecc)
  std::string dram_ecc;   ///< "on" | "off" | "" (unknown: treated as off): the state the part ships in

  // System.
  double launch_overhead_us = 0;   ///< host launch cost per kernel (eager)
  /// GPU-side idle time between back-to-back kernels (CUDA-graph replay); 0 = not known (the serving profile's
  /// graph_gap_us, measured on an H200, applies).
  double graph_gap_us = 0;
  /// How fast the host that drives this GPU runs eager PyTorch, relative to the lent H200 node's host where the
  /// serving profiles' host costs were measured (scripts/torch/host_cost.py); 1 when the entry does not say.
  double host_cpu_speed = 1;
  double nvlink_bytes_per_s = 0;   ///< per-GPU, unidirectional; 0 = none
  double pcie_bytes_per_s = 0;     ///< per direction
  int gpus_per_node = 1;
  int nvlink_gpus = 0;             ///< GPUs one NVLink domain joins (2: a 2-way bridge); 0: all of the node's
  /// How the node's GPUs are joined: "nvswitch" (every GPU of an NVLink domain on NVLink switches, HGX/DGX),
  /// "nvlink-mesh" (direct NVLink between every pair, no switch), "nvlink-bridge" (NVLink bridges join groups of
  /// nvlink_gpus, PCIe between them) or "pcie" (no NVLink). Absent from the YAML: inferred (infer_topology).
  std::string topology;
  double tdp_w = 0;
  std::optional<double> price_per_hour_usd;

  /// Where each YAML key's value came from: dotted key -> "FILE:LINE  <source comment>", "--set" or "default".
  std::map<std::string, std::string> key_sources;

  /// The GPU as measured, when this one is it with hardware values changed (by `--set`, or by a GPU file that
  /// `extends:` a catalogue entry) in more than `sms`, `price` and `name`: learned predictions are anchored there
  /// (Predictor), the change priced by the analytical model. The anchor has this GPU's SM count (the corpus
  /// measures SM partitions). Null for catalogue entries, unchanged files and SM partitions alone.
  std::shared_ptr<const GpuSpec> anchor;

  // Derived helpers (computed, never stored).
  double clock_hz() const { return sustained_clock_mhz * 1e6; }
  double tensor_flops_per_clk(Dtype d) const { return tensor_flops_per_clk_per_sm[static_cast<int>(d)]; }
  /// Whole-chip dense tensor FLOP/s for dtype d at the sustained clock (0 = unsupported).
  double tensor_flops_per_s(Dtype d) const { return tensor_flops_per_clk(d) * sms * clock_hz(); }
  double fp32_flops_per_s() const { return fp32_flops_per_clk_per_sm * sms * clock_hz(); }
  /// True when ECC is on and the memory stores its check bits in band (GDDR*: no side-band ECC chips), which costs
  /// DRAM bandwidth and 1/16 of the capacity; HBM keeps ECC side-band at no bandwidth cost.
  bool inline_ecc() const { return std::string_view(dram_ecc) == "on" && dram_type.starts_with("GDDR"); }
  /// DRAM bandwidth the analytical model uses: the datasheet figure, less the in-band ECC cost where it applies.
  /// The cost is the 15% slowdown measured with ECC on vs off on an A40 and an RTX 4090 (Chaos support,
  /// "ECC State for Nvidia GPUs", 2024), taken as bandwidth: 1 / 1.15.
  double effective_dram_bytes_per_s() const { return inline_ecc() ? dram_bytes_per_s / 1.15 : dram_bytes_per_s; }
  /// True where NCCL can reduce in the switch (NVLS, NVLink SHARP): an NVSwitch node whose switch reduces, which
  /// needs third-generation NVSwitch (NVLink multicast): Hopper and Blackwell. An A100 HGX board has NVSwitch
  /// (second generation) without reduction (NCCL src/transport/nvls.cc: NVLS needs sm_90 or later).
  bool nvls_switch() const {
    return node_topology() == "nvswitch" && nvlink_bytes_per_s > 0 &&
           (architecture == "hopper" || architecture == "blackwell");
  }
  /// The GPUs one NVLink domain joins: interconnect.nvlink_gpus, or the node.
  int nvlink_group() const { return nvlink_gpus > 0 ? nvlink_gpus : gpus_per_node; }
  /// On an NVLink mesh (no switch) a GPU's links are split evenly over its peers (nvlink_gpus, or the node): the
  /// share a collective over `gpus` of them can use is (gpus-1)/(peers) of it (HGX 4-GPU boards: 3 peers).
  double mesh_nvlink_bytes_per_s(int gpus) const {
    const int peers = nvlink_group() - 1;
    return peers <= 0 ? nvlink_bytes_per_s : nvlink_bytes_per_s * std::min(gpus - 1, peers) / peers;
  }
  /// interconnect.topology, or the inferred one for a spec built without it (build_gpu_spec always fills it).
  std::string node_topology() const {
    return topology.empty() ? infer_topology(nvlink_bytes_per_s, nvlink_gpus) : topology;
  }
  /// Memory the software can allocate: in-band ECC reserves 1/16 (a 16 GB T4 shows 15 GB with ECC on).
  double usable_dram_bytes() const { return inline_ecc() ? double(dram_bytes) * 15.0 / 16.0 : double(dram_bytes); }
};

}  // namespace loom
