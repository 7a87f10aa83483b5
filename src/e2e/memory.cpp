// Per-GPU memory accounting: Megatron-style sharded weights, KV cache, and a rough activation workspace.
#include "e2e/memory.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "kernels/shape.h"

namespace loom {

double kv_bytes_per_token(const ModelConfig& m, int tp) {
  const Shards s = shard(m, tp);
  return 2.0 * static_cast<double>(m.layers) * s.kv_heads * m.head_dim * dtype_bytes(m.dtype);
}

MemoryFit memory_fit(const GpuSpec& gpu, const ModelConfig& m, const ServingProfile& p, const Workload& w) {
  // Tensor parallelism stays in one node (its all-reduces run over NVLink or PCIe; multi-node collectives are not
  // modelled). A degree beyond an edited node (`--set interconnect.gpus_per_node=4`) was refused by the first
  // all-reduce's shape check, naming the model file instead of --tp. Round 11.
  check_fits_node(gpu, w.tp, "--tp", "tensor-parallel degree ",
                  " (interconnect.gpus_per_node); multi-node tensor parallelism is not modelled");
  const Shards s = shard(m, w.tp);
  const double bytes = dtype_bytes(m.dtype);
  MemoryFit f;
  // Every weight matrix is split across tp GPUs except replicated KV heads (when kv_heads < tp) and norms.
  double params = m.param_count() / w.tp;
  if (m.kv_heads < w.tp)
    params +=
        static_cast<double>(m.layers) * 2.0 * m.hidden * m.head_dim * (1.0 - static_cast<double>(m.kv_heads) / w.tp);
  f.weights_bytes = params * bytes;
  // A static cache (HF StaticCache, --cache-len) is allocated at its full length for every request of the batch,
  // whatever it holds: sized from the context alone, a 1e8-token cache "fit" in 8.5 MB.
  const double kv_tokens = std::max(static_cast<double>(w.kv_tokens()),
                                    static_cast<double>(w.static_cache_len) * static_cast<double>(w.batch()));
  f.kv_cache_bytes = kv_bytes_per_token(m, w.tp) * kv_tokens;
  // Activations: one layer's widest live tensors for the step's tokens (QKV out, gate_up out, residual stream),
  // the logits in fp32, and for eager attention the full score matrix in the model dtype plus its fp32 softmax.
  int64_t tokens = w.tokens(), max_q = 0, max_kv = 0;
  for (size_t i = 0; i < w.new_tokens.size(); ++i) {
    max_q = std::max(max_q, w.new_tokens[i]);
    max_kv = std::max(max_kv, w.new_tokens[i] + w.context[i]);
  }
  if (p.batch_padding) tokens = max_q * w.batch();
  const double width = static_cast<double>((s.q_heads + 2 * s.kv_heads) * m.head_dim) +
                       2.0 * std::max(s.intermediate, s.moe_intermediate * std::max<int64_t>(1, m.experts_per_token)) +
                       2.0 * m.hidden;
  const double logit_rows = (p.lm_head == "last_token" || w.phase != Phase::prefill) ? w.batch() : tokens;
  f.activation_bytes = tokens * width * bytes + logit_rows * s.vocab * 4.0;
  if (p.attention == "eager")
    f.activation_bytes += static_cast<double>(w.batch()) * s.q_heads * max_q * max_kv * (bytes + 4.0);
  f.total_bytes = f.weights_bytes + f.kv_cache_bytes + f.activation_bytes;
  f.capacity_bytes = gpu.usable_dram_bytes();  // less the in-band ECC reserve where ECC is on
  f.usable_bytes = f.capacity_bytes * p.memory_utilization;
  f.fits = f.capacity_bytes > 0 && f.total_bytes <= f.usable_bytes;
  char buf[256];
  if (f.fits) {
    std::snprintf(buf, sizeof buf, "fits: %.1f GB of %.1f GB usable (%.0f%% of %.1f GB)", f.total_bytes / 1e9,
                  f.usable_bytes / 1e9, p.memory_utilization * 100, f.capacity_bytes / 1e9);
  } else {
    std::snprintf(buf, sizeof buf, "DOES NOT FIT: needs %.1f GB per GPU, %.1f GB usable (%.0f%% of %.1f GB)%s",
                  f.total_bytes / 1e9, f.usable_bytes / 1e9, p.memory_utilization * 100, f.capacity_bytes / 1e9,
                  w.tp < 8 ? "; try a larger --tp or a smaller batch/context" : "; try a smaller batch/context");
  }
  f.note = buf;
  return f;
}

}  // namespace loom
