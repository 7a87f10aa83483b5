// The one way loom predicts a kernel: the analytical model, corrected by the learned efficiency model when one
// covers the family (the default), or the pure analytical prediction (--model analytical).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analytical/analysis.h"
#include "learned/model.h"

namespace loom {

struct Prediction {
  Analysis analysis;
  std::string model;                     ///< "learned" | "analytical"
  double latency_us = 0;                 ///< the prediction
  std::optional<double> achievable_us;   ///< learned low-quantile latency: what the best kernels of this kind reach
};

class Predictor {
 public:
  /// mode "learned" loads <models_dir> (default data_dir()/models/efficiency) if present, else behaves as
  /// "analytical"; mode "analytical" never loads a model. Other modes throw InputError("--model", ...).
  explicit Predictor(const std::string& mode = "learned", const std::string& models_dir = "");
  /// `with_achievable` = false skips the low-quantile model (end-to-end composition needs only the latency).
  Prediction predict(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable = true) const;
  /// Latency only (for end-to-end composition).
  double latency_us(const GpuSpec& gpu, const KernelSpec& spec) const { return predict(gpu, spec, false).latency_us; }
  bool learned() const { return model_ != nullptr; }

 private:
  std::shared_ptr<EfficiencyModel> model_;
  /// When the model was trained on an older feature list: for each of its features, the index in today's vector.
  std::vector<size_t> remap_;
};

/// Default directory of the committed efficiency model.
std::string default_model_dir();

}  // namespace loom
