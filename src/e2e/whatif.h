// What-if hardware selection: one serving request (batch, input length, output length) predicted on many GPUs
// (ranked), and how TTFT / TPOT respond to changes of one GPU's resources (sensitivity).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "e2e/e2e.h"

namespace loom {

struct WhatIfRequest {
  int64_t batch = 1;
  int64_t input_len = 1;
  int64_t output_len = 1;
  std::vector<int> tp_choices;  ///< TP degrees to consider; empty = smallest of 1,2,4,8 that fits in one node
  int threads = 1;  ///< threads rank_gpus prices the table's kernels on (price_ahead; the table does not depend on it)
};

struct WhatIfRow {
  std::string gpu;
  int tp = 1;
  double ttft_us = 0;            ///< prefill wall time
  double tpot_us = 0;            ///< decode step wall time at the middle context (exact when linear in context)
  double tokens_per_s = 0;       ///< batch x output_len / (TTFT + (output_len - 1) x TPOT)
  std::optional<double> tokens_per_dollar;  ///< tokens_per_s x 3600 / (price_per_hour x tp), when priced
  bool fits = false;
  double memory_bytes = 0;       ///< per-GPU need at the last step
  double usable_bytes = 0;
  std::string error;             ///< non-empty when this GPU cannot run the model (e.g. unsupported dtype, tp)
};

/// Predicts the request on one GPU with a fixed TP degree.
WhatIfRow whatif_one(const GpuSpec& gpu, int tp, const ModelConfig& model, const ServingProfile& profile,
                     const WhatIfRequest& req, const KernelPredictor& predictor = {});

/// Every GPU (TP per req.tp_choices), ranked: fitting rows first, then by tokens/s. A GPU the model cannot run
/// on gets a row with `error` set instead of throwing.
std::vector<WhatIfRow> rank_gpus(const std::vector<GpuSpec>& gpus, const ModelConfig& model,
                                 const ServingProfile& profile, const WhatIfRequest& req,
                                 const KernelPredictor& predictor = {});

struct SensitivityRow {
  std::string gpu;
  std::string change;        ///< e.g. "+50% DRAM bandwidth"
  double ttft_delta_pct = 0; ///< (new - base) / base x 100; negative = faster
  double tpot_delta_pct = 0;
};

/// TTFT / TPOT change of the request on `gpu` at `tp` for each resource change (DRAM bandwidth, SMs, clock,
/// L2 bandwidth, interconnect, launch overhead). Each kernel of a changed GPU is the real GPU's prediction times
/// the analytical model's ratio changed / real (learned forests are not asked about hardware no GPU has).
std::vector<SensitivityRow> sensitivity(const GpuSpec& gpu, int tp, const ModelConfig& model,
                                        const ServingProfile& profile, const WhatIfRequest& req,
                                        const KernelPredictor& predictor = {});

}  // namespace loom
