// FlashAttention-style attention launches for the op graph (see attention_launches.h).
#include "e2e/attention_launches.h"

namespace loom {

namespace {

KernelSpec spec(const std::string& family, std::initializer_list<std::pair<const char*, int64_t>> params,
                const std::string& dtype) {
  KernelSpec k;
  k.family = family;
  k.where = "e2e";
  for (const auto& [key, v] : params) k.params[key] = std::to_string(v);
  k.params["dtype"] = dtype;
  return k;
}

KernelSpec prefill(const AttentionGroup& g, int64_t count, int64_t hq, int64_t hkv, int64_t hd, const std::string& dt) {
  if (g.kv == g.q)
    return spec("attention_prefill",
                {{"batch", count}, {"heads", hq}, {"kv_heads", hkv}, {"seq", g.q}, {"head_dim", hd}, {"causal", 1}},
                dt);
  return spec("attention_prefill", {{"batch", count}, {"heads", hq}, {"kv_heads", hkv}, {"seq", g.q}, {"seq_kv", g.kv},
                                    {"head_dim", hd}, {"causal", 1}}, dt);
}

}  // namespace

std::vector<Launch> flash_attention_launches(const ServingProfile& p, const std::vector<AttentionGroup>& groups,
                                             int64_t hq, int64_t hkv, int64_t hd, const std::string& dt) {
  std::vector<Launch> out;
  std::vector<KernelSpec> varlen;  // one launch over every group (vLLM's varlen FlashAttention)
  const bool per_request = p.prefill_attention == "per_request";
  for (const auto& g : groups) {
    if (g.decode) {
      KernelSpec k = spec("attention_decode", {{"batch", g.count}, {"heads", hq}, {"kv_heads", hkv}, {"seq_kv", g.kv},
                                               {"head_dim", hd}}, dt);
      if (p.decode_attention == "paged") {
        k.params["impl"] = "paged";
        k.params["block"] = std::to_string(p.scheduler.block_size);
      }
      if (!per_request) {
        varlen.push_back(std::move(k));
        continue;
      }
      if (p.decode_attention == "paged") {  // cb_engine's paged kernel reads q as contiguous [batch, heads, dim]
        KernelSpec c = spec("elementwise", {{"rows", g.count * hq}, {"cols", hd}}, dt);
        c.params["op"] = "copy_strided";
        out.push_back({"attention.q_copy", {c}});
      }
      out.push_back({"attention", {std::move(k)}});
    } else if (per_request) {  // SDPA per prompt, then its [heads, tokens, dim] output copied into the batch rows
      for (int64_t i = 0; i < g.count; ++i) {
        out.push_back({"attention", {prefill(g, 1, hq, hkv, hd, dt)}});
        KernelSpec c = spec("elementwise", {{"rows", g.q * hq}, {"cols", hd}}, dt);
        c.params["op"] = "copy_strided";
        out.push_back({"attention.out_copy", {c}});
      }
    } else {
      varlen.push_back(prefill(g, g.count, hq, hkv, hd, dt));
    }
  }
  if (!varlen.empty()) out.insert(out.begin(), Launch{"attention", std::move(varlen)});
  return out;
}

}  // namespace loom
