// The op graph of one model step: the kernels a serving profile launches for a prefill or decode step of a
// batch, with tensor-parallel sharding, in launch order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "e2e/model_config.h"
#include "e2e/profile.h"
#include "kernels/kernel_spec.h"

namespace loom {

/// mixed: one ragged step of prefill chunks and decodes together (vLLM V1, chunked prefill); a request with one
/// new token and a non-empty context is a decode, the rest are prefill chunks.
enum class Phase { prefill, decode, mixed };

/// What one step computes, per request.
struct Workload {
  Phase phase = Phase::prefill;
  std::vector<int64_t> new_tokens;  ///< prefill: input length; decode: 1
  std::vector<int64_t> context;     ///< tokens already in the KV cache before the step (prefix / decode context)
  int tp = 1;                       ///< tensor-parallel degree (1-8)
  /// Capacity of a preallocated static KV cache (HF StaticCache max_cache_len; profile kv_cache: static):
  /// attention then runs over all of it under a mask. 0 = the longest context + new tokens.
  int64_t static_cache_len = 0;
  /// Keys the decoding requests' attention launch is priced at; 0 = their mean (a split-KV kernel's cost follows
  /// the total KV read). A kernel with one program per sequence and head, in one wave, runs as long as its longest
  /// sequence: the caller passes that length.
  int64_t decode_attention_kv = 0;

  int64_t batch() const { return static_cast<int64_t>(new_tokens.size()); }
  int64_t tokens() const;  ///< total new tokens (sum over requests)
  int64_t kv_tokens() const;  ///< KV-cache tokens after the step (sum of context + new)
};

/// Prefill of `batch` requests; `seq` holds one length for all or one per request; `prefix` likewise (cached
/// tokens, may be empty = 0). Throws InputError("--seq"/"--batch", ...) for counts that do not match or sizes < 1.
Workload prefill_workload(int64_t batch, const std::vector<int64_t>& seq, const std::vector<int64_t>& prefix, int tp);
/// One decode step of `batch` requests whose KV cache holds `context` tokens each (one value or one per request);
/// the new token attends to context + 1 keys.
Workload decode_workload(int64_t batch, const std::vector<int64_t>& context, int tp);

/// A ragged step: request i computes new_tokens[i] tokens over context[i] cached ones (both per request).
/// Throws InputError("--batch"/"--seq", ...) when the lists differ in length, are empty, or hold values < 1 / < 0.
Workload mixed_workload(const std::vector<int64_t>& new_tokens, const std::vector<int64_t>& context, int tp);

/// The shapes one launch covers (a varlen attention launch over requests of different lengths has one part per
/// distinct length; its GPU time is the sum of the parts' times). Shared by the same op of every identical layer.
struct OpShape {
  std::vector<KernelSpec> parts;
  std::string text;  ///< parts' canonical text joined by " + "
};

/// One kernel launch.
struct Op {
  std::string name;   ///< "qkv_proj", "attention", "all_reduce", ...
  int layer = -1;     ///< decoder layer, -1 before the first / after the last
  std::shared_ptr<const OpShape> shape;
  const std::vector<KernelSpec>& parts() const { return shape->parts; }
  const std::string& family() const { return shape->parts.front().family; }
};

/// The ordered kernel list of one step. Throws InputError("--tp", ...) when heads, KV heads, or intermediate
/// sizes do not divide by tp (KV heads fewer than tp are replicated when tp is a multiple of them).
std::vector<Op> build_op_graph(const ModelConfig& model, const ServingProfile& profile, const Workload& work);

/// Per-GPU shard sizes under tensor parallelism (Megatron-style column/row split, as vLLM does).
struct Shards {
  int64_t q_heads = 0, kv_heads = 0, intermediate = 0, moe_intermediate = 0, shared_intermediate = 0, vocab = 0;
};
/// Throws InputError("--tp", ...) as build_op_graph does.
Shards shard(const ModelConfig& model, int tp);

}  // namespace loom
