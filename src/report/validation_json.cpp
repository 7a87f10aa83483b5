// `loom validate --format json` -> the report's predicted-vs-measured scatters (learned vs analytical baseline).
#include <map>

#include "report/json_obj.h"
#include "report/loom_json.h"

namespace loom::report {

ValidationData validation_from_json(const json& j, const std::string& where) {
  Obj top(j, "$", where, {});  // splits, groups, worst, failures, ...: read by other tools, not needed here
  top.require_schema("loom.validate", 1, "loom validate --format json --out FILE");
  ValidationData v;
  v.model_fingerprint = top.str("model_fingerprint");
  v.corpus_hash = top.str("corpus_hash");
  if (!top.get("points", false))
    top.fail("$.points", "required key missing; this file predates per-kernel points: rerun `loom validate "
                         "--format json --out FILE`");
  top.each("points", [&](const json& e, const std::string& p) {
    Obj pt(e, p, where, {"split", "spec", "family", "gpu", "sms", "measured_us", "predicted_us"});
    Obj pred(*pt.get("predicted_us", true), p + ".predicted_us", where, {"learned", "analytical", "roofline"});
    ValidationPoint vp{pt.str("split", true),
                       pt.str("spec", true),
                       pt.str("family", true),
                       pt.str("gpu", true),
                       pt.integer("sms"),
                       pt.number("measured_us"),
                       pred.number("learned"),
                       pred.number("analytical"),
                       pred.number("roofline", false)};
    if (!(vp.measured_us > 0)) pt.fail(p + ".measured_us", "must be a positive time in microseconds");
    v.points.push_back(std::move(vp));
  });
  return v;
}

namespace {

/// "gpu:h100" -> "Held-out GPU h100 (model trained on other GPUs)"; "shapes" -> "Held-out shapes (...)".
std::string split_title(const std::string& split) {
  if (split == "shapes") return "Held-out shapes: learned model vs measured (1 in 5 shapes never seen in training)";
  if (split.rfind("gpu:", 0) == 0)
    return "Held-out GPU " + split.substr(4) + ": learned model vs measured (trained on another GPU only)";
  if (split.rfind("arch:", 0) == 0)
    return "Held-out architecture " + split.substr(5) +
           ": learned model vs measured (trained on every other architecture)";
  return "Split " + split + ": learned model vs measured";
}

}  // namespace

std::vector<ScatterChart> validation_scatters(const ValidationData& v) {
  std::vector<std::string> order;
  std::map<std::string, ScatterChart> by_split;
  for (const auto& p : v.points) {
    auto [it, fresh] = by_split.try_emplace(p.split);
    if (fresh) {
      if (p.split == "shapes") order.insert(order.begin(), p.split);
      else order.push_back(p.split);
      it->second.title = split_title(p.split);
      it->second.predicted_name = "learned";
      it->second.baseline_name = "analytical";
    }
    std::string label = p.spec + (p.sms > 0 ? " [" + std::to_string(p.sms) + " SMs]" : "");
    it->second.points.push_back({label, p.family, p.gpu, p.measured_us, p.learned_us, p.analytical_us});
  }
  std::vector<ScatterChart> out;
  for (const auto& s : order) out.push_back(std::move(by_split[s]));
  return out;
}

nlohmann::json loom_json_text(const std::string& text, const std::string& where) {
  return parse_json_text(text, where, "give the file a loom command wrote with --format json");
}

}  // namespace loom::report
