// The cost of one serving iteration on one replica (one pipeline stage), from loom's step model: the op graph of
// the ragged batch, predicted kernel by kernel and laid out under the engine's execution mode. Iterations of a
// simulation repeat the same few shapes, so costs are cached by a bucketed key (by default <= 2% apart in every
// dimension).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "e2e/e2e.h"

namespace loom::serving {

/// What one iteration computes: decoding requests (one token each over their KV) and prefill chunks.
struct BatchShape {
  int64_t decodes = 0;
  int64_t decode_kv = 0;          ///< sum over decodes of the keys attended (context + 1)
  int64_t decode_kv_max = 0;      ///< the longest decode's keys
  int64_t prefills = 0;
  int64_t prefill_tokens = 0;     ///< sum of chunk lengths
  double prefill_pairs = 0;       ///< sum over chunks of q x (context + (q + 1) / 2): causal attention work
  int64_t tokens() const { return decodes + prefill_tokens; }
  int64_t requests() const { return decodes + prefills; }
};

class StepCost {
 public:
  /// `stage_model` holds the layers of one pipeline stage. `predictor` empty = the analytical model.
  /// `resolution`: the relative spacing of the buckets (0.02 = 2%).
  StepCost(const GpuSpec& gpu, const ModelConfig& stage_model, const ServingProfile& profile, int tp,
           KernelPredictor predictor, double resolution = 0.02);
  /// Predicted wall time (us) of the iteration, CUDA-graph padding included for decode-only batches within the
  /// profile's capture sizes. `extra_host_us` is host time the step spends beyond its launches (an eager step of a
  /// shape the process has not run before): it delays the launches, so it shows only where the host, not the GPU,
  /// bounds the step. It is in the profile's host time (host_time_scale applies). Throws InputError when the step model
  /// rejects the shape.
  double step_us(const BatchShape& b, double extra_host_us = 0);
  /// `--clock auto` for serving: the step as a whole decides, as in `loom e2e` (a step of many short kernels
  /// throttles as one long kernel does). With `sustained` set (the kernel predictor fully throttled), a step whose
  /// boost GPU time runs past the GPU's measured onset is priced boost + w x (sustained - boost), w = the share of
  /// its GPU time past the onset (analytical/sustained_load.h). Unset (default): every step as the predictor says.
  void set_step_clock(KernelPredictor sustained);
  /// The decode batch size a CUDA graph would run (the next capture size), or 0 when the step runs eagerly.
  int64_t graph_batch(const BatchShape& b) const;
  size_t cached_shapes() const { return cache_.size(); }
  int64_t evaluations() const { return evaluations_; }

 private:
  const GpuSpec& gpu_;
  const ModelConfig& model_;
  const ServingProfile& profile_;
  int tp_;
  double resolution_;
  KernelPredictor predict_, predict_sustained_;
  /// A bucketed batch composition: decodes (or the CUDA-graph size), their keys, prefill chunks, chunk length and
  /// context, the step's tokens, and flags (graph, priced at the longest sequence).
  struct ShapeKey {
    int64_t decodes, kv, prefills, chunk, context, tokens, flags;
    bool operator==(const ShapeKey&) const = default;
  };
  struct ShapeKeyHash {
    size_t operator()(const ShapeKey& k) const {
      uint64_t h = 1469598103934665603ULL;
      for (int64_t v : {k.decodes, k.kv, k.prefills, k.chunk, k.context, k.tokens, k.flags})
        h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ULL;
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<std::string, double> kernel_memo_, sustained_memo_;
  struct Cost {
    double wall_us;      ///< the step's wall time
    double host_end_us;  ///< when the GPU could finish if it waited only for the host: last issue + last kernel
  };
  std::unordered_map<ShapeKey, Cost, ShapeKeyHash> cache_;
  int64_t evaluations_ = 0;
};

/// Rounds to a geometric grid `resolution` apart above 32 (exact below): the bucket of a cached step dimension.
int64_t bucket(int64_t x, double resolution = 0.02);

}  // namespace loom::serving
