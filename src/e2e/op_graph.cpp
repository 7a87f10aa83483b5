// Builds the per-step kernel list from a model config, a serving profile and a workload.
// Shapes follow vLLM's Llama/Qwen/Mixtral modules (QKVParallelLinear, RowParallelLinear, fused_moe) and
// HF transformers' modeling_llama / modeling_mixtral eager code for the unfused profile.
#include "e2e/op_graph.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "e2e/attention_launches.h"

namespace loom {

namespace {

// HF StaticCache + sdpa launches, besides the cache copies and attention, small kernels per step (cache_position
// arithmetic, the causal mask: the profile's static_cache_step_ops, 5) and per layer (arange, two long adds, two
// fills and a `where` building the layer's mask: static_cache_layer_ops, 6), counted in
// traces/e2e/*/graph_decode.lct.gz (transformers 5.17).

/// Shape of one request group: `count` requests with `q` new tokens attending to `kv` keys. A decode group holds
/// every decoding request of the step with `kv` their mean key count: engines run ragged decode attention as one
/// paged launch whose cost follows the total KV read, not one launch per distinct length.
struct Group {
  int64_t count, q, kv;
  bool decode = false;
};

class Builder {
 public:
  Builder(const ModelConfig& m, const ServingProfile& p, const Workload& w)
      : m_(m), p_(p), w_(w), s_(shard(m, w.tp)), dtype_(std::string(dtype_name(m.dtype))) {
    if (w.batch() < 1) throw InputError("--batch", "batch must be >= 1");
    std::map<std::pair<int64_t, int64_t>, int64_t> groups;
    int64_t max_q = 0, max_kv = 0, decodes = 0, decode_kv = 0;
    for (size_t i = 0; i < w.new_tokens.size(); ++i) {
      max_q = std::max(max_q, w.new_tokens[i]);
      max_kv = std::max(max_kv, w.new_tokens[i] + w.context[i]);
      const bool decode =
          w.phase == Phase::decode || (w.phase == Phase::mixed && w.new_tokens[i] == 1 && w.context[i] > 0);
      if (decode && !p.batch_padding) {
        decodes += 1;
        decode_kv += w.new_tokens[i] + w.context[i];
      } else {
        groups[{w.new_tokens[i], w.new_tokens[i] + w.context[i]}]++;
      }
    }
    if (p.batch_padding) {  // every request padded to the longest
      groups.clear();
      groups[{max_q, max_kv}] = w.batch();
    }
    max_kv_ = max_kv;
    if (decodes > 0) {
      groups_.push_back(
          {decodes, 1, w.decode_attention_kv > 0 ? w.decode_attention_kv : (decode_kv + decodes / 2) / decodes, true});
      tokens_ += decodes;
    }
    for (const auto& [qk, n] : groups) {
      groups_.push_back({n, qk.first, qk.second, w.phase == Phase::decode});
      tokens_ += n * qk.first;
    }
  }

  std::vector<Op> build() {
    const int64_t H = m_.hidden;
    add("embed", -1, eltwise("copy", tokens_, H));  // embedding gather: one read, one write per element
    // Per-step bookkeeping kernels (HF: position ids, rotary inv_freq x positions, cos/sin tables; StaticCache adds
    // cache-position and mask kernels): each touches a few hundred bytes, so each costs a launch.
    const int small = p_.step_small_ops + (p_.kv_cache == "static" ? p_.static_cache_step_ops : 0);
    for (int i = 0; i < small; ++i) add("step_small_op", -1, eltwise("copy", 1, 128, "fp32"));
    all_reduce("embed_all_reduce", -1, tokens_ * H);
    // Layers of one kind (first or not, MoE or dense) launch the same shapes: build each kind once and stamp it.
    std::map<std::pair<bool, bool>, std::vector<Op>> kinds;
    for (int64_t l = 0; l < m_.layers; ++l) {
      const std::pair<bool, bool> kind{l == 0, m_.is_moe_layer(l)};
      auto it = kinds.find(kind);
      if (it == kinds.end()) {
        const size_t first = ops_.size();
        layer(static_cast<int>(l));
        kinds.emplace(kind, std::vector<Op>(ops_.begin() + static_cast<std::ptrdiff_t>(first), ops_.end()));
        continue;
      }
      if (ops_.capacity() < ops_.size() + it->second.size())  // room for the remaining layers of this kind's size
        ops_.reserve(ops_.size() + static_cast<size_t>(m_.layers - l) * it->second.size() + 16);
      for (const Op& op : it->second) ops_.push_back({op.name, static_cast<int>(l), op.shape});
    }
    norm("final_norm", -1, tokens_, H, /*residual=*/true);
    const int64_t logit_rows = (p_.lm_head == "last_token" || w_.phase != Phase::prefill) ? w_.batch() : tokens_;
    add("lm_head", -1, gemm(logit_rows, s_.vocab, H));
    // The vocab-sharded logits are gathered (vLLM's tensor_model_parallel_gather; tp_e2e.py's all_gather).
    all_gather("logits_gather", -1, logit_rows * m_.vocab);
    if (p_.sampler == "softmax")
      add("sampler_softmax", -1, kspec("softmax", {{"rows", logit_rows}, {"cols", m_.vocab}}));
    if (p_.sampler == "argmax") add("sampler_argmax", -1, eltwise("argmax", logit_rows, m_.vocab));
    return std::move(ops_);
  }

 private:
  const ModelConfig& m_;
  const ServingProfile& p_;
  const Workload& w_;
  Shards s_;
  std::string dtype_;
  std::vector<Group> groups_;
  int64_t tokens_ = 0;  // rows of every token-parallel tensor (padded when the profile pads)
  int64_t max_kv_ = 0;  // longest context + new tokens

  int64_t cache_len() const { return std::max(w_.static_cache_len, max_kv_); }
  std::vector<Op> ops_;

  /// Where a kernel the model's own sizes make impossible (odd head_dim, an unsupported dtype) is reported: the
  /// model's config, not a flag.
  const std::string where_ =
      m_.source_file.empty() ? "--model " + m_.name : m_.source_file + " (model " + m_.name + ")";
  const std::string& where() const { return where_; }

  KernelSpec kspec(const std::string& family, std::initializer_list<std::pair<const char*, int64_t>> params,
                   const std::string& dtype = "") {
    KernelSpec k;
    k.family = family;
    k.where = where();
    for (const auto& [key, v] : params) k.params[key] = std::to_string(v);
    if (family != "all_reduce" && family != "all_gather") k.params["dtype"] = dtype.empty() ? dtype_ : dtype;
    return k;
  }
  KernelSpec gemm(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
    if (batch > 1) return kspec("gemm", {{"m", m}, {"n", n}, {"k", k}, {"batch", batch}});
    return kspec("gemm", {{"m", m}, {"n", n}, {"k", k}});
  }
  KernelSpec eltwise(const std::string& op, int64_t rows, int64_t cols, const std::string& dtype = "") {
    KernelSpec k = kspec("elementwise", {{"rows", rows}, {"cols", cols}}, dtype);
    k.params["op"] = op;
    if (op == "silu_mul" && p_.fused_kernels) k.params["impl"] = "fused";  // vLLM silu_and_mul
    return k;
  }
  /// A profile list entry "op" or "op:dtype" over (rows x cols); the model's dtype when none is given.
  KernelSpec profile_op(const std::string& entry, int64_t rows, int64_t cols) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) return eltwise(entry, rows, cols);
    return eltwise(entry.substr(0, colon), rows, cols, entry.substr(colon + 1));
  }
  void add(const std::string& name, int layer, KernelSpec k) { add_parts(name, layer, {std::move(k)}); }
  void add_parts(const std::string& name, int layer, std::vector<KernelSpec> parts) {
    auto shape = std::make_shared<OpShape>();
    for (const auto& p : parts) shape->text += (shape->text.empty() ? "" : " + ") + p.to_string();
    shape->parts = std::move(parts);
    ops_.push_back({name, layer, std::move(shape)});
  }
  void all_reduce(const std::string& name, int layer, int64_t elements) {
    if (w_.tp == 1) return;
    KernelSpec k = kspec("all_reduce", {{"gpus", w_.tp}});
    const auto bytes = static_cast<int64_t>(elements * dtype_bytes(m_.dtype));
    k.params["bytes"] = std::to_string(bytes);
    if (p_.custom_all_reduce_max_bytes > 0 && bytes <= p_.custom_all_reduce_max_bytes) k.params["impl"] = "custom";
    add(name, layer, std::move(k));
  }

  /// NCCL all_gather of a tensor of `elements` (the whole gathered tensor) over the TP group.
  void all_gather(const std::string& name, int layer, int64_t elements) {
    if (w_.tp == 1) return;
    KernelSpec k = kspec("all_gather", {{"gpus", w_.tp}});
    k.params["bytes"] = std::to_string(static_cast<int64_t>(elements * dtype_bytes(m_.dtype)));
    add(name, layer, std::move(k));
  }

  /// An RMSNorm over (rows x cols) as the profile launches it. `residual`: a residual add precedes it.
  void norm(const std::string& name, int layer, int64_t rows, int64_t cols, bool residual) {
    if (p_.norm == "fused_residual") {  // vLLM fused_add_rms_norm: one kernel
      KernelSpec k = kspec("rms_norm", {{"rows", rows}, {"cols", cols}});
      if (p_.fused_kernels && residual) k.params["residual"] = "1", k.params["impl"] = "fused";
      add(name, layer, std::move(k));
      return;
    }
    if (residual) add(name + ".residual_add", layer, eltwise("add", rows, cols));
    if (p_.norm == "kernel") {
      add(name, layer, kspec("rms_norm", {{"rows", rows}, {"cols", cols}}));
      return;
    }
    for (size_t i = 0; i < p_.norm_ops.size(); ++i)
      add(name + ".op" + std::to_string(i), layer, profile_op(p_.norm_ops[i], rows, cols));
    for (int i = 0; i < p_.norm_row_ops; ++i)
      add(name + ".row_op" + std::to_string(i), layer, eltwise("mul", rows, 1, "fp32"));
  }

  void attention(int l) {
    const int64_t hd = m_.head_dim, hq = s_.q_heads, hkv = s_.kv_heads;
    if (p_.attention == "flash" && p_.kv_cache == "static" && w_.phase == Phase::decode) {
      // sdpa over the whole preallocated cache with the StaticCache mask; K/V expanded to every query head, or
      // read once per kv head where SDPA does the grouping (static_cache_gqa: native).
      const int64_t kv = p_.static_cache_gqa == "native" ? hkv : hq;
      KernelSpec k = kspec("attention_decode", {{"batch", w_.batch()}, {"heads", hq}, {"kv_heads", kv},
                                                {"seq_kv", cache_len()}, {"head_dim", hd}});
      k.params["mask"] = "1";
      add("attention", l, std::move(k));
      return;
    }
    if (p_.attention == "flash") {
      std::vector<AttentionGroup> groups;
      for (const auto& g : groups_) groups.push_back({g.count, g.q, g.kv, g.decode});
      for (auto& launch : flash_attention_launches(p_, groups, hq, hkv, hd, dtype_)) {
        for (auto& part : launch.parts) part.where = where();
        add_parts(launch.name, l, std::move(launch.parts));
      }
      return;
    }
    // HF eager_attention_forward: repeat_kv (GQA copies), Q K^T, + mask, softmax, P V, transpose back.
    for (const auto& g : groups_) {
      const int64_t bh = g.count * hq;
      if (hq != hkv) {
        add("attn.repeat_k", l, eltwise("expand_copy", bh * g.kv, hd));
        add("attn.repeat_v", l, eltwise("expand_copy", bh * g.kv, hd));
      }
      add("attn.qk", l, gemm(g.q, g.kv, hd, bh));
      add("attn.mask_add", l, eltwise("add", bh * g.q, g.kv));
      add("attn.softmax", l, kspec("softmax", {{"rows", bh * g.q}, {"cols", g.kv}}));
      add("attn.pv", l, gemm(g.q, hd, g.kv, bh));
      add("attn.transpose", l, eltwise("copy_strided", g.count * g.q * hq, hd));
    }
  }

  void rotary(int l) {
    const int64_t hd = m_.head_dim;
    if (p_.rotary == "kernel" && p_.fused_kernels) {  // vLLM rotary_embedding: q and k in place, one kernel
      KernelSpec k =
          kspec("rotary", {{"tokens", tokens_}, {"heads", s_.q_heads}, {"kv_heads", s_.kv_heads}, {"head_dim", hd}});
      k.params["impl"] = "fused";
      add("rotary", l, std::move(k));
      return;
    }
    if (p_.rotary == "kernel") {
      add("rotary", l, kspec("rotary", {{"tokens", tokens_}, {"heads", s_.q_heads + s_.kv_heads}, {"head_dim", hd}}));
      return;
    }
    for (const char* t : {"q", "k"}) {
      const int64_t rows = tokens_ * (t[0] == 'q' ? s_.q_heads : s_.kv_heads);
      for (size_t i = 0; i < p_.rotary_ops.size(); ++i)
        add(std::string("rotary.") + t + std::to_string(i), l, profile_op(p_.rotary_ops[i], rows, hd));
    }
  }

  /// The KV-cache write of one layer as the profile does it (models/README.md, `kv_cache`).
  void kv_cache(int l) {
    const int64_t hd = m_.head_dim, hq = s_.q_heads, hkv = s_.kv_heads;
    if (p_.kv_cache == "cat") {
      // HF DynamicCache.update: torch.cat([cache, new], dim=-2) for K and for V rewrites the whole cache of every
      // request (context + new tokens) each step: one copy (1 read, 1 write) per element.
      int64_t rows = 0;
      for (const auto& g : groups_) rows += g.count * g.kv * hkv;
      add("kv_cache.cat_k", l, eltwise("cat", rows, hd));
      add("kv_cache.cat_v", l, eltwise("cat", rows, hd));
    } else if (p_.kv_cache == "paged") {  // index_copy_ of the new tokens' K and V rows into their pages
      add("kv_cache.write_k", l, eltwise("copy_strided", tokens_ * hkv, hd));
      add("kv_cache.write_v", l, eltwise("copy_strided", tokens_ * hkv, hd));
    } else if (p_.kv_cache == "static") {
      // HF StaticCache.update: index_copy_ of the new rows into the preallocated cache; attention then runs with
      // an explicit mask over the cache, and transformers' sdpa_attention_forward expands the KV heads to the
      // query heads (repeat_kv: a copy of batch x heads x keys x head_dim for K and for V) when hq != hkv.
      add("kv_cache.index_copy_k", l, eltwise("copy_strided", tokens_ * hkv, hd));
      add("kv_cache.index_copy_v", l, eltwise("copy_strided", tokens_ * hkv, hd));
      for (int i = 0; i < p_.static_cache_layer_ops; ++i)
        add("static_cache.small_op", l, eltwise("copy", 1, 128, "fp32"));
      if (hq != hkv && p_.attention == "flash" &&
          p_.static_cache_gqa == "repeat") {  // attention: eager already charges its own repeat_kv
        add("attn.repeat_k", l, eltwise("expand_copy", w_.batch() * hq * cache_len(), hd));
        add("attn.repeat_v", l, eltwise("expand_copy", w_.batch() * hq * cache_len(), hd));
      }
    }
  }

  /// gate/up GEMM(s), activation, down GEMM for an MLP of per-GPU intermediate size `inter` over `rows` tokens.
  void mlp(const std::string& prefix, int l, int64_t rows, int64_t inter) {
    const int64_t H = m_.hidden;
    if (p_.gate_up == "fused") {
      add(prefix + "gate_up_proj", l, gemm(rows, 2 * inter, H));
    } else {
      add(prefix + "gate_proj", l, gemm(rows, inter, H));
      add(prefix + "up_proj", l, gemm(rows, inter, H));
    }
    if (p_.activation == "fused") {
      add(prefix + "silu_mul", l, eltwise("silu_mul", rows, inter));
    } else {
      add(prefix + "silu", l, eltwise("silu", rows, inter));
      add(prefix + "mul", l, eltwise("mul", rows, inter));
    }
    add(prefix + "down_proj", l, gemm(rows, H, inter));
  }

  void moe(int l) {
    const int64_t H = m_.hidden, E = m_.experts, k = m_.experts_per_token, I = s_.moe_intermediate;
    add("router", l, gemm(tokens_, E, H));
    if (p_.moe == "fused") {  // vLLM fused_moe: topk_softmax, w13 grouped GEMM, silu_and_mul, w2, moe_sum
      add("topk_softmax", l, kspec("softmax", {{"rows", tokens_}, {"cols", E}}));
      auto moe_spec = [&](const char* stage) {
        KernelSpec s = kspec("moe", {{"tokens", tokens_}, {"experts", E}, {"topk", k}, {"hidden", H}, {"inter", I}});
        s.params["stage"] = stage;
        return s;
      };
      add("moe_w13", l, moe_spec("w13"));
      add("moe_silu_mul", l, eltwise("silu_mul", tokens_ * k, I));
      add("moe_w2", l, moe_spec("w2"));
      add("moe_sum", l, eltwise("add", tokens_, H));
    } else {  // HF MixtralSparseMoeBlock: softmax, then a loop over the experts that received tokens
      add("router_softmax", l, kspec("softmax", {{"rows", tokens_}, {"cols", E}}, "fp32"));
      const int64_t active = std::min(E, tokens_ * k);
      const int64_t per_expert = (tokens_ * k + active - 1) / active;  // uniform routing assumed
      for (int64_t e = 0; e < active; ++e) {
        const std::string p = "experts.";  // one name for every expert: the breakdown sums them
        add(p + "gather", l, eltwise("copy_strided", per_expert, H));
        mlp(p, l, per_expert, I);
        add(p + "scale", l, eltwise("mul", per_expert, H));
        add(p + "index_add", l, eltwise("add", per_expert, H));
      }
    }
    if (m_.shared_expert_intermediate > 0) {  // Qwen2-MoE shared expert with a sigmoid gate
      mlp("shared_", l, tokens_, s_.shared_intermediate);
      add("shared_gate", l, gemm(tokens_, 1, H));
      add("shared_gate_mul", l, eltwise("mul", tokens_, H));
      add("shared_add", l, eltwise("add", tokens_, H));
    }
  }

  void layer(int l) {
    const int64_t H = m_.hidden, hd = m_.head_dim, T = tokens_;
    norm("input_norm", l, T, H, /*residual=*/l > 0);
    if (p_.qkv == "fused") {
      add("qkv_proj", l, gemm(T, (s_.q_heads + 2 * s_.kv_heads) * hd, H));
    } else {
      add("q_proj", l, gemm(T, s_.q_heads * hd, H));
      add("k_proj", l, gemm(T, s_.kv_heads * hd, H));
      add("v_proj", l, gemm(T, s_.kv_heads * hd, H));
    }
    if (m_.qk_norm) {  // Qwen3: RMSNorm over each head of q and k
      norm("q_norm", l, T * s_.q_heads, hd, false);
      norm("k_norm", l, T * s_.kv_heads, hd, false);
    }
    rotary(l);
    kv_cache(l);
    attention(l);
    add("o_proj", l, gemm(T, H, s_.q_heads * hd));
    all_reduce("attn_all_reduce", l, T * H);
    norm("post_attn_norm", l, T, H, /*residual=*/true);
    if (m_.is_moe_layer(l)) moe(l);
    else mlp("", l, T, s_.intermediate);
    all_reduce("mlp_all_reduce", l, T * H);
  }
};

}  // namespace

std::vector<Op> build_op_graph(const ModelConfig& model, const ServingProfile& profile, const Workload& work) {
  return Builder(model, profile, work).build();
}

}  // namespace loom
