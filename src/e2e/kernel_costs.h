// The kernel costs a step's timeline reads (e2e/timeline.cpp): per launch, the predicted latency and, for
// megakernels, the analysis-derived tails; kept for one call and, for a pure predictor, process-wide (price_ahead and
// clear_kernel_cost_cache in e2e/timeline.h are its public face). Internal to src/e2e.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ptr_index.h"
#include "e2e/kernel_predictor.h"
#include "e2e/op_graph.h"
#include "hw/gpu_spec.h"

namespace loom {

/// What loom needs to know about one kernel shape.
struct KernelCost {
  double latency_us = 0;
  double fixed_overhead_us = 0;  ///< the kernel-start part of the analytical fixed overhead
  double tail_us = 0;     ///< duration of the last wave (without the kernel start)
  double tail_idle = 0;   ///< fraction of the bottleneck resource idle during the last wave
};


/// Summed cost of one launch's parts, and its last part (whose wave tail the next launch may fill).
struct OpCost {
  double gpu_us = 0;
  double fixed_us = 0;
  const KernelCost* last = nullptr;
  std::shared_ptr<const OpShape> listed;  ///< the launch as it is listed where that differs from the op's shape
};

/// One GPU's costs under one predictor, by kernel spec text as given (before the L2-inheritance decision, a
/// function of the GPU and that text).
using CostTable = std::unordered_map<std::string, KernelCost>;  // node-based: references stay valid

/// The costs of one step's launches on one GPU under one predictor.
class CostCache {
 public:
  /// `listing`: the launches are listed (a timeline), so OpCost::listed is filled. `need_shape`: the costs carry
  /// the analysis-derived tails (megakernel).
  CostCache(const GpuSpec& gpu, const KernelPredictor& p, bool need_shape, bool listing);
  /// Cost of a launch; shapes shared by identical layers are looked up by address. The reference is valid until the
  /// next get().
  const OpCost& get(const OpShape& shape);

 private:
  /// Cached by the spec as given (`key`: its canonical text): the L2-inheritance decision (an analysis) is made once
  /// per distinct spec.
  const KernelCost& get(const KernelSpec& given, std::string key);
  KernelCost compute(const KernelSpec& spec) const;

  const GpuSpec& gpu_;
  const KernelPredictor& p_;
  bool shape_;
  bool listing_;
  std::shared_ptr<CostTable> shared_;  ///< null for an opaque predictor
  CostTable cache_;                    ///< this call's costs (also of a pure predictor: no lock per launch)
  PtrIndex shapes_;                    ///< launch shapes seen, by address: their index in ops_
  std::vector<OpCost> ops_;
};

}  // namespace loom
