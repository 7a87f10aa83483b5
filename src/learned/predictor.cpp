// Predictor: analytical analysis + learned correction.
#include "learned/predictor.h"

#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "hw/catalog.h"
#include "learned/dataset.h"

namespace loom {

std::string default_model_dir() { return data_dir() + "/models/efficiency"; }

Predictor::Predictor(const std::string& mode, const std::string& models_dir) {
  if (mode != "learned" && mode != "analytical")
    throw InputError("--model", "unknown model '" + mode + "'; use learned or analytical");
  if (mode == "analytical") return;
  const std::string dir = models_dir.empty() ? default_model_dir() : models_dir;
  if (!models_dir.empty() || std::filesystem::exists(dir + "/model.json"))
    model_ = std::make_shared<EfficiencyModel>(EfficiencyModel::load(dir));
}

Prediction Predictor::predict(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const {
  Prediction p;
  p.analysis = analyze(gpu, spec);
  p.model = "analytical";
  p.latency_us = p.analysis.latency_us;
  if (!model_) return p;
  auto impl = spec.params.find("impl");
  const std::string impl_cls =
      impl_class(impl != spec.params.end() ? impl->second : default_impl(p.analysis.family));
  Sample s = make_sample(p.analysis, gpu, impl_cls);
  const std::string key = model_key(p.analysis.family, impl_cls);
  if (s.x.size() != model_->feature_names().size())
    throw InputError(default_model_dir(), "the efficiency model was trained on " +
                                              std::to_string(model_->feature_names().size()) + " features, loom now computes " +
                                              std::to_string(s.x.size()) + "; retrain with `loom train`");
  if (auto r = model_->predict_log_ratio(key, s.x.data())) {
    p.model = "learned";
    p.latency_us = p.analysis.ceiling_us * std::exp(*r);
    if (!with_achievable) return p;
    if (auto q = model_->predict_achievable_log_ratio(key, s.x.data()))
      p.achievable_us = std::min(p.latency_us, p.analysis.ceiling_us * std::exp(*q));
  }
  return p;
}

}  // namespace loom
