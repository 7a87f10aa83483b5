// Turns an op graph into a predicted GPU timeline under an execution mode: eager launches, CUDA-graph replay,
// or an Event-Tensor-style megakernel. Formulas: models/README.md ("Execution modes").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "e2e/kernel_predictor.h"
#include "e2e/op_graph.h"
#include "e2e/profile.h"
#include "hw/gpu_spec.h"

namespace loom {

enum class ExecMode { eager, graph, megakernel };
std::string_view mode_name(ExecMode m);
/// "eager" | "graph" | "megakernel"; throws InputError(where, ...) otherwise.
ExecMode parse_mode(const std::string& s, const std::string& where = "--mode");

/// One launch on the predicted timeline (times in us from the start of the step).
struct KernelTiming {
  std::string name;
  int layer = -1;
  std::shared_ptr<const OpShape> shape;  ///< the launch's kernel shapes
  const std::string& family() const { return shape->parts.front().family; }
  const std::string& spec() const { return shape->text; }  ///< parts' KernelSpec text joined by " + "
  double gpu_us = 0;       ///< predicted kernel time (sum of its parts)
  double issue_us = 0;     ///< host time the launch was issued (eager; graph/megakernel: the single launch)
  double start_us = 0;
  double end_us = 0;
  double wall_us = 0;      ///< end - previous end: what this launch adds to the step's wall time
  double saved_us = 0;     ///< megakernel: time hidden under the previous op's tail or removed prologue
};

struct StepTiming {
  ExecMode mode = ExecMode::graph;
  double gpu_time_us = 0;   ///< sum of predicted kernel times (no gaps, no overlap)
  double wall_time_us = 0;  ///< end of the last kernel, counting launches, gaps and overlap
  double schedule_efficiency = 1;  ///< megakernel scheduling factor used (1 otherwise)
  std::vector<KernelTiming> kernels;
};

/// Empties the process-wide cache of kernel costs (benchmarks of cold predictions use it).
void clear_kernel_cost_cache();

/// Predicts every launch of `ops` on `gpu` and lays them out under `mode`. `predictor` defaults to the
/// analytical model. The results of a pure predictor (the analytical model, as_kernel_predictor) are cached
/// process-wide by (its cache_id, every GpuSpec field a model reads, kernel spec); an opaque predictor's are cached
/// for this call only. Identical kernel shapes are predicted once. Throws InputError from the predictor (e.g. a GPU
/// that lacks the model's dtype).
StepTiming simulate_step(const GpuSpec& gpu, const std::vector<Op>& ops, const ServingProfile& profile, ExecMode mode,
                         bool moe_model, const KernelPredictor& predictor = {});
/// The same, moving each op's name and shape into its KernelTiming instead of copying them (a caller's own graph).
StepTiming simulate_step(const GpuSpec& gpu, std::vector<Op>&& ops, const ServingProfile& profile, ExecMode mode,
                         bool moe_model, const KernelPredictor& predictor = {});
/// The same step's totals only (wall_time_us, gpu_time_us, schedule_efficiency; `kernels` left empty): for callers
/// that read the step's time and nothing per launch (what-if tables), without a KernelTiming per launch.
StepTiming simulate_step_totals(const GpuSpec& gpu, const std::vector<Op>& ops, const ServingProfile& profile,
                                ExecMode mode, bool moe_model, const KernelPredictor& predictor = {});

/// One step a caller is about to simulate: its GPU, op graph and mode (pointers the caller keeps alive).
struct StepToPrice {
  const GpuSpec* gpu = nullptr;
  const std::vector<Op>* ops = nullptr;
  ExecMode mode = ExecMode::graph;
};
/// Prices the kernels of `steps` that the process-wide cost cache lacks in one batch (the learned forests walk
/// rows in blocks, about twice as fast a row as one at a time) and keeps them there, so that simulate_step of
/// those steps finds them: each cost is exactly the one the step would compute itself. Does nothing for a
/// predictor without a batch form (KernelPredictor::batched) and skips megakernel steps; a GPU some kernel of
/// which cannot be priced (InputError) is left to its steps, which report it. `threads`: analyses on up to that
/// many threads (the costs do not depend on it).
void price_ahead(const std::vector<StepToPrice>& steps, const KernelPredictor& predictor, int threads = 1);

}  // namespace loom
