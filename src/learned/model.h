// The learned efficiency model: gradient-boosted trees predicting log(measured / analytical ceiling) from the
// analytical features, one model per kernel family (or one global model with a family one-hot), plus a
// low-quantile model of the same target that gives an "achievable" latency (what the best kernels of that kind reach).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "learned/dataset.h"
#include "learned/forest.h"
#include "learned/xgb.h"

namespace loom {

struct TrainOptions {
  bool per_family = true;             ///< false: one global model
  size_t min_family_samples = 200;    ///< below this a family uses the global model
  double achievable_quantile = 0.1;   ///< quantile of log(measured/ceiling) used as "achievable"
  XgbParams params;
  /// max_depth for the forests of one family (the forest key before any "@impl"), overriding params.max_depth:
  /// GEMMs, ~300k rows of kernels cuBLAS picks by shape, fit better with deeper trees than the small families.
  std::map<std::string, int> depth_by_family;
  /// params with the family's own depth, for the forest stored under `key` ("gemm", "gemm@cutlass", "moe", ...).
  XgbParams params_for(const std::string& key) const;
  /// Features held constant in training (so no tree splits on them and predictions ignore them): e.g. the
  /// per-GPU constants when only two GPUs are in the training set, where they can only memorise GPU identity.
  std::vector<std::string> masked_features;
};

class EfficiencyModel {
 public:
  /// Trains on the samples at `rows` of `ds`. progress(step, steps) is called per model trained.
  static EfficiencyModel train(const Dataset& ds, const std::vector<size_t>& rows, const TrainOptions& opt,
                               const std::function<void(size_t, size_t, const std::string&)>& progress = {});
  /// Reads <dir>/model.json (the index) and checks the model files it lists exist; each forest is loaded on first
  /// use (from the packed binary cache when it matches, else from its XGBoost JSON). Throws InputError.
  static EfficiencyModel load(const std::string& dir);
  /// Writes the XGBoost JSON files and <dir>/model.json (the index). Returns the files written.
  std::vector<std::string> save(const std::string& dir) const;

  /// Predicted log(measured / ceiling) for a feature row; nullopt if no model covers the family (the caller then
  /// uses the analytical prediction).
  std::optional<double> predict_log_ratio(const std::string& family, const float* x) const;
  std::optional<double> predict_achievable_log_ratio(const std::string& family, const float* x) const;
  /// The forest for a family (suffix "" = latency, ".q" = achievable), or the global one; nullptr if none. Loads it
  /// on first use (thread-safe). Throws InputError if its file is unreadable or does not match the index.
  const Forest* find(const std::string& family, const char* suffix) const;
  const std::vector<std::string>& feature_names() const { return feature_names_; }
  /// FNV-1a hash over every model file's bytes: equal hashes = bit-identical models.
  std::string fingerprint() const;
  bool empty() const { return entries_.empty(); }

 private:
  /// One forest: its JSON (kept for trained models; read on demand for loaded ones) and the parsed form.
  struct Entry {
    std::string file;   ///< .json.gz path ("" for a freshly trained model)
    std::string hash;   ///< FNV-1a of the JSON
    std::string index;  ///< model.json path, for error messages
    std::string json;
    std::unique_ptr<Forest> forest;
    std::once_flag once;
  };
  const std::string& json_of(Entry& e) const;
  std::vector<std::string> feature_names_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;  ///< key ("gemm", "gemm.q", "_all", "_all.q")
};

/// FNV-1a 64-bit hash, hex.
std::string fnv1a_hex(const std::string& bytes, uint64_t seed = 1469598103934665603ull);

}  // namespace loom
