// What `loom tune --kernel`, the C API's loom_tune and the Python module's loom.tune share before a decision: the
// spec's keys are the tune tables' vocabulary (anything else was silently ignored: bogus=1, l2=warm, batch=4 or
// scales=rowwise tuned the plain GEMM), and the operands fit the GPU (as `loom predict` checks).
#pragma once

#include <set>
#include <string>

#include "core/error.h"
#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"
#include "learned/predictor.h"
#include "wave/mapping.h"

namespace loom::wave {

/// Operand bytes of a tune shape, for the same memory check `loom predict` makes (require_operands_fit).
inline double tune_operand_bytes(const TuneShape& t) {
  const double elem = t.dtype == "fp8" ? 1.0 : 2.0;
  auto d = [](int64_t v) { return static_cast<double>(v); };
  return t.family == "gemm" ? (d(t.m) * d(t.k) + d(t.n) * d(t.k)) * elem + d(t.m) * d(t.n) * 2.0
                            : d(t.experts) * 3.0 * d(t.hidden) * d(t.inter) * elem +
                                  d(t.tokens) * d(t.topk) * (2.0 * d(t.inter) + d(t.hidden)) * 2.0;
}

/// The shape of a user's tune spec: refuses keys the tune tables do not model and operands beyond the GPU's DRAM.
inline TuneShape parse_tune_request(const KernelSpec& spec, const GpuSpec& gpu) {
  const TuneShape shape = parse_tune_shape(spec);  // the family first: `rms_norm ...` is refused as a family
  static const std::set<std::string> gemm = {"m", "n", "k", "dtype", "impl"};
  static const std::set<std::string> moe = {"tokens", "experts", "topk", "hidden", "inter", "dtype", "stage", "impl"};
  const auto& known = spec.family == "gemm" ? gemm : moe;
  for (const auto& [k, v] : spec.params)
    if (!known.count(k))
      throw InputError(spec.where,
                       "'" + k + "=" + v + "' is not a key the tune tables model (" + spec.family +
                           (spec.family == "gemm" ? ": m, n, k, dtype, impl"
                                                  : ": tokens, experts, topk, hidden, inter, dtype, stage, impl") +
                           "); drop it, or use `loom predict` for that kernel");
  require_operands_fit(tune_operand_bytes(shape), gpu, spec.where);
  return shape;
}

}  // namespace loom::wave
