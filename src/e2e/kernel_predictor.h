// The per-kernel model that end-to-end composition calls: (GPU, kernel spec) -> latency in microseconds, plus,
// for a predictor whose results depend only on those inputs, an identity under which they may be cached
// process-wide (the learned Predictor's are: a step, a what-if table or a sweep asks for the same shapes again).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"

namespace loom {

class Predictor;

class KernelPredictor {
 public:
  using Fn = std::function<double(const GpuSpec&, const KernelSpec&)>;
  /// Many kernels at once: out[i] = the latency of specs[i] on *gpus[i], exactly what Fn gives for it, on up to
  /// `threads` threads (the results do not depend on it); throws the first row's InputError as Fn would, or, when
  /// `failed` is not null, marks each row Fn would refuse with an InputError ((*failed)[i] = 1, out[i] unspecified)
  /// and prices the others.
  using BatchFn = std::function<void(const std::vector<const GpuSpec*>&, const std::vector<KernelSpec>&,
                                     std::vector<double>&, int threads, std::vector<uint8_t>* failed)>;

  KernelPredictor() = default;
  /// An opaque function (any callable): simulate_step caches its results for one call only.
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, KernelPredictor> &&
             std::is_invocable_r_v<double, F&, const GpuSpec&, const KernelSpec&>)
  KernelPredictor(F&& f) : fn_(std::forward<F>(f)) {}  // NOLINT(google-explicit-constructor): lambdas convert

  /// A function whose result depends only on the GPU's model-relevant fields and the spec, never on call order:
  /// cached process-wide under `cache_id`, which must name this function and no other (e.g. a per-instance serial).
  /// `batch`, when given, prices many kernels in one call (the learned forests walk rows in blocks): a what-if
  /// table prices its kernels ahead through it (price_ahead in e2e/timeline.h).
  static KernelPredictor pure(Fn fn, std::string cache_id, BatchFn batch = {}) {
    KernelPredictor k(std::move(fn));
    k.cache_id_ = std::move(cache_id);
    k.batch_ = std::move(batch);
    return k;
  }

  double operator()(const GpuSpec& gpu, const KernelSpec& spec) const { return fn_(gpu, spec); }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  /// Empty for an opaque predictor.
  const std::string& cache_id() const { return cache_id_; }
  /// Whether batch() is available (a pure predictor given a BatchFn).
  bool batched() const { return static_cast<bool>(batch_); }
  void batch(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs, std::vector<double>& out,
             int threads = 1, std::vector<uint8_t>* failed = nullptr) const {
    batch_(gpus, specs, out, threads, failed);
  }

 private:
  Fn fn_;
  std::string cache_id_;
  BatchFn batch_;
};

/// analyze(gpu, spec).latency_us.
KernelPredictor analytical_predictor();

/// `p.latency_us` as a pure kernel predictor over a private copy of `p` (a later set_clock on `p` does not change
/// it), with an identity no other call returns: steps priced through it share the process-wide cost cache.
KernelPredictor as_kernel_predictor(const Predictor& p);

}  // namespace loom
