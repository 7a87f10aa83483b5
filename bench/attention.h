// loom's attention kernels: flash-attention prefill (WMMA tensor cores, online softmax, causal, GQA) and
// split-KV decode. Layouts are vLLM's token-major ones: Q/O [B, S, H, D], K/V [B, S_kv, KVH, D], bf16.
#pragma once
#include "common.h"
#include <cuda_bf16.h>

namespace bench {

struct AttnArgs {
  const __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr;
  __nv_bfloat16* o = nullptr;
  int batch = 0, heads = 0, kv_heads = 0, seq_q = 0, seq_kv = 0, head_dim = 0;
  bool causal = false;  ///< query i attends keys <= i + (seq_kv - seq_q)
};

/// Prefill with config kAttnCfgs[cfg]; seq_q == seq_kv; head_dim 64 or 128. Throws CudaFailure on errors.
void attention_prefill(int cfg, const AttnArgs& a, cudaStream_t s);

/// Scratch for split-KV decode: partial outputs [B,H,splits,D] and per-split max/sum.
size_t decode_scratch_bytes(const AttnArgs& a);
/// Decode (seq_q == 1): partition kernel over 512-key splits + a reduce kernel (as vLLM's paged_attention_v2).
void attention_decode(const AttnArgs& a, void* scratch, cudaStream_t s);

/// Naive fp32 reference (one thread per query row), for --check.
void attention_reference(const AttnArgs& a, cudaStream_t s);

}  // namespace bench
