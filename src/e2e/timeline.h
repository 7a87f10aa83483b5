// Turns an op graph into a predicted GPU timeline under an execution mode: eager launches, CUDA-graph replay,
// or an Event-Tensor-style megakernel. Formulas: models/README.md ("Execution modes").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "e2e/op_graph.h"
#include "e2e/profile.h"
#include "hw/gpu_spec.h"

namespace loom {

/// Kernel latency in microseconds for one kernel on one GPU (the analytical model, or a learned one).
using KernelPredictor = std::function<double(const GpuSpec&, const KernelSpec&)>;

/// analyze(gpu, spec).latency_us.
KernelPredictor analytical_predictor();

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

/// Empties the process-wide cache of analytical kernel costs (benchmarks of cold predictions use it).
void clear_kernel_cost_cache();

/// Predicts every launch of `ops` on `gpu` and lays them out under `mode`. `predictor` defaults to the
/// analytical model, whose results are cached process-wide by (every GpuSpec field, kernel spec); a custom
/// predictor's results are cached for this call only. Identical kernel shapes are predicted once. Throws InputError from the predictor
/// (e.g. a GPU that lacks the model's dtype).
StepTiming simulate_step(const GpuSpec& gpu, const std::vector<Op>& ops, const ServingProfile& profile, ExecMode mode,
                         bool moe_model, const KernelPredictor& predictor = {});

}  // namespace loom
