// ServingProfile: which kernels a serving stack launches for one decoder step, read from models/profiles/*.yaml.
// Data, not code: a new stack (or a variant) is a new YAML file. Schema and meaning: models/README.md.
#pragma once

#include <string>
#include <vector>

namespace loom {

/// How the stack schedules requests across iterations (`scheduler:` in the profile YAML; `loom simulate`).
/// Defaults are vLLM V1's; models/README.md ("Scheduler") gives each value's source.
struct SchedulerParams {
  std::string policy = "mixed";         ///< "mixed": running decodes first, then prefill chunks in the same step
                                        ///< (vLLM V1) | "prefill_first": a step is all prefill when any waits (SGLang)
  int64_t max_num_seqs = 256;           ///< running requests at most
  int64_t max_num_batched_tokens = 8192;  ///< new tokens per step at most (the chunked-prefill budget)
  bool chunked_prefill = true;          ///< long prompts split across steps; false: a prompt is admitted whole
  int64_t block_size = 16;              ///< KV-cache page, tokens
  bool prefix_caching = true;           ///< requests' cached_prefix_tokens skip prefill
  std::vector<int64_t> cuda_graph_sizes;  ///< decode batch sizes captured; a decode step pads up to the next one
                                          ///< and runs eagerly above the largest (empty = vLLM's 1,2,4,8..512)
  double step_overhead_us = 0;          ///< CPU time per iteration not hidden behind the GPU (scheduling, sampling)
  /// Extra host time of an eager step whose token count the engine has not run before (library heuristics and
  /// caches warming for new GEMM shapes); 0 = none.
  double new_shape_overhead_us = 0;
  /// Below this many tokens a new shape costs new_shape_small_overhead_us instead (0 = one cost for all).
  int64_t new_shape_small_tokens = 0;
  double new_shape_small_overhead_us = 0;
  /// The host time a new eager shape of `tokens` tokens costs.
  double new_shape_cost_us(int64_t tokens) const {
    return tokens < new_shape_small_tokens ? new_shape_small_overhead_us : new_shape_overhead_us;
  }
  int64_t graph_max() const { return cuda_graph_sizes.empty() ? 0 : cuda_graph_sizes.back(); }
};

struct ServingProfile {
  std::string name;         ///< file stem, e.g. "vllm"
  std::string source_file;
  std::string description;
  std::string qkv = "fused";           ///< "fused": one QKV GEMM | "separate": q, k, v GEMMs
  std::string gate_up = "fused";       ///< "fused": one gate_up GEMM | "separate": gate and up GEMMs
  bool batch_padding = false;          ///< true: requests padded to the longest (HF); false: varlen (vLLM)
  std::string rotary = "kernel";       ///< "kernel": one rotary kernel | "elementwise": rotary_ops per q and k
  std::vector<std::string> rotary_ops; ///< elementwise ops ("op" or "op:dtype", kElementwiseOps) per q and per k
                                       ///< when rotary=elementwise; dtype defaults to the model's
  std::string attention = "flash";     ///< "flash": fused attention kernels | "eager": bmm, softmax, bmm
  /// "none": cache write not charged | "cat": HF DynamicCache | "static": HF StaticCache | "paged": K and V of the
  /// new tokens scattered into pages (two launches)
  std::string kv_cache = "none";
  std::string prefill_attention = "varlen";  ///< "varlen": one launch over every prompt | "per_request": one
                                            ///< launch per prompt plus a copy of its output (cb_engine)
  std::string decode_attention = "flash";  ///< "flash": FlashAttention decode | "paged": a paged-KV decode kernel
                                           ///< (impl=paged, block = scheduler.block_size)
  std::string norm = "fused_residual"; ///< "fused_residual" | "kernel": rms_norm + separate add | "elementwise"
  std::vector<std::string> norm_ops;   ///< full-tensor elementwise ops ("op" or "op:dtype") when norm=elementwise
  int norm_row_ops = 0;                ///< (rows x 1) fp32 elementwise ops (+eps, rsqrt) when norm=elementwise
  int step_small_ops = 0;              ///< tiny kernels once per step (position ids, rotary cos/sin tables)
  /// kv_cache=static: how the decode attention meets grouped-query heads. "repeat": transformers'
  /// sdpa_attention_forward expands K and V to every query head (repeat_kv copies, attention without GQA);
  /// "native": SDPA's enable_gqa (no copies, attention over the kv heads).
  std::string static_cache_gqa = "repeat";
  /// Host time an eager collective costs beyond its launch (c10d bookkeeping and the wait for the slowest rank's
  /// host, which sets an eager TP step's pace), on the reference host; 0 = a collective is a plain launch.
  double collective_host_us = 0;
  /// kv_cache=static: tiny kernels once per step (HF StaticCache: cache position, mask)
  int static_cache_step_ops = 5;
  int static_cache_layer_ops = 6;  ///< kv_cache=static: tiny kernels per layer (HF StaticCache bookkeeping, mask)
  std::string activation = "fused";    ///< "fused": silu_mul | "separate": silu then mul
  std::string moe = "fused";           ///< "fused": moe w13, silu_mul, moe w2 | "per_expert": GEMMs per expert
  std::string lm_head = "last_token";  ///< "last_token": logits of the last position | "full_sequence"
  std::string sampler = "softmax";     ///< "softmax": a softmax over the logits (sampling) | "argmax" | "none"
  std::string decode_mode = "graph";   ///< default execution mode for decode: eager | graph | megakernel
  std::string prefill_mode = "eager";  ///< default execution mode for prefill
  double graph_gap_us = 1.2;           ///< GPU-side idle time between back-to-back kernels (GPU-NOTES.md: H200)
  double host_overhead_us = 0;         ///< framework CPU time per kernel on top of the GPU's launch overhead
  /// Host time an eager decode step pays before its first attention launch because the attention library builds a
  /// plan for every KV length it has not seen (cuDNN SDPA in PyTorch 2.11; a decode step always has a new one).
  double new_kv_length_host_us = 0;
  /// Share of that plan build that does not follow the host's speed: on a host of relative speed s it takes
  /// new_kv_length_host_us x (share + (1 - share) x host_time_scale) (the launches' host time follows the speed
  /// whole; measured by scripts/torch/e2e/host_slope.py across the lent host's two modes).
  double new_kv_length_host_fixed_share = 0;
  /// Host time a step spends before its first launch preparing its inputs on the GPU (token ids, positions, KV
  /// slots, block tables copied from the host; for a CUDA-graph step also copied into the graph's static buffers):
  /// the previous step ended with a synchronising sample, so the GPU idles meanwhile. Eager and graph steps.
  double eager_input_host_us = 0;
  double graph_input_host_us = 0;
  /// `host.cpu_speed` of the host the host costs above (and scheduler.new_shape_*) were measured on: on a GPU whose
  /// host has speed s they take host_cpu_speed / s times as long (host_time_scale).
  double host_cpu_speed = 1;
  double memory_utilization = 0.9;     ///< fraction of GPU memory the stack may use (vLLM gpu_memory_utilization)
  std::string megakernel_schedule = "auto";  ///< "static" | "dynamic" | "auto" (dynamic for MoE models)
  /// true: rotary, silu_mul and the residual RMSNorm are the engines' own fused kernels (impl=fused, learned from
  /// traces/serving), not PyTorch-eager measurements of the same family.
  bool fused_kernels = false;
  /// All-reduces of at most this many bytes run the engine's custom one-shot/two-shot kernel (impl=custom: vLLM
  /// custom_all_reduce, SGLang's), larger ones NCCL (the measured fits); 0 = NCCL always.
  int64_t custom_all_reduce_max_bytes = 0;
  SchedulerParams scheduler;
};

/// Parses profile YAML text; `source` names the file. Throws InputError("FILE:LINE", ...) for unknown keys
/// (listing the valid ones), values outside a field's choices, and malformed YAML.
/// Factor on a profile's measured host costs on a host of `gpu_host_cpu_speed` (GpuSpec::host_cpu_speed).
inline double host_time_scale(const ServingProfile& p, double gpu_host_cpu_speed) {
  return p.host_cpu_speed / gpu_host_cpu_speed;
}

ServingProfile parse_profile(const std::string& yaml_text, const std::string& source);

/// A profile name (models/profiles/<name>.yaml under data_dir()) or a path to a YAML file.
/// Throws InputError("--profile", ...) for an unknown name, listing the known ones.
ServingProfile load_profile(const std::string& name_or_path);

/// Names of the profiles in models/profiles/, sorted.
std::vector<std::string> profile_names();

}  // namespace loom
