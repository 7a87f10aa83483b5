// Memory fit: weights + KV cache + activation workspace per GPU, against the memory the serving stack may use.
#pragma once

#include <string>

#include "e2e/model_config.h"
#include "e2e/op_graph.h"
#include "e2e/profile.h"
#include "hw/gpu_spec.h"

namespace loom {

struct MemoryFit {
  double weights_bytes = 0;     ///< this GPU's weight shard
  double kv_cache_bytes = 0;    ///< K and V of every layer for all tokens of the workload (context + new)
  double activation_bytes = 0;  ///< largest live activations of one step (rough; see models/README.md)
  double total_bytes = 0;
  double capacity_bytes = 0;    ///< GpuSpec::dram_bytes
  double usable_bytes = 0;      ///< capacity x profile.memory_utilization
  bool fits = false;
  std::string note;             ///< e.g. "does not fit: needs 141.1 GB, 72.0 GB usable; try --tp 2"
};

/// Bytes of K and V that one token occupies on one GPU (all layers) under tensor parallelism `tp`.
double kv_bytes_per_token(const ModelConfig& model, int tp);

/// Per-GPU memory need of `work` on `gpu` under `profile`. Throws InputError("--tp", ...) when work.tp exceeds the
/// GPUs of one node (interconnect.gpus_per_node): every command that puts a model on GPUs (e2e, whatif, simulate)
/// asks this first.
MemoryFit memory_fit(const GpuSpec& gpu, const ModelConfig& model, const ServingProfile& profile, const Workload& work);

}  // namespace loom
