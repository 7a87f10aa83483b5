// The attention launches of one layer under a FlashAttention-style profile: one varlen launch (vLLM), or one launch
// per prompt plus its output copy (profile prefill_attention: per_request, loom's cb_engine); decodes as one
// FlashAttention or paged launch. Internal to op_graph.cpp.
#pragma once

#include <string>
#include <vector>

#include "e2e/profile.h"
#include "kernels/kernel_spec.h"

namespace loom {

/// `count` requests with `q` new tokens attending to `kv` keys; decode: one token each over `kv` keys.
struct AttentionGroup {
  int64_t count = 0, q = 0, kv = 0;
  bool decode = false;
};

struct Launch {
  std::string name;
  std::vector<KernelSpec> parts;  ///< one launch's shapes (its time is their sum)
};

/// Per-GPU heads `hq`/`hkv`, `head_dim`, the model's `dtype` name.
std::vector<Launch> flash_attention_launches(const ServingProfile& p, const std::vector<AttentionGroup>& groups,
                                             int64_t hq, int64_t hkv, int64_t head_dim, const std::string& dtype);

}  // namespace loom
