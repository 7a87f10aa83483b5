// Validation of the learned model against measured kernels, with the pure roofline and the pure analytical model
// side by side, on three splits: held-out shapes, held-out SM partition, held-out GPU.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "learned/dataset.h"
#include "learned/model.h"

namespace loom {

struct ErrorStats {
  size_t n = 0;
  double mape = 0;        ///< mean absolute percentage error, %
  double median_ape = 0;  ///< %
  double p90_ape = 0;     ///< %
  double max_ape = 0;     ///< %
};

/// APE = 100 * |predicted - measured| / measured, summarised.
ErrorStats error_stats(const std::vector<double>& predicted, const std::vector<double>& measured);

struct WorstCase {
  std::string spec, gpu;
  int sms = 0;
  double measured_us = 0, predicted_us = 0, ape = 0;
};

/// One row of the report: a split x family x GPU x partition.
struct GroupResult {
  std::string split, family, gpu;
  int sms = 0;
  ErrorStats roofline, analytical, learned;
};

struct SplitResult {
  std::string split;        ///< "shapes" | "partition:<sms>" | "gpu:<key>" | "arch:<a>" | "lgo:<key>"
  std::string description;  ///< what was trained on and what was tested
  ErrorStats roofline, analytical, learned;  ///< over the whole test side
  std::string model_fingerprint;
};

struct ValidationReport {
  /// One test kernel of one split, with every model's prediction (for predicted-vs-measured scatters).
  struct Point {
    std::string split, spec, family, gpu;
    int sms = 0;
    double measured_us = 0, learned_us = 0, analytical_us = 0, roofline_us = 0;
  };
  std::vector<SplitResult> splits;
  std::vector<GroupResult> groups;
  std::vector<WorstCase> worst;  ///< the worst learned predictions over all splits
  std::vector<Point> points;     ///< every test kernel of the "shapes" and "gpu:*" splits (not partitions: size)
  /// Per family, the learned model's weight on an unseen architecture, chosen over every arch: split
  /// (learned/transfer.h); the arch: splits themselves are reported with weights chosen without their own.
  std::map<std::string, double> transfer_weights;
};

/// Which rows train and which test, for each split. Shapes: 1 in 5 shape groups (by hash with `seed`) is held out.
struct Split {
  std::string name, description;
  std::vector<size_t> train, test;
  std::vector<std::string> masked_features;  ///< held constant when training this split's model
};
/// Cross-GPU splits: "gpu:<key>" trains on `train_gpu` only and tests a GPU of the same architecture;
/// "arch:<a>" trains on every other architecture and tests architecture a (leave-one-architecture-out);
/// with `leave_one_gpu_out`, "lgo:<key>" trains on every other GPU and tests that one (one training per GPU).
std::vector<Split> make_splits(const Dataset& ds, uint64_t seed, const std::string& train_gpu = "h200",
                               bool leave_one_gpu_out = false);

/// Trains one model per split and evaluates it (learned latency = ceiling * exp(predicted log ratio)).
/// If `shapes_model` is given, it is used for the shapes split instead of training one.
ValidationReport validate(const Dataset& ds, const std::vector<Split>& splits, const TrainOptions& opt,
                          const EfficiencyModel* shapes_model = nullptr,
                          const std::function<void(const std::string&)>& progress = {});

/// Learned latency for one sample (falls back to the analytical latency when no model covers the family).
double learned_latency_us(const EfficiencyModel& model, const Sample& s);

}  // namespace loom
