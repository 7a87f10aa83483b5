// Attention cases (impl loom): buffers for attention_prefill / attention_decode specs (attention.h layouts).
#include "attention.h"
#include "runners.h"

namespace bench {

std::vector<Variant> prepare_attention(const Case& cs, const Ctx& ctx) {
  AttnArgs a;
  bool decode = cs.kind == Kind::attn_decode;
  a.batch = (int)cs.batch, a.heads = (int)cs.heads, a.kv_heads = (int)cs.kv_heads, a.head_dim = (int)cs.head_dim;
  a.seq_kv = (int)cs.seq, a.seq_q = decode ? 1 : (int)cs.seq, a.causal = cs.causal != 0;
  size_t nq = (size_t)a.batch * a.seq_q * a.heads * a.head_dim, nkv = (size_t)a.batch * a.seq_kv * a.kv_heads * a.head_dim;
  auto* q = (__nv_bfloat16*)ctx.arena->take(nq * 2);
  auto* k = (__nv_bfloat16*)ctx.arena->take(nkv * 2);
  auto* v = (__nv_bfloat16*)ctx.arena->take(nkv * 2);
  auto* o = (__nv_bfloat16*)ctx.arena->take(nq * 2);
  fill_random(q, nq, DType::bf16, ctx.seed, -1.f, 1.f, ctx.stream);
  fill_random(k, nkv, DType::bf16, ctx.seed + 1, -1.f, 1.f, ctx.stream);
  fill_random(v, nkv, DType::bf16, ctx.seed + 2, -1.f, 1.f, ctx.stream);
  a.q = q, a.k = k, a.v = v, a.o = o;
  Variant var;
  var.spec = cs.spec, var.impl = "loom";
  var.flush_l2 = needs_flush(2.0 * (2 * nq + 2 * nkv), ctx);
  cudaStream_t s = ctx.stream;
  if (decode) {
    void* scratch = ctx.arena->take(decode_scratch_bytes(a));
    var.launch = [a, scratch, s] { attention_decode(a, scratch, s); };
  } else {
    int cfg = cs.config;
    var.launch = [a, cfg, s] { attention_prefill(cfg, a, s); };
  }
  return {var};
}

}  // namespace bench
