// Native evaluation of an XGBoost JSON model (regression trees, squared-error or custom objective): flat node
// arrays with sibling children, a compact binary form (built from the JSON at build time, loaded in microseconds),
// and a batched evaluator that walks blocks of rows through each tree; numerically the same as XGBoost's predictor.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loom {

class Forest {
 public:
  /// Parses XGBoost's JSON model format (as saved by xgb_train). Throws std::runtime_error on a malformed model.
  static Forest from_json(const std::string& json);
  /// Reads the compact binary form written by to_binary(). Throws std::runtime_error if it is malformed.
  static Forest from_binary(std::string_view bytes);
  /// The same, walking the arrays where they lie in `bytes` (a mapped packed file: no copy, no page of its own),
  /// which `keep` holds alive for as long as the forest or a copy of it lives; where the arrays are not 4-byte
  /// aligned in memory they are copied, as from_binary does.
  static Forest from_binary_in_place(std::string_view bytes, std::shared_ptr<const void> keep);
  /// The compact binary form (little-endian, versioned; see forest.cpp).
  std::string to_binary() const;
  /// Margin prediction (base_score + sum of leaves) for one row of `num_features()` floats; NaN = missing.
  float predict(const float* x) const;
  /// Margins of `n` rows (row-major, `stride` floats apart, stride >= num_features()) into out[0..n). Each row
  /// gets the same additions in the same order as predict(), so the results are bit-identical to it.
  void predict_batch(const float* x, size_t n, size_t stride, float* out) const;
  /// Rows (over all calls) from which predict_batch builds the SIMD walk's layout (perfect()): until then it walks
  /// the trees as they are.
  static constexpr size_t kLayoutFrom = 2048;
  /// Builds that layout now (a long-lived caller that will walk many rows; tests of both walks).
  void prepare_batch_layout() const { perfect(); }
  size_t num_features() const { return num_features_; }
  size_t num_trees() const { return roots_.size(); }

 private:
  struct Node {
    float value;    ///< split threshold, or leaf weight
    int32_t left;   ///< split: index of the left child (the right one follows it); leaf: its own index
    uint32_t meta;  ///< bits 0-29 feature, bit 30 default_left, bit 31 split (0 = leaf)
  };
  static constexpr uint32_t kDefaultLeft = 1u << 30, kSplit = 1u << 31, kFeature = kDefaultLeft - 1;
  void validate() const;
  struct Perfect;
  /// The perfect-tree arrays (below) of this forest.
  Perfect build_perfect() const;
  /// The same trees, each as a perfect binary tree of the forest's greatest depth (for the AVX2 batch walk: a
  /// node's children are at 2i+1 and 2i+2, so no child index is loaded): per tree, (2^depth - 1) thresholds and
  /// words (feature | kDefaultLeft | kPassLeft: below a leaf, "always left" down to the leftmost slot, which holds the
  /// leaf's value), then 2^depth leaf values. depth 0 (no arrays) when the forest is of depth 0 or above 10.
  struct Perfect {
    int32_t depth = 0;
    std::vector<float> threshold;
    std::vector<uint32_t> word;
    std::vector<float> leaf;
  };
  static constexpr uint32_t kPassLeft = 1u << 29;
  /// Built on the first predict_batch (a one-row prediction never needs it), once, shared by copies of the forest;
  /// null in a default-constructed forest (then depth 0).
  const Perfect& perfect() const;
  struct PerfectOnce;
  std::shared_ptr<PerfectOnce> perfect_;
  /// What the arrays below point into: vectors of their own (from_json, from_binary) or a mapped file (keep);
  /// shared by copies of the forest, never changed once built.
  struct Store {
    std::vector<Node> nodes;
    std::vector<int32_t> roots, depth;
    std::shared_ptr<const void> keep;
  };
  void adopt(std::shared_ptr<const Store> store);
  static Forest read_binary(std::string_view bytes, std::shared_ptr<const void> keep);
  std::shared_ptr<const Store> store_;
  std::span<const Node> nodes_;
  std::span<const int32_t> roots_;
  std::span<const int32_t> depth_;  ///< levels of splits on the deepest path of each tree
  float base_score_ = 0;
  size_t num_features_ = 0;
};

}  // namespace loom
