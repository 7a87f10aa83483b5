// Predictor: analytical analysis + learned correction.
#include "learned/predictor.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "hw/catalog.h"
#include "analytical/features.h"
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
  if (!model_) return;
  // A model trained before features were appended still predicts: its features are found by name. A feature it
  // needs that loom no longer computes is an error (retrain).
  std::vector<std::string> now = analysis_feature_names();
  for (const auto& n : impl_feature_names()) now.push_back(n);
  if (model_->feature_names() == now) return;
  for (const auto& n : model_->feature_names()) {
    auto it = std::find(now.begin(), now.end(), n);
    if (it == now.end())
      throw InputError(dir, "the efficiency model uses feature '" + n + "', which loom no longer computes; retrain with `loom train`");
    remap_.push_back(size_t(it - now.begin()));
  }
}

Prediction Predictor::predict(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const {
  Prediction p;
  p.analysis = analyze(gpu, spec);
  p.model = "analytical";
  p.latency_us = p.analysis.latency_us;
  if (!model_) return p;
  auto impl = spec.params.find("impl");
  Sample s = make_sample(p.analysis, gpu, impl != spec.params.end() ? impl->second : default_impl(p.analysis.family));
  if (!remap_.empty()) {
    std::vector<float> x(remap_.size());
    for (size_t i = 0; i < remap_.size(); ++i) x[i] = s.x[remap_[i]];
    s.x = std::move(x);
  }
  if (s.x.size() != model_->feature_names().size())
    throw InputError(default_model_dir(), "the efficiency model was trained on " +
                                              std::to_string(model_->feature_names().size()) + " features, loom now computes " +
                                              std::to_string(s.x.size()) + "; retrain with `loom train`");
  if (auto r = model_->predict_log_ratio(p.analysis.family, s.x.data())) {
    p.model = "learned";
    p.latency_us = p.analysis.ceiling_us * std::exp(*r);
    if (!with_achievable) return p;
    if (auto q = model_->predict_achievable_log_ratio(p.analysis.family, s.x.data()))
      p.achievable_us = std::min(p.latency_us, p.analysis.ceiling_us * std::exp(*q));
  }
  return p;
}

}  // namespace loom
