// Measured collective latency (all_reduce, all_gather, reduce_scatter, send_recv): alpha-beta fits per (op, GPU,
// GPU count, node topology) with a small-message (latency-bound) and a large-message (bandwidth-bound) regime,
// fitted from the committed NCCL profiles (traces/public/*/<gpu>/{all_reduce,send_recv}*.corpus.csv.gz, Vidur and
// PipeWeave; traces/collectives/loom/, loom's own) and stored in models/collectives.json. GPUs without a fit get
// a model from their YAML link bandwidth, scaled by the efficiency the fitted GPUs reach (flagged as extrapolated).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/gpu_spec.h"

namespace loom {

/// One measured all_reduce: `bytes` over `gpus` ranks in `latency_us`.
struct CollectivePoint {
  int64_t bytes = 0;
  int gpus = 0;
  double latency_us = 0;
};

/// The collective ops that have fits: all_reduce, all_gather, reduce_scatter, send_recv (the kernel family names).
const std::vector<std::string>& collective_ops();

/// The bytes each GPU moves over its link (NCCL's "bus bytes"): all_reduce 2(g-1)/g x bytes, all_gather and
/// reduce_scatter (g-1)/g x bytes (bytes = the whole gathered / scattered tensor), send_recv the message itself.
double collective_bus_bytes(const std::string& op, int64_t bytes, int gpus);

/// How a ring on `link` (CollectiveFit::link) moves its bytes: "p2p" (one GPU writes into the next one's memory:
/// NVLink, or PCIe with peer access) or "host" (staged through host memory over PCIe: "pcie"). Efficiency (busbw / the
/// bottleneck link's bandwidth) is pooled by it.
std::string collective_transport(const std::string& link);

/// t = alpha_us + bus_bytes / busbw (collective_bus_bytes; NCCL's "busbw").
struct AlphaBeta {
  double alpha_us = 0, busbw_bytes_per_s = 0;
  double latency_us(double bus_bytes) const { return alpha_us + bus_bytes / busbw_bytes_per_s * 1e6; }
};

struct CollectiveFit {
  std::string op = "all_reduce";  ///< the kernel family: all_reduce, all_gather, reduce_scatter, send_recv
  std::string impl = "nccl";      ///< "nccl", or "custom": the engines' one-shot/two-shot kernel (faster per size)
  /// "nvswitch", "nvswitch-nvls-off" (NCCL's NVLS off), "nvlink-4gpu", "pairwise-nvlink", "pcie", "pcie-nop2p" (P2P
  /// off)
  std::string gpu_key, topology;
  /// The link that bounds the ring: "nvlink", "pcie-p2p" (PCIe hops of a pairwise-NVLink node beyond 2 GPUs: peer
  /// to peer), "pcie" (through host memory: PCIe-only nodes, P2P off), "nvlink-bridge" (not in YAML)
  std::string link;
  std::string architecture;       ///< the GPU's (its YAML's), for calibrating GPUs without a fit
  double link_bytes_per_s = 0;    ///< that link's per-direction bandwidth in the GPU's YAML
  int gpus = 0;
  int64_t break_bytes = 0;  ///< messages below use `small`, the rest `large` (NCCL's LL/tree -> ring/Simple switch)
  AlphaBeta small, large;
  size_t points = 0;
  double mape_small = 0, mape_large = 0;  ///< in-sample % error below / at or above 1 MB
  double latency_us(int64_t bytes) const;
};

struct CollectiveModel {
  std::vector<CollectiveFit> fits;
  /// Reads models/collectives.json (or `path`). Throws InputError(path, ...) when malformed.
  static CollectiveModel load(const std::string& path);
  /// The same from the file's text; `path` names it in messages (the fuzz target's entry point).
  static CollectiveModel from_text(const std::string& body, const std::string& path);
  void save(const std::string& path) const;
};

/// Measured points per (gpu_key, topology), read from every all_reduce corpus below `traces_dir`: rows of `impl`
/// ("nccl": NCCL's all_reduce, the public profiles' and loom's; "custom": impl=custom rows).
std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>> load_collective_points(
    const std::string& traces_dir, const std::string& impl = "nccl", const std::string& op = "all_reduce");

/// Every collective corpus below `traces_dir` read once: (op, impl) -> points per (gpu_key, topology); impl
/// "custom" exists for all_reduce only.
std::map<std::pair<std::string, std::string>,
         std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>>>
load_collective_point_sets(const std::string& traces_dir);

/// Fits one (GPU, topology, gpus) set: points are binned (4 per octave, medians) and each regime is a relative
/// least-squares alpha-beta fit; the break is the bin edge that minimises the mean relative error.
CollectiveFit fit_collective(const std::vector<CollectivePoint>& points, int gpus,
                             const std::string& where = "collectives", const std::string& op = "all_reduce");

/// Fits every (GPU, topology, GPU count) in `points`; `link` of each fit comes from the GPU's YAML.
CollectiveModel fit_collectives(
    const std::map<std::pair<std::string, std::string>, std::vector<CollectivePoint>>& points,
    const std::map<std::string, GpuSpec>& gpus, const std::string& impl = "nccl", const std::string& op = "all_reduce");

struct CollectiveEstimate {
  double latency_us = 0;
  std::string basis;        ///< "fit h100-sxm nvswitch gpus=8", "yaml nvlink 450 GB/s x 0.81 (fitted efficiency)"
  std::string extrapolation;  ///< empty when a fit of this GPU and GPU count made it; else why not
  double band_pct = 0;        ///< the fit's in-sample MAPE in this message-size regime (0: calibrated, no band)
};

/// The all_reduce latency of `bytes` over `gpus` GPUs of `gpu`: its own fit at that GPU count; its own fit at the
/// nearest GPU count (flagged); else the YAML link bandwidth times the median efficiency of the fits of the same
/// transport (calibrated_fit; flagged). Own fits count only on the GPU's YAML link (NVLink if it has any, else
/// PCIe). Only fits of `impl` count. nullopt when the model has no fit of that impl at all.
std::optional<CollectiveEstimate> estimate_all_reduce(const CollectiveModel& m, const GpuSpec& gpu, int gpus,
                                                      int64_t bytes, const std::string& impl = "nccl");

/// The same for any collective op (estimate_all_reduce is op "all_reduce"): only fits of `op` and `impl` count.
std::optional<CollectiveEstimate> estimate_collective(const CollectiveModel& m, const GpuSpec& gpu,
                                                      const std::string& op, int gpus, int64_t bytes,
                                                      const std::string& impl = "nccl");

/// The model of a GPU of `architecture` without a fit, on `link` ("nvlink", "pcie-p2p", "pcie") of
/// `link_bytes_per_s`: medians over the fits of the same transport (p2p: NVLink or PCIe peer to peer; host: PCIe
/// through host memory). The large-message efficiency (busbw / link bandwidth) from the same architecture first
/// (then the same GPU count, for p2p; the same PCIe bandwidth, for host); the alphas, small-message efficiency and
/// break from the same architecture and GPU count, then the same GPU count (latency follows the hops). `topology` is
/// the target node's ("nvswitch": an NVLink GPU on an NVSwitch board): on Hopper and later NVSwitch nodes of more than
/// 2 GPUs NCCL's large messages take NVLS, so the large-message efficiency, alpha and break come from fits of the same
/// algorithm (NVLS or ring only) first.
CollectiveFit calibrated_fit(const std::vector<CollectiveFit>& fits, const std::string& architecture,
                             const std::string& link, double link_bytes_per_s, int gpus,
                             const std::string& topology = "nvswitch");

/// Default path: data_dir()/models/collectives.json.
std::string default_collectives_path();

}  // namespace loom
