// Fused-MoE config files in the engines' format (see engine_export.h).
#include "wave/engine_export.h"

#include <limits>

#include "core/error.h"

namespace loom::wave {

const std::vector<int64_t>& engine_batch_sizes() {
  static const std::vector<int64_t> m = {1,   2,   4,   8,   16,   24,   32,   48,   64,
                                         96,  128, 256, 512, 1024, 1536, 2048, 3072, 4096};
  return m;
}

std::string moe_config_file_name(const MoeLayerShape& l, const std::string& device_name, const std::string& dtype) {
  std::string dev = device_name;
  for (char& c : dev)
    if (c == ' ') c = '_';
  return "E=" + std::to_string(l.experts) + ",N=" + std::to_string(l.inter) + ",device_name=" + dev +
         (dtype == "fp8" ? ",dtype=fp8_w8a8" : "") + ".json";
}

std::vector<EngineChoice> choose_engine_configs(const CompiledTables& t, const MoeLayerShape& l,
                                                const std::vector<int64_t>& batch_sizes, int64_t max_measured_m) {
  if (!t.moe || t.macros.empty()) throw InputError(t.gpu + "-" + t.family, "not fused-MoE tuning tables");
  std::vector<EngineChoice> out;
  for (int64_t m : batch_sizes) {
    TuneShape s13;
    s13.family = "moe", s13.impl = "triton", s13.tokens = m, s13.experts = l.experts, s13.topk = l.topk;
    s13.hidden = l.hidden, s13.inter = l.inter, s13.stage = 13;
    TuneShape s2 = s13;
    s2.stage = 2;
    double best = std::numeric_limits<double>::infinity();
    size_t best_i = 0;
    EngineChoice e;
    e.m = m;
    if (!t.per_config.empty()) {  // the per-config model: every config's two GEMMs
      for (size_t i = 0; i < t.per_config.size(); ++i) {
        const double us = predict_config(t, i, s13) + predict_config(t, i, s2);
        if (us < best) best = us, best_i = i;
      }
      e.config = int(best_i);
      e.w13_us = predict_config(t, best_i, s13), e.w2_us = predict_config(t, best_i, s2);
      e.extrapolated = m > max_measured_m;
      out.push_back(e);
      continue;
    }
    for (size_t i = 0; i < t.macros.size(); ++i) {
      const double us = predict_macro(t, i, s13) + predict_macro(t, i, s2);
      if (us < best) best = us, best_i = i;
    }
    Choice c13, c2;
    e.w13_us = predict_macro(t, best_i, s13, &c13);
    e.w2_us = predict_macro(t, best_i, s2, &c2);
    e.config = t.macros[best_i].micro[size_t(c13.bucket) * kLAnchors + size_t(c13.anchor)];
    e.extrapolated = c13.borrowed || c2.borrowed || m > max_measured_m;
    out.push_back(e);
  }
  return out;
}

nlohmann::ordered_json engine_config_json(const CompiledTables& t, const std::vector<EngineChoice>& choices) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& e : choices) {
    const TuneConfig c = parse_tune_config(t.family, t.configs[size_t(e.config)], t.gpu + "-" + t.family);
    j[std::to_string(e.m)] = nlohmann::ordered_json{{"BLOCK_SIZE_M", c.bm},   {"BLOCK_SIZE_N", c.bn},
                                                    {"BLOCK_SIZE_K", c.bk},   {"GROUP_SIZE_M", c.group},
                                                    {"num_warps", c.warps},   {"num_stages", c.stages}};
  }
  return j;
}

}  // namespace loom::wave
