// Op graphs: kernel counts and GEMM/attention shapes for known models, TP sharding, profiles, bad inputs.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "e2e/op_graph.h"

namespace loom {
namespace {

std::vector<const Op*> named(const std::vector<Op>& ops, const std::string& name, int layer = 0) {
  std::vector<const Op*> v;
  for (const auto& o : ops)
    if (o.name == name && o.layer == layer) v.push_back(&o);
  return v;
}

const std::string& P(const Op* op, const std::string& key, size_t part = 0) {
  return op->parts().at(part).params.at(key);
}

TEST(E2eGraph, Llama8bPrefillVllmShapes) {
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile p = load_profile("vllm");
  const auto ops = build_op_graph(m, p, prefill_workload(1, {1024}, {}, 1));
  // embed + 32 layers x (norm, qkv, rotary, attention, o_proj, norm, gate_up, silu_mul, down) + norm, lm_head, softmax
  int layer0 = 0;
  for (const auto& o : ops) layer0 += o.layer == 0;
  EXPECT_EQ(layer0, 9);
  EXPECT_EQ(ops.size(), 1u + 32 * 9 + 3);
  const Op* qkv = named(ops, "qkv_proj").at(0);
  EXPECT_EQ(qkv->family(), "gemm");
  EXPECT_EQ(P(qkv, "m"), "1024");
  EXPECT_EQ(P(qkv, "n"), "6144");  // (32 + 2 x 8) heads x 128
  EXPECT_EQ(P(qkv, "k"), "4096");
  EXPECT_EQ(P(named(ops, "o_proj").at(0), "k"), "4096");
  EXPECT_EQ(P(named(ops, "gate_up_proj").at(0), "n"), "28672");
  EXPECT_EQ(P(named(ops, "down_proj").at(0), "k"), "14336");
  EXPECT_EQ(P(named(ops, "down_proj").at(0), "n"), "4096");
  const Op* attn = named(ops, "attention").at(0);
  EXPECT_EQ(attn->family(), "attention_prefill");
  EXPECT_EQ(P(attn, "heads"), "32");
  EXPECT_EQ(P(attn, "kv_heads"), "8");
  EXPECT_EQ(P(attn, "seq"), "1024");
  EXPECT_EQ(P(attn, "causal"), "1");
  const Op* lm = named(ops, "lm_head", -1).at(0);
  EXPECT_EQ(P(lm, "m"), "1");  // last token only
  EXPECT_EQ(P(lm, "n"), "128256");
  EXPECT_TRUE(named(ops, "attn_all_reduce").empty());  // tp = 1
}

TEST(E2eGraph, TensorParallelShardsHeadsAndIntermediate) {
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile p = load_profile("vllm");
  const auto ops = build_op_graph(m, p, prefill_workload(1, {1024}, {}, 2));
  EXPECT_EQ(P(named(ops, "qkv_proj").at(0), "n"), "3072");
  EXPECT_EQ(P(named(ops, "gate_up_proj").at(0), "n"), "14336");
  EXPECT_EQ(P(named(ops, "down_proj").at(0), "k"), "7168");
  EXPECT_EQ(P(named(ops, "attention").at(0), "heads"), "16");
  EXPECT_EQ(P(named(ops, "attention").at(0), "kv_heads"), "4");
  const Op* ar = named(ops, "attn_all_reduce").at(0);
  EXPECT_EQ(P(ar, "bytes"), std::to_string(1024 * 4096 * 2));
  EXPECT_EQ(P(ar, "gpus"), "2");
  EXPECT_EQ(named(ops, "mlp_all_reduce").size(), 1u);
  // 9 + 2 all-reduces per layer.
  int layer0 = 0;
  for (const auto& o : ops) layer0 += o.layer == 0;
  EXPECT_EQ(layer0, 11);
  // Fewer KV heads than tp: replicated.
  const ModelConfig q = load_model("qwen3-30b-a3b");  // 4 KV heads
  const Shards s = shard(q, 8);
  EXPECT_EQ(s.q_heads, 4);
  EXPECT_EQ(s.kv_heads, 1);
  EXPECT_EQ(s.moe_intermediate, 96);
}

TEST(E2eGraph, DecodeGroupsContextsIntoOneLaunch) {
  const ModelConfig m = load_model("llama-3-8b");
  const auto ops = build_op_graph(m, load_profile("vllm"), decode_workload(3, {100, 100, 500}, 1));
  const Op* attn = named(ops, "attention").at(0);
  // One paged launch over every decoding request, priced at their mean key count (total KV read is kept).
  ASSERT_EQ(attn->parts().size(), 1u);
  EXPECT_EQ(attn->family(), "attention_decode");
  EXPECT_EQ(P(attn, "batch", 0), "3");
  EXPECT_EQ(P(attn, "seq_kv", 0), "234");  // (101 + 101 + 501) / 3
  EXPECT_EQ(P(named(ops, "qkv_proj").at(0), "m"), "3");
}

TEST(E2eGraph, MixedStepIsOneRaggedBatch) {
  const ModelConfig m = load_model("llama-3-8b");
  // Two decodes (contexts 300 and 700) and one prefill chunk of 512 tokens after 1024 cached ones.
  const auto ops = build_op_graph(m, load_profile("vllm"), mixed_workload({1, 1, 512}, {300, 700, 1024}, 1));
  EXPECT_EQ(P(named(ops, "qkv_proj").at(0), "m"), "514");  // every token in one GEMM
  const Op* attn = named(ops, "attention").at(0);
  ASSERT_EQ(attn->parts().size(), 2u);
  EXPECT_EQ(attn->parts()[0].family, "attention_decode");
  EXPECT_EQ(P(attn, "batch", 0), "2");
  EXPECT_EQ(P(attn, "seq_kv", 0), "501");
  EXPECT_EQ(attn->parts()[1].family, "attention_prefill");
  EXPECT_EQ(P(attn, "seq", 1), "512");
  EXPECT_EQ(P(attn, "seq_kv", 1), "1536");
  EXPECT_EQ(P(named(ops, "lm_head", -1).at(0), "m"), "3");  // one logit row per request
  EXPECT_THROW(mixed_workload({1, 0}, {5, 5}, 1), InputError);
  EXPECT_THROW(mixed_workload({1}, {5, 5}, 1), InputError);
}

TEST(E2eGraph, HfEagerIsUnfused) {
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile vllm = load_profile("vllm"), hf = load_profile("hf-eager");
  const auto w = prefill_workload(2, {100, 300}, {}, 1);
  const auto a = build_op_graph(m, vllm, w), b = build_op_graph(m, hf, w);
  EXPECT_GT(b.size(), 3 * a.size());
  EXPECT_EQ(named(b, "q_proj").size(), 1u);
  EXPECT_EQ(P(named(b, "q_proj").at(0), "m"), "600");  // padded to the longest prompt
  EXPECT_EQ(P(named(a, "qkv_proj").at(0), "m"), "400");  // varlen
  EXPECT_EQ(P(named(b, "lm_head", -1).at(0), "m"), "600");  // full-sequence lm_head
  EXPECT_EQ(P(named(b, "attn.qk").at(0), "batch"), "64");  // batch 2 x 32 heads
  EXPECT_TRUE(named(b, "rotary").empty());
  EXPECT_FALSE(named(b, "input_norm.op0").empty());
}

TEST(E2eGraph, StaticCacheProfiles) {
  // hf-sdpa's StaticCache expands K/V to the query heads (repeat_kv copies, attention without GQA) and launches 6
  // bookkeeping kernels a layer; torch-static (tp_e2e.py's ManualDecoder) uses SDPA's enable_gqa, a fused
  // F.rms_norm and 3 mask kernels a layer.
  const ModelConfig m = load_model("llama-3-70b");  // 64 heads, 8 KV heads
  ServingProfile hf = load_profile("hf-sdpa");
  hf.kv_cache = "static";
  const ServingProfile manual = load_profile("torch-static");
  Workload w = decode_workload(8, {512}, 4);
  w.static_cache_len = 541;
  const auto a = build_op_graph(m, hf, w), b = build_op_graph(m, manual, w);
  EXPECT_EQ(P(named(a, "attention").at(0), "kv_heads"), "16");  // expanded to the 16 query heads of a TP-4 shard
  EXPECT_EQ(P(named(b, "attention").at(0), "kv_heads"), "2");
  EXPECT_EQ(P(named(b, "attention").at(0), "seq_kv"), "541");
  EXPECT_EQ(named(a, "attn.repeat_k").size(), 1u);
  EXPECT_TRUE(named(b, "attn.repeat_k").empty());
  EXPECT_EQ(named(a, "static_cache.small_op").size(), 6u);
  EXPECT_EQ(named(b, "static_cache.small_op").size(), 3u);
  EXPECT_EQ(named(b, "input_norm").at(0)->family(), "rms_norm");
  // The vocab-sharded logits are all-gathered: 8 rows x 128256 x 2 bytes over 4 GPUs.
  const Op* g = named(b, "logits_gather", -1).at(0);
  EXPECT_EQ(g->family(), "all_gather");
  EXPECT_EQ(P(g, "bytes"), std::to_string(8 * 128256 * 2));
  EXPECT_EQ(P(g, "gpus"), "4");
  EXPECT_THROW(parse_profile("static_cache_gqa: split\n", "p.yaml"), InputError);
  EXPECT_THROW(parse_profile("static_cache_layer_ops: -1\n", "p.yaml"), InputError);
  EXPECT_THROW(parse_profile("static_cache_step_ops: .nan\n", "p.yaml"), InputError);
}

TEST(E2eGraph, MoeLayers) {
  const ModelConfig m = load_model("mixtral-8x7b");
  const auto ops = build_op_graph(m, load_profile("vllm"), decode_workload(4, {1000}, 2));
  const Op* w13 = named(ops, "moe_w13").at(0);
  EXPECT_EQ(w13->family(), "moe");
  EXPECT_EQ(P(w13, "tokens"), "4");
  EXPECT_EQ(P(w13, "experts"), "8");
  EXPECT_EQ(P(w13, "topk"), "2");
  EXPECT_EQ(P(w13, "inter"), "7168");
  EXPECT_EQ(P(w13, "stage"), "w13");
  EXPECT_TRUE(named(ops, "gate_up_proj").empty());
  // HF loops over the experts that got tokens: 4 tokens x top-2 -> all 8 experts, one token each.
  const auto hf = build_op_graph(m, load_profile("hf-eager"), decode_workload(4, {1000}, 1));
  const auto gate = named(hf, "experts.gate_proj");
  ASSERT_EQ(gate.size(), 8u);
  EXPECT_EQ(P(gate[0], "m"), "1");
}

TEST(E2eGraph, BadInputs) {
  const ModelConfig m = load_model("llama-3-8b");  // 32 heads, 8 KV heads
  const ServingProfile p = load_profile("vllm");
  try {
    build_op_graph(m, p, prefill_workload(1, {16}, {}, 3));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--tp");
    EXPECT_NE(e.detail().find("num_attention_heads"), std::string::npos);
  }
  EXPECT_THROW(prefill_workload(1, {16}, {}, 16), InputError);
  EXPECT_THROW(prefill_workload(3, {16, 32}, {}, 1), InputError);  // 2 lengths for 3 requests
  EXPECT_THROW(prefill_workload(1, {0}, {}, 1), InputError);
  EXPECT_THROW(decode_workload(1, {}, 1), InputError);
  try {
    load_profile("tensorrt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--profile");
    EXPECT_NE(e.detail().find("vllm"), std::string::npos);
  }
  try {
    parse_profile("qkv: fused\nattention: magic\n", "p.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "p.yaml:2");
  }
  try {
    parse_profile("qkv: fused\n\nfused_everything: true\n", "p.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "p.yaml:3");
    EXPECT_NE(e.detail().find("unknown key"), std::string::npos);
  }
}

}  // namespace
}  // namespace loom
