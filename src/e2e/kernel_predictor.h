// The per-kernel model that end-to-end composition calls: (GPU, kernel spec) -> latency in microseconds, plus,
// for a predictor whose results depend only on those inputs, an identity under which they may be cached
// process-wide (the learned Predictor's are: a step, a what-if table or a sweep asks for the same shapes again).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"

namespace loom {

class Predictor;

class KernelPredictor {
 public:
  using Fn = std::function<double(const GpuSpec&, const KernelSpec&)>;

  KernelPredictor() = default;
  /// An opaque function (any callable): simulate_step caches its results for one call only.
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, KernelPredictor> &&
             std::is_invocable_r_v<double, F&, const GpuSpec&, const KernelSpec&>)
  KernelPredictor(F&& f) : fn_(std::forward<F>(f)) {}  // NOLINT(google-explicit-constructor): lambdas convert

  /// A function whose result depends only on the GPU's model-relevant fields and the spec, never on call order:
  /// cached process-wide under `cache_id`, which must name this function and no other (e.g. a per-instance serial).
  static KernelPredictor pure(Fn fn, std::string cache_id) {
    KernelPredictor k(std::move(fn));
    k.cache_id_ = std::move(cache_id);
    return k;
  }

  double operator()(const GpuSpec& gpu, const KernelSpec& spec) const { return fn_(gpu, spec); }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  /// Empty for an opaque predictor.
  const std::string& cache_id() const { return cache_id_; }

 private:
  Fn fn_;
  std::string cache_id_;
};

/// analyze(gpu, spec).latency_us.
KernelPredictor analytical_predictor();

/// `p.latency_us` as a pure kernel predictor over a private copy of `p` (a later set_clock on `p` does not change
/// it), with an identity no other call returns: steps priced through it share the process-wide cost cache.
KernelPredictor as_kernel_predictor(const Predictor& p);

}  // namespace loom
