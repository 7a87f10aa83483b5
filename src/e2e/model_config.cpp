// Reads Hugging Face config.json files into ModelConfig, with FILE:LINE on every error.
#include "e2e/model_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_strict.h"
#include "core/suggest.h"
#include "hw/catalog.h"

namespace loom {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// 1-based line of the first `"key"` in the text (nlohmann keeps no positions), or 1 when not found.
int line_of_key(const std::string& text, const std::string& key) {
  const size_t pos = text.find("\"" + key + "\"");
  if (pos == std::string::npos) return 1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

/// Largest value loom accepts per size field: a few times the largest released model (Llama-3.1-405B: 126 layers,
/// hidden 16384, 128 heads; vocabularies up to ~256K; Qwen MoE 128 experts). Beyond these a config is a typo or a
/// hostile file, and the op graph would hold billions of ops.
int64_t size_bound(const std::string& key) {
  if (key == "num_hidden_layers" || key == "decoder_sparse_step") return 1024;
  if (key == "num_attention_heads" || key == "num_key_value_heads" || key == "head_dim") return 1024;
  if (key == "vocab_size") return int64_t(1) << 22;
  if (key == "max_position_embeddings" || key == "sliding_window") return int64_t(1) << 30;
  if (key == "num_local_experts" || key == "num_experts" || key == "num_experts_per_tok") return 4096;
  return int64_t(1) << 20;  // hidden_size, intermediate_size, moe_intermediate_size, shared_expert_intermediate_size
}

struct Reader {
  const json& j;
  const std::string& text;
  const std::string& source;

  std::string at(const std::string& key) const { return source + ":" + std::to_string(line_of_key(text, key)); }
  bool present(const std::string& key) const { return j.contains(key) && !j.at(key).is_null(); }

  int64_t integer(const std::string& key) const {
    if (!present(key))
      throw InputError(source, "missing field '" + key + "'; a " + j.value("model_type", std::string("model")) +
                                   " config.json needs it");
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() <= 0)
      throw InputError(at(key), "'" + key + "' must be a positive integer, got " +
                                    v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (v.get<int64_t>() > size_bound(key))
      throw InputError(at(key), "'" + key + "' = " + std::to_string(v.get<int64_t>()) + " is above loom's bound of " +
                                    std::to_string(size_bound(key)) + " (no released model comes near it); check it");
    return v.get<int64_t>();
  }
  int64_t integer_or(const std::string& key, int64_t fallback) const {
    return present(key) ? integer(key) : fallback;
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!present(key)) return fallback;
    if (!j.at(key).is_boolean()) throw InputError(at(key), "'" + key + "' must be true or false");
    return j.at(key).get<bool>();
  }
};

Dtype parse_dtype_key(const Reader& r, const std::string& key) {
  const json& v = r.j.at(key);
  const std::string s =
      v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s == "bfloat16") return Dtype::bf16;
  if (s == "float16" || s == "half") return Dtype::fp16;
  if (s == "float32" || s == "float") return Dtype::fp32;
  throw InputError(r.at(key), "unsupported " + key + " '" + s.substr(0, 40) + "'; use bfloat16, float16 or float32");
}

/// torch_dtype, or `dtype` (its name since transformers 4.56); both given must agree (torch_dtype silently won).
Dtype parse_torch_dtype(const Reader& r) {
  const bool old_key = r.present("torch_dtype"), new_key = r.present("dtype");
  if (!old_key && !new_key) return Dtype::bf16;  // serving stacks load bf16 when the config names none
  const Dtype d = parse_dtype_key(r, old_key ? "torch_dtype" : "dtype");
  if (old_key && new_key && parse_dtype_key(r, "dtype") != d)
    throw InputError(r.at("dtype"), "'dtype' and 'torch_dtype' disagree (" + r.j.at("dtype").dump().substr(0, 30) +
                                        " vs " + r.j.at("torch_dtype").dump().substr(0, 30) + "); give one");
  return d;
}

/// `architectures` (when given): a list of causal-LM classes of the file's model_type ("MambaForCausalLM" in a llama
/// config is another model, which loom would price as llama).
void check_architectures(const Reader& r) {
  if (!r.present("architectures")) return;
  static const std::map<std::string, std::string> cls = {{"llama", "Llama"}, {"mistral", "Mistral"}, {"qwen2", "Qwen2"},
                                                         {"qwen3", "Qwen3"}, {"mixtral", "Mixtral"},
                                                         {"qwen2_moe", "Qwen2Moe"}, {"qwen3_moe", "Qwen3Moe"}};
  const json& a = r.j.at("architectures");
  if (!a.is_array()) throw InputError(r.at("architectures"), "'architectures' must be a list of class names");
  const json& t = r.j.contains("model_type") ? r.j["model_type"] : json();
  const auto it = t.is_string() ? cls.find(t.get<std::string>()) : cls.end();
  for (const json& x : a)
    if (!x.is_string() || (it != cls.end() && x.get<std::string>() != it->second + "ForCausalLM"))
      throw InputError(r.at("architectures"),
                       "'architectures' names " + x.dump().substr(0, 60) +
                           (it == cls.end() ? std::string(", not a class name")
                                            : ", not " + it->second + "ForCausalLM (model_type '" + it->first + "')") +
                           "; loom prices causal LMs of the file's model_type: fix the config");
}

/// Fields loom does not price but whose nonsense says the file is broken (an unknown activation, rope_theta 0, a
/// negative epsilon): refused rather than priced as a model that cannot exist. Names from transformers' ACT2FN.
void check_unused_fields(const Reader& r) {
  static const std::set<std::string> acts = {"gelu", "gelu_10", "gelu_accurate", "gelu_fast", "gelu_new",
                                             "gelu_python", "gelu_pytorch_tanh", "laplace", "leaky_relu", "linear",
                                             "mish", "quick_gelu", "relu", "relu2", "relu6", "sigmoid", "silu",
                                             "swish", "tanh", "prelu", "xielu"};
  auto shown = [&](const std::string& key) {
    return r.j.at(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 60);
  };
  if (r.present("hidden_act")) {
    const json& v = r.j.at("hidden_act");
    if (!v.is_string() || !acts.count(v.get<std::string>()))
      throw InputError(r.at("hidden_act"), "'hidden_act' " + shown("hidden_act") +
                                               " is not an activation transformers knows (silu, gelu, relu, ...)");
  }
  // rope_theta > 0; 0 < rms_norm_eps < 1; 0 <= attention_dropout < 1.
  for (const auto& [key, lo, hi, lo_ok, range] : {std::tuple{"rope_theta", 0.0, 1e300, false, "(0, inf)"},
                                                  std::tuple{"rms_norm_eps", 0.0, 1.0, false, "(0, 1)"},
                                                  std::tuple{"attention_dropout", 0.0, 1.0, true, "[0, 1)"}}) {
    if (!r.present(key)) continue;
    const json& v = r.j.at(key);
    const double x = v.is_number() ? v.get<double>() : std::nan("");
    if (!(std::isfinite(x) && (lo_ok ? x >= lo : x > lo) && x < hi))
      throw InputError(r.at(key), std::string("'") + key + "' " + shown(key) + " is not a number in " + range +
                                      "; fix the config");
  }
  if (r.present("rope_scaling") && !r.j.at("rope_scaling").is_object())
    throw InputError(r.at("rope_scaling"), "'rope_scaling' " + shown("rope_scaling") + " must be an object or null");
  if (r.present("rope_scaling")) {  // not priced; nonsense inside is refused as the rest is (a null factor ran)
    const json& rs = r.j.at("rope_scaling");
    if (rs.contains("factor") && !(rs["factor"].is_number() && std::isfinite(rs["factor"].get<double>()) &&
                                   rs["factor"].get<double>() > 0))
      throw InputError(r.at("rope_scaling"), "'rope_scaling.factor' " + rs["factor"].dump().substr(0, 40) +
                                                 " must be a number > 0; fix the config");
    // transformers' ROPE_INIT_FUNCTIONS, plus the legacy names it maps (su -> longrope, mrope -> default).
    static const std::set<std::string> rope_types = {"default", "linear", "dynamic", "yarn", "longrope", "llama3",
                                                     "su", "mrope"};
    for (const char* k : {"rope_type", "type"})
      if (rs.contains(k) && !(rs[k].is_string() && rope_types.count(rs[k].get<std::string>())))
        throw InputError(r.at("rope_scaling"), std::string("'rope_scaling.") + k + "' " + rs[k].dump().substr(0, 40) +
                                                   " is not a RoPE type transformers knows (default, linear, dynamic, "
                                                   "yarn, longrope, llama3); fix the config");
  }
  if (r.present("mlp_bias")) r.boolean_or("mlp_bias", false);  // a bool when given ("false" in quotes is not)
  check_architectures(r);
  // Expert counts on a dense model_type describe a model loom would price as dense: another model than the file's.
  const std::string type =
      r.j.contains("model_type") && r.j["model_type"].is_string() ? r.j["model_type"].get<std::string>() : "";
  if (type == "llama" || type == "mistral" || type == "qwen2" || type == "qwen3")
    for (const char* k : {"num_local_experts", "num_experts", "num_experts_per_tok"})
      if (r.present(k) && !(r.j.at(k).is_number_integer() && r.j.at(k).get<int64_t>() <= 1))
        throw InputError(r.at(k), std::string("'") + k + "' " + r.j.at(k).dump().substr(0, 30) +
                                      " on a dense model_type '" + type +
                                      "'; a mixture of experts is model_type mixtral, qwen2_moe or qwen3_moe");
  if (r.present("sliding_window")) r.integer("sliding_window");  // a positive integer when given
}

const std::vector<std::string>& supported_types() {
  static const std::vector<std::string> t = {"llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen2_moe",
                                             "qwen3_moe"};
  return t;
}

std::string read_file(const std::string& path) {
  return read_input_file(path, "cannot open model config; check the path");
}

}  // namespace

bool ModelConfig::is_moe_layer(int64_t layer) const {
  if (!is_moe()) return false;
  if (std::find(mlp_only_layers.begin(), mlp_only_layers.end(), layer) != mlp_only_layers.end()) return false;
  return (layer + 1) % decoder_sparse_step == 0;
}

namespace {
double attention_params(const ModelConfig& m) {
  const double q = static_cast<double>(m.heads * m.head_dim), kv = static_cast<double>(m.kv_heads * m.head_dim);
  double p = m.hidden * (q + 2 * kv) + q * m.hidden;
  if (m.qkv_bias) p += q + 2 * kv;
  if (m.qk_norm) p += 2.0 * m.head_dim;
  return p + 2.0 * m.hidden;  // two RMSNorm weights per layer
}
double moe_block_params(const ModelConfig& m, double experts_counted) {
  double p = experts_counted * 3.0 * m.hidden * m.moe_intermediate + static_cast<double>(m.hidden) * m.experts;
  if (m.shared_expert_intermediate > 0) p += 3.0 * m.hidden * m.shared_expert_intermediate + m.hidden;
  return p;
}
double params(const ModelConfig& m, bool active) {
  double p = static_cast<double>(m.vocab) * m.hidden * (m.tied_embeddings ? 1 : 2) + m.hidden;  // + final norm
  for (int64_t l = 0; l < m.layers; ++l) {
    p += attention_params(m);
    if (m.is_moe_layer(l))
      p += moe_block_params(m, static_cast<double>(active ? m.experts_per_token : m.experts));
    else
      p += 3.0 * m.hidden * m.intermediate;
  }
  return p;
}
}  // namespace

double ModelConfig::param_count() const { return params(*this, false); }

std::string position_warning(const ModelConfig& m, int64_t positions) {
  if (m.max_positions <= 0 || positions <= m.max_positions) return "";
  return "a sequence reaches " + std::to_string(positions) + " token positions, beyond " + m.name +
         "'s max_position_embeddings (" + std::to_string(m.max_positions) +
         "): the model was not built for it (it needs RoPE scaling); loom prices it as asked";
}
std::string sliding_window_warning(const ModelConfig& m, int64_t positions) {
  if (m.sliding_window <= 0 || positions <= m.sliding_window) return "";
  return m.name + "'s sliding_window (" + std::to_string(m.sliding_window) + ") is not modelled: a sequence reaches " +
         std::to_string(positions) + " token positions and its attention is priced over all of them (an upper bound)";
}

double ModelConfig::active_param_count() const { return params(*this, true); }

ModelConfig parse_model_config(const std::string& json_text, const std::string& source) {
  const json j = parse_strict_json(json_text, source,
                                   {"; JSON readers disagree on which value wins: give it once", std::string::npos,
                                    "malformed JSON; a Hugging Face config.json is expected", true,
                                    "unreadable JSON ({what}); a Hugging Face config.json is expected"});
  if (!j.is_object()) throw InputError(source + ":1", "config.json must be a JSON object");
  Reader r{j, json_text, source};
  ModelConfig m;
  m.source_file = source;
  if (!r.present("model_type") || !j.at("model_type").is_string())
    throw InputError(source, "missing field 'model_type' (a string such as \"llama\")");
  m.model_type = j.at("model_type").get<std::string>();
  const auto& types = supported_types();
  if (std::find(types.begin(), types.end(), m.model_type) == types.end()) {
    std::string list;
    for (const auto& t : types) list += (list.empty() ? "" : ", ") + t;
    throw InputError(r.at("model_type"), "unsupported model_type '" + m.model_type + "'; supported: " + list);
  }
  m.hidden = r.integer("hidden_size");
  m.layers = r.integer("num_hidden_layers");
  m.heads = r.integer("num_attention_heads");
  m.kv_heads = r.integer_or("num_key_value_heads", m.heads);
  m.vocab = r.integer("vocab_size");
  m.max_positions = r.integer_or("max_position_embeddings", 0);
  // Qwen configs carry a sliding_window that use_sliding_window: false turns off; Mistral's has no switch.
  if (r.boolean_or("use_sliding_window", true)) m.sliding_window = r.integer_or("sliding_window", 0);
  if (r.present("head_dim")) {
    m.head_dim = r.integer("head_dim");
  } else {
    if (m.hidden % m.heads != 0)
      throw InputError(r.at("num_attention_heads"), "hidden_size is not a multiple of num_attention_heads; "
                                                     "add an explicit head_dim");
    m.head_dim = m.hidden / m.heads;
  }
  if (m.heads % m.kv_heads != 0)
    throw InputError(r.at("num_key_value_heads"), "num_attention_heads (" + std::to_string(m.heads) +
                                                      ") is not a multiple of num_key_value_heads (" +
                                                      std::to_string(m.kv_heads) + ")");
  // Every supported model class defaults tie_word_embeddings to false (LlamaConfig, Qwen2Config, ... in HF).
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.dtype = parse_torch_dtype(r);
  check_unused_fields(r);
  // A quantized checkpoint (AWQ, GPTQ, FP8...) was priced as unquantized weights of torch_dtype without a word.
  if (r.present("quantization_config") && !r.j.at("quantization_config").is_null()) {
    const json& q = r.j.at("quantization_config");
    const std::string method = q.is_object() && q.contains("quant_method") && q.at("quant_method").is_string()
                                   ? " (" + q.at("quant_method").get<std::string>() + ")" : "";
    throw InputError(r.at("quantization_config"),
                     "quantization_config" + method + " is not modelled: loom prices " +
                         "bfloat16/float16/float32 weights; remove it to price the unquantized model");
  }
  m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe";  // Qwen3Attention.q_norm / k_norm
  m.qkv_bias = m.model_type == "qwen2" || m.model_type == "qwen2_moe" || r.boolean_or("attention_bias", false);

  if (m.model_type == "mixtral") {
    m.experts = r.integer("num_local_experts");
    m.experts_per_token = r.integer("num_experts_per_tok");
    m.moe_intermediate = r.integer("intermediate_size");  // Mixtral's experts use intermediate_size
    m.intermediate = m.moe_intermediate;
  } else if (m.model_type == "qwen2_moe" || m.model_type == "qwen3_moe") {
    m.experts = r.integer("num_experts");
    m.experts_per_token = r.integer("num_experts_per_tok");
    m.moe_intermediate = r.integer("moe_intermediate_size");
    m.intermediate = r.integer("intermediate_size");  // dense layers (mlp_only_layers / sparse step)
    m.decoder_sparse_step = r.integer_or("decoder_sparse_step", 1);
    if (m.model_type == "qwen2_moe") m.shared_expert_intermediate = r.integer_or("shared_expert_intermediate_size", 0);
    if (r.present("mlp_only_layers")) {
      const json& v = j.at("mlp_only_layers");
      if (!v.is_array()) throw InputError(r.at("mlp_only_layers"), "'mlp_only_layers' must be a list of layer indices");
      for (const auto& x : v) {
        if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() >= m.layers)
          throw InputError(r.at("mlp_only_layers"),
                           "'mlp_only_layers' holds " +
                               x.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                               ", not a layer index in [0, num_hidden_layers)");
        m.mlp_only_layers.push_back(x.get<int64_t>());
      }
    }
  } else {
    m.intermediate = r.integer("intermediate_size");
  }
  if (m.is_moe() && m.experts_per_token > m.experts)
    throw InputError(r.at("num_experts_per_tok"), "num_experts_per_tok (" + std::to_string(m.experts_per_token) +
                                                      ") exceeds the number of experts (" +
                                                      std::to_string(m.experts) + ")");
  m.name = fs::path(source).stem().string();
  if (m.name == "config") m.name = fs::path(source).parent_path().filename().string();
  return m;
}

std::vector<std::string> model_presets() {
  std::vector<std::string> names;
  const fs::path dir = fs::path(data_dir()) / "models" / "presets";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig load_model(const std::string& name_or_path) {
  fs::path path = name_or_path;
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
  if (!looks_like_path) {
    path = fs::path(data_dir()) / "models" / "presets" / (name_or_path + ".json");
    if (!fs::exists(path)) {
      std::string list;
      for (const auto& n : model_presets()) list += (list.empty() ? "" : ", ") + n;
      if (list.empty())  // LOOM_HOME without models/presets: "unknown model 'llama-3-8b' ... a preset: " named nothing
        throw InputError(path.parent_path().string(), "no model presets (*.json) here; set LOOM_HOME to loom's data "
                                                      "directory, or give a config.json path");
      throw InputError("--model", "unknown model '" + name_or_path + "'" + did_you_mean(name_or_path, model_presets()) +
                                      "; give a config.json path or a preset: " + list);
    }
  } else if (fs::is_directory(path)) {
    path /= "config.json";
  }
  ModelConfig m = parse_model_config(read_file(path.string()), path.string());
  if (!looks_like_path) m.name = name_or_path;
  return m;
}

}  // namespace loom
