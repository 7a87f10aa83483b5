// config.json parsing: every supported architecture kind (dense, GQA, tied, MoE with and without shared experts),
// parameter counts against the published sizes, and bad input with FILE:LINE.
#include <gtest/gtest.h>

#include "core/error.h"
#include "e2e/model_config.h"

namespace loom {
namespace {

std::string where_of(const std::string& text) {
  try {
    parse_model_config(text, "cfg.json");
  } catch (const InputError& e) {
    return e.where();
  }
  return "(no error)";
}

TEST(E2eModel, DenseGqaUntiedPreset) {
  const ModelConfig m = load_model("llama-3-8b");
  EXPECT_EQ(m.model_type, "llama");
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.kv_heads, 8);  // GQA
  EXPECT_EQ(m.head_dim, 128);  // hidden / heads (no head_dim key)
  EXPECT_EQ(m.intermediate, 14336);
  EXPECT_EQ(m.vocab, 128256);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.is_moe());
  EXPECT_EQ(m.dtype, Dtype::bf16);
  // Meta publishes 8.03B parameters for Llama 3 8B.
  EXPECT_NEAR(m.param_count() / 1e9, 8.03, 0.01);
}

TEST(E2eModel, TiedEmbeddingsCountedOnce) {
  const ModelConfig m = load_model("llama-3.2-1b");
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_NEAR(m.param_count() / 1e9, 1.236, 0.005);  // 1.24B published
}

TEST(E2eModel, Qwen3HasExplicitHeadDimAndQkNorm) {
  const ModelConfig m = load_model("qwen3-32b");
  EXPECT_EQ(m.head_dim, 128);  // != 5120 / 64
  EXPECT_TRUE(m.qk_norm);
  EXPECT_NEAR(m.param_count() / 1e9, 32.8, 0.1);  // Qwen3-32B: 32.8B
}

TEST(E2eModel, MixtralMoe) {
  const ModelConfig m = load_model("mixtral-8x7b");
  EXPECT_TRUE(m.is_moe());
  EXPECT_EQ(m.experts, 8);
  EXPECT_EQ(m.experts_per_token, 2);
  EXPECT_EQ(m.moe_intermediate, 14336);
  EXPECT_TRUE(m.is_moe_layer(0));
  EXPECT_NEAR(m.param_count() / 1e9, 46.7, 0.1);         // 46.7B total
  EXPECT_NEAR(m.active_param_count() / 1e9, 12.9, 0.1);  // 12.9B active
}

TEST(E2eModel, Qwen3MoeAndQwen2MoeSharedExpert) {
  const ModelConfig q3 = load_model("qwen3-30b-a3b");
  EXPECT_EQ(q3.experts, 128);
  EXPECT_EQ(q3.experts_per_token, 8);
  EXPECT_EQ(q3.shared_expert_intermediate, 0);
  EXPECT_NEAR(q3.param_count() / 1e9, 30.5, 0.1);
  EXPECT_NEAR(q3.active_param_count() / 1e9, 3.3, 0.1);
  const ModelConfig q2 = load_model("qwen1.5-moe-a2.7b");
  EXPECT_EQ(q2.model_type, "qwen2_moe");
  EXPECT_EQ(q2.shared_expert_intermediate, 5632);
  EXPECT_TRUE(q2.qkv_bias);
  EXPECT_NEAR(q2.param_count() / 1e9, 14.3, 0.1);
}

TEST(E2eModel, SparseStepAndMlpOnlyLayers) {
  const ModelConfig m = parse_model_config(R"({"model_type": "qwen2_moe", "hidden_size": 64,
    "intermediate_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4, "vocab_size": 100,
    "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "decoder_sparse_step": 2,
    "mlp_only_layers": [3]})", "x.json");
  EXPECT_EQ(m.kv_heads, 4);  // defaults to num_attention_heads
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_FALSE(m.is_moe_layer(2));
  EXPECT_FALSE(m.is_moe_layer(3));  // listed in mlp_only_layers
}

TEST(E2eModel, EveryPresetLoads) {
  const auto names = model_presets();
  for (const char* want : {"llama-3.2-1b", "llama-3-8b", "llama-3-70b", "qwen2.5-14b", "qwen3-32b", "mixtral-8x7b",
                           "qwen3-30b-a3b"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  for (const auto& n : names) EXPECT_NO_THROW(load_model(n)) << n;
}

TEST(E2eModel, PositionLimitWarnsBeyondMaxPositionEmbeddings) {
  const ModelConfig m = load_model("llama-3-8b");
  EXPECT_EQ(m.max_positions, 8192);
  EXPECT_EQ(position_warning(m, 8192), "");
  const std::string w = position_warning(m, 8193);
  EXPECT_NE(w.find("8193"), std::string::npos);
  EXPECT_NE(w.find("max_position_embeddings (8192)"), std::string::npos);
  ModelConfig unknown = m;
  unknown.max_positions = 0;  // a config without the key: nothing to compare with
  EXPECT_EQ(position_warning(unknown, 1 << 30), "");
  EXPECT_EQ(where_of("{\n \"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2,\n"
                     " \"num_attention_heads\": 4, \"vocab_size\": 10, \"intermediate_size\": 8,\n"
                     " \"max_position_embeddings\": -1\n}"),
            "cfg.json:4");
}

TEST(E2eModel, BadInputs) {
  // Missing field: names the file and the field.
  try {
    parse_model_config(R"({"model_type": "llama", "hidden_size": 64})", "cfg.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "cfg.json");
    EXPECT_NE(e.detail().find("num_hidden_layers"), std::string::npos);
  }
  // Bad value: FILE:LINE of the key.
  EXPECT_EQ(where_of("{\n \"model_type\": \"llama\",\n \"hidden_size\": -5\n}"), "cfg.json:3");
  EXPECT_EQ(where_of("{\n \"model_type\": \"gpt2\"\n}"), "cfg.json:2");
  EXPECT_EQ(where_of("{\n \"model_type\": \"llama\",\n \"hidden_size\": 64,,\n}"), "cfg.json:3");  // malformed
  EXPECT_EQ(where_of(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 6, "num_key_value_heads": 4, "vocab_size": 10, "intermediate_size": 8})"), "cfg.json:2");
  EXPECT_THROW(load_model("no-such-model"), InputError);
  try {
    load_model("no-such-model");
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--model");
    EXPECT_NE(e.detail().find("llama-3-8b"), std::string::npos);  // lists the presets
  }
  EXPECT_THROW(load_model("/nonexistent/config.json"), InputError);
}

}  // namespace
}  // namespace loom
