// End-to-end prediction of one LLM step (prefill or decode) on one GPU: op graph -> kernel predictions ->
// execution-mode timeline -> TTFT / TPOT / tokens/s, breakdowns and memory fit. The library face of `loom e2e`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "e2e/memory.h"
#include "e2e/model_config.h"
#include "e2e/op_graph.h"
#include "e2e/profile.h"
#include "e2e/timeline.h"
#include "hw/gpu_spec.h"

namespace loom {

/// Time and launches of one group (a kernel family, or one op name summed over layers).
struct Share {
  std::string key;     ///< family ("gemm") or op name ("qkv_proj")
  std::string family;
  int launches = 0;
  double gpu_us = 0;
  double wall_us = 0;
  double wall_fraction = 0;  ///< wall_us / step wall time
};

struct StepPrediction {
  std::string gpu, model, profile;
  Workload work;
  StepTiming timing;
  MemoryFit memory;
  std::vector<Share> by_family;  ///< sorted by wall time, largest first
  std::vector<Share> by_op;      ///< sorted by wall time, largest first
  double tokens_per_s = 0;       ///< new tokens of the step / wall time
};

/// The mode a profile uses for a phase (profile.prefill_mode / decode_mode) unless `mode` is given.
ExecMode mode_for(const ServingProfile& profile, Phase phase, std::optional<ExecMode> mode = std::nullopt);

/// Predicts one step. Throws InputError for bad TP degrees and anything the kernel predictor rejects.
StepPrediction predict_step(const GpuSpec& gpu, const ModelConfig& model, const ServingProfile& profile,
                            const Workload& work, std::optional<ExecMode> mode = std::nullopt,
                            const KernelPredictor& predictor = {});

/// One predicted launch, for matching against traced kernels (`loom validate --e2e`).
struct PredictedLaunch {
  std::string name;
  int layer = -1;
  std::vector<KernelSpec> parts;      ///< shapes the launch covers (one, or one per varlen group)
  std::vector<double> part_us;        ///< predicted time of each part
  double gpu_us = 0;                  ///< sum of part_us
  double wall_us = 0;                 ///< what the launch adds to the step under the mode
};

/// The ordered launches of one step with their predicted times.
std::vector<PredictedLaunch> predict_kernels(const GpuSpec& gpu, const ModelConfig& model,
                                             const ServingProfile& profile, const Workload& work,
                                             std::optional<ExecMode> mode = std::nullopt,
                                             const KernelPredictor& predictor = {});

}  // namespace loom
