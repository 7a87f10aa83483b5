// The one way loom predicts a kernel: the analytical model, corrected by the learned efficiency model when one
// covers the family (the default), or the pure analytical prediction (--model analytical).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analytical/analysis.h"
#include "analytical/sustained_load.h"
#include "learned/collectives.h"
#include "learned/model.h"
#include "learned/transfer.h"

namespace loom {

class PredictMemo;


struct Prediction {
  /// The analytical model's analysis, immutable once made: predictions of the same inputs (rows served by the memo,
  /// rows repeated in a batch, copies) share it instead of copying its strings, pipe list and notes. Never null in a
  /// prediction from Predictor.
  std::shared_ptr<const Analysis> analysis;
  std::string model;                     ///< "learned" | "analytical"
  double latency_us = 0;                 ///< the prediction
  std::optional<double> achievable_us;   ///< learned low-quantile latency: what the best kernels of this kind reach
  bool at_ceiling = false;               ///< the learned model went below the speed-of-light ceiling: clamped to it
  std::optional<CollectiveEstimate> collective;  ///< all_reduce from models/collectives.json (model "collective-fit")
  double clock_factor = 1.0;  ///< latency multiplier of the clock mode (sustained load; analytical/sustained_load.h)
  /// The learned correction's weight: below 1 where the family was never measured on the GPU's architecture and
  /// the prediction is blended with the analytical model (learned/transfer.h).
  double transfer_weight = 1.0;
  /// An l2=warm learned row whose warm ceiling (its slowest non-DRAM pipe: the inputs come from L2) is below the
  /// analysis's cold one: that ceiling, to which the latency is clamped; else unset. The shared analysis is left as
  /// it is: read the ceiling and bottleneck through ceiling_us() and bottleneck(), or print shown_analysis().
  std::optional<double> warm_ceiling_us;
  int warm_pipe = -1;  ///< with warm_ceiling_us: that pipe's index in analysis->pipes (-1: no pipe has any time)

  /// The ceiling the latency is bounded by (the warm one where set) and its pipe.
  double ceiling_us() const { return warm_ceiling_us ? *warm_ceiling_us : analysis->ceiling_us; }
  const std::string& bottleneck() const {
    return warm_pipe >= 0 ? analysis->pipes[warm_pipe].pipe : analysis->bottleneck;
  }
  /// The analysis as this prediction prints it: the shared one, or for a warm-clamped row a copy with the warm
  /// ceiling, its pipe as the bottleneck and a note saying why (made on demand: only printers ask).
  std::shared_ptr<const Analysis> shown_analysis() const;
};

/// Refuses a kernel whose compulsory DRAM traffic (its operands) exceeds the GPU's memory: no such kernel runs on
/// one GPU. Throws InputError(where, ...). The CLI, the Python module and the C API call it on every prediction.
void require_fits_memory(const Prediction& p, const GpuSpec& gpu, const std::string& where);
/// The same check for operands of `need_bytes` (callers without an analysis, e.g. `loom tune`).
void require_operands_fit(double need_bytes, const GpuSpec& gpu, const std::string& where);

class Predictor {
 public:
  /// mode "learned" loads <models_dir> (default data_dir()/models/efficiency) if present, else behaves as
  /// "analytical", and models/collectives.json (all_reduce) if present; mode "analytical" never loads a model. Other
  /// modes throw InputError("--model", ...).
  explicit Predictor(const std::string& mode = "learned", const std::string& models_dir = "");
  /// `with_achievable` = false skips the low-quantile model (end-to-end composition needs only the latency).
  Prediction predict(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable = true) const;
  /// Predictions of many kernels at once: gpus[i] runs specs[i]; out[i] gets exactly what predict() would give
  /// (rows are grouped by family and each family's forest walks them in blocks: Forest::predict_batch). Throws the
  /// first row's InputError, as predict() would. `out` is reused (its capacity is kept between calls). `threads` > 1
  /// analyses the rows on that many threads (results do not depend on it). A row whose inputs (GPU values, family,
  /// parameters, with_achievable) an earlier call of this predictor or a copy of it predicted is served from an
  /// exact memo of the last 8-16k such rows (learned/predict_memo.h) instead of being analysed again.
  /// `with_text` = false leaves each analysis's human text empty (kernel, config_reason, notes: analyze()'s
  /// with_text) for callers that print none of it, such as CSV output; every value is the same.
  /// With `failed`, a row whose inputs are refused (an InputError: a GPU without the kernel's dtype, ...) is marked
  /// (*failed)[i] = 1 and its prediction left empty instead of throwing, and every other row is predicted as ever;
  /// other errors still throw.
  void predict_many(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                    bool with_achievable, std::vector<Prediction>& out, int threads = 1, bool with_text = true,
                    std::vector<uint8_t>* failed = nullptr) const;
  /// Latency only (for end-to-end composition).
  double latency_us(const GpuSpec& gpu, const KernelSpec& spec) const { return predict(gpu, spec, false).latency_us; }
  bool learned() const { return model_ != nullptr; }
  /// Forgets predict_many's memo of earlier rows, which copies of this predictor share (benchmarks of cold
  /// predictions, as clear_kernel_cost_cache).
  void clear_memo() const;
  /// Kernels as from a cool start (boost, the default), under sustained load (each latency times
  /// 1 + (sustained_load_factor - 1) * weight; weight 1 = fully throttled, a step's share past the onset in
  /// `loom e2e --clock auto`), or automatic (each kernel's own share past the onset). Prediction::clock_factor
  /// records the multiplier.
  void set_clock(ClockMode mode, double weight = 1.0) { clock_ = mode, clock_weight_ = weight; }
  ClockMode clock() const { return clock_; }
  /// The one post-processing of a learned log-ratio (and optional achievable log-ratio) into a prediction; every
  /// path (single, batch) goes through it, so corrections added here apply everywhere: a cold-L2 kernel is never
  /// predicted below its speed-of-light ceiling (clamped, at_ceiling set).
  static void apply_learned(Prediction& p, double log_ratio, const std::optional<double>& achievable_log_ratio);

 private:
  /// Feature row of an analysed kernel (make_sample's values, without allocating) into out[0..model width);
  /// throws InputError when the model's width differs from what loom computes.
  void features(const Prediction& p, const GpuSpec& gpu, const KernelSpec& spec, float* out) const;
  /// all_reduce from the measured collective fits when they cover it (returns true and sets p).
  bool apply_collective(Prediction& p, const GpuSpec& gpu, const KernelSpec& spec) const;
  Prediction predict_cool(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const;
  /// A GPU changed by --set (GpuSpec::anchor): the anchor's prediction x analytical(changed) / analytical(anchor),
  /// never below the changed GPU's ceiling. Learned forests are not asked about hardware no GPU had (a +20% clock
  /// made a learned H200 GEMM 15% slower).
  Prediction predict_anchored(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const;
  void predict_many_cool(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                         bool with_achievable, std::vector<Prediction>& out, int threads, bool with_text,
                         std::vector<uint8_t>* failed) const;
  /// A learned log-ratio as loom trusts it on a GPU: unchanged where the family was measured on the GPU's
  /// architecture (w = 1), else blended with the analytical model by the family's transfer weight w
  /// (learned/transfer.h), from transfer_weight(family, gpu); a w below 1 is recorded in p.transfer_weight.
  static double transferred(Prediction& p, double w, double log_ratio);
  /// The learned correction's weight for `family` on `gpu` (TransferWeights::weight_for; 1 without transfer.json).
  double transfer_weight(const std::string& family, const GpuSpec& gpu) const;
  /// The forest that predicts this kernel: its family's, or an implementation's own (model_key()).
  static std::string forest_key(const Prediction& p, const KernelSpec& spec);
  /// predict_many's phase 2 (learned/predict_walk.cpp): the forests walk the rows' features (x_all, a row of the
  /// model's width per row), rows with skip[i] odd excepted (1: served by the memo, 3: refused; their features are
  /// not read); on up to `threads`
  /// threads (the results do not depend on it).
  void walk_forests(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                    bool with_achievable, const float* x_all, const std::vector<uint8_t>& skip,
                    std::vector<Prediction>& out, int threads = 1) const;
  void apply_clock(Prediction& p, const GpuSpec& gpu) const;
  ClockMode clock_ = ClockMode::boost;
  double clock_weight_ = 1.0;
  std::shared_ptr<EfficiencyModel> model_;
  std::shared_ptr<CollectiveModel> collectives_;  ///< models/collectives.json, in learned mode when present
  std::shared_ptr<const TransferWeights> transfer_;  ///< <model dir>/transfer.json (every weight 1 when absent)
  /// When the model was trained on an older feature list: for each of its features, the index in today's vector.
  std::vector<size_t> remap_;
  /// predict_many's results by their inputs, across calls (learned/predict_memo.h); copies share it (their model,
  /// collective fits and feature map are the same, and it holds predictions before the clock mode).
  std::shared_ptr<PredictMemo> memo_;
};

/// Default directory of the committed efficiency model.
std::string default_model_dir();

}  // namespace loom
