// Trace replay across GPUs: a PyTorch profiler trace recorded on one GPU, re-timed kernel by kernel for another.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "e2e/timeline.h"
#include "hw/gpu_spec.h"
#include "trace/chrome_trace.h"

namespace loom {

struct ReplayKernel {
  std::string name;         ///< kernel name from the trace
  std::string family;       ///< loom family of the spec, else the kernel-name classifier's family
  std::string spec;         ///< loom kernel spec recovered from the launching aten op ("" if none)
  double measured_us = 0;   ///< duration on the recording GPU
  double source_pred_us = 0;///< predicted on the recording GPU (0 when not predicted)
  double target_us = 0;     ///< re-timed for the target GPU
  std::string method;       ///< "ratio" | "predicted" | "dram-scaled" | "unchanged" (see replay_trace)
};

struct ReplayResult {
  std::string trace_path, device_name;
  std::string source_gpu;   ///< catalogue key of the recording GPU ("" when unknown)
  std::string target_gpu;
  double measured_gpu_us = 0;   ///< sum of kernel durations
  double measured_span_us = 0;  ///< first kernel start to last kernel end
  double idle_us = 0;           ///< span minus busy time: host-bound gaps, kept as they are on the target
  double target_gpu_us = 0;
  double target_span_us = 0;    ///< target_gpu_us + idle_us
  int64_t mapped = 0, unmapped = 0;
  std::vector<ReplayKernel> kernels;
};

/// Re-times every kernel of `trace` for `target`. With a spec: measured x pred(target) / pred(source) when the
/// source GPU is known ("ratio": the measurement corrects the model's bias), else pred(target) ("predicted").
/// Without a spec (or when the predictor rejects it): measured x source DRAM bandwidth / target DRAM bandwidth
/// ("dram-scaled": unmapped kernels are mostly copies and elementwise ops), or measured ("unchanged") when the
/// source is unknown. Idle time between kernels is assumed host-bound and kept.
ReplayResult replay_trace(const ChromeTrace& trace, const std::optional<GpuSpec>& source, const GpuSpec& target,
                          const KernelPredictor& predictor = {});

}  // namespace loom
