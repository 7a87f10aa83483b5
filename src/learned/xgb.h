// Training gradient-boosted trees with the real XGBoost library (C API, Debian's libxgboost 1.7).
// Inference at run time goes through Forest (forest.h), which evaluates the saved JSON trees natively.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom {

struct XgbParams {
  int rounds = 400;
  int max_depth = 6;
  double eta = 0.05;
  double subsample = 0.8;
  double colsample_bytree = 0.8;
  double min_child_weight = 2;
  double lambda = 1.0;
  int nthread = 1;     ///< 1 thread: the same data and seed give a bit-identical model on any machine
  uint64_t seed = 42;
  /// 0 = squared error on the label; q in (0,1) = pinball (quantile) loss through a custom gradient, since
  /// XGBoost 1.7 has no quantile objective.
  double quantile = 0;
};

/// Trains on a dense row-major matrix (rows x cols) with labels; returns the model as XGBoost JSON.
/// Throws std::runtime_error with XGBoost's message on failure.
std::string xgb_train(const std::vector<float>& x, size_t rows, size_t cols, const std::vector<float>& y,
                      const XgbParams& params);

/// Predicts with XGBoost itself from a JSON model (reference path, used by tests to check Forest).
std::vector<float> xgb_predict(const std::string& model_json, const std::vector<float>& x, size_t rows, size_t cols);

}  // namespace loom
