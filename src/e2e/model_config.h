// ModelConfig: the shape of a decoder-only LLM, read from a Hugging Face config.json (presets in models/presets/).
// Supported model_type: llama, mistral, qwen2, qwen3 (dense); mixtral, qwen2_moe, qwen3_moe (MoE).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace loom {

struct ModelConfig {
  std::string name;         ///< preset name or file stem
  std::string source_file;  ///< the config.json it came from
  std::string model_type;   ///< HF model_type, e.g. "llama", "qwen3_moe"
  int64_t hidden = 0;       ///< hidden_size
  int64_t intermediate = 0; ///< dense MLP intermediate_size (per expert for mixtral)
  int64_t layers = 0;       ///< num_hidden_layers
  int64_t heads = 0;        ///< num_attention_heads
  int64_t kv_heads = 0;     ///< num_key_value_heads (GQA when < heads)
  int64_t head_dim = 0;     ///< head_dim, or hidden_size / heads when absent
  int64_t vocab = 0;        ///< vocab_size
  int64_t max_positions = 0;  ///< max_position_embeddings (0: the config does not say)
  int64_t sliding_window = 0; ///< sliding_window when in use (0: none, or use_sliding_window: false); not modelled
  bool tied_embeddings = false;  ///< tie_word_embeddings: lm_head shares the embedding matrix
  Dtype dtype = Dtype::bf16;     ///< torch_dtype / dtype
  bool qk_norm = false;     ///< per-head RMSNorm on q and k (Qwen3)
  bool qkv_bias = false;    ///< bias on q/k/v projections (Qwen2); fused into the GEMM epilogue, no extra kernel

  // Mixture of experts (0 = dense).
  int64_t experts = 0;                     ///< routed experts per MoE layer
  int64_t experts_per_token = 0;           ///< top-k
  int64_t moe_intermediate = 0;            ///< intermediate size of one routed expert
  int64_t shared_expert_intermediate = 0;  ///< Qwen2-MoE shared expert (0 = none)
  int64_t decoder_sparse_step = 1;         ///< every n-th layer is MoE (Qwen-MoE)
  std::vector<int64_t> mlp_only_layers;    ///< layers forced dense (Qwen-MoE)

  bool is_moe() const { return experts > 0; }
  /// True when decoder layer `layer` (0-based) uses the MoE block (HF Qwen2MoeDecoderLayer rule).
  bool is_moe_layer(int64_t layer) const;
  /// Total parameters (embeddings, all experts, norms; lm_head counted once when tied).
  double param_count() const;
  /// Parameters one token touches (routed experts counted top-k times out of E).
  double active_param_count() const;
};

/// The warning for a step or request that reaches `positions` token positions when the model was built for fewer
/// (max_position_embeddings), or "" when it fits or the config does not say. loom prices the step as asked; the
/// model itself would need RoPE scaling (or fail) there.
std::string position_warning(const ModelConfig& m, int64_t positions);

/// The note for a sequence of `positions` longer than the model's sliding_window (attention beyond the window is
/// priced as full attention, an upper bound), or "" when it fits or the model has none.
std::string sliding_window_warning(const ModelConfig& m, int64_t positions);

/// Parses config.json text. `source` names the file in errors. Throws InputError("FILE:LINE", ...) on malformed
/// JSON, an unsupported model_type, and missing or non-positive required fields.
ModelConfig parse_model_config(const std::string& json_text, const std::string& source);

/// A preset name (models/presets/<name>.json under data_dir()) or a path to a config.json; a directory path
/// is read as DIR/config.json. Throws InputError("--model", ...) for an unknown name.
ModelConfig load_model(const std::string& name_or_path);

/// Names of the presets in models/presets/, sorted.
std::vector<std::string> model_presets();

}  // namespace loom
