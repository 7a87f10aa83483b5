// Kernel-by-kernel replay of a recorded PyTorch trace on another GPU (see replay.h for the rules).
#include "e2e/replay.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "kernels/kernel_spec.h"

namespace loom {

ReplayResult replay_trace(const ChromeTrace& trace, const std::optional<GpuSpec>& source, const GpuSpec& target,
                          const KernelPredictor& predictor) {
  const KernelPredictor predict = predictor ? predictor : analytical_predictor();
  ReplayResult r;
  r.trace_path = trace.path;
  r.device_name = trace.device_name;
  r.source_gpu = source ? source->name : "";
  r.target_gpu = target.name;
  std::map<std::string, std::pair<double, double>> memo;  // spec -> (source, target) prediction; < 0 = rejected
  double first_us = 0, last_us = 0, busy_end_us = 0, busy_us = 0;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const ChromeKernel& k = trace.kernels[i];
    ReplayKernel rk;
    rk.name = k.name;
    rk.family = k.kernel.family;
    rk.spec = k.spec;
    rk.measured_us = k.dur_us;
    bool predicted = false;
    if (!k.spec.empty()) {
      auto it = memo.find(k.spec);
      if (it == memo.end()) {
        std::pair<double, double> p{-1, -1};
        try {
          const KernelSpec spec = parse_kernel_spec(k.spec, trace.path);
          p.second = predict(target, spec);
          p.first = source ? predict(*source, spec) : 0;
        } catch (const InputError&) {
          p = {-1, -1};  // a shape or dtype the model does not take: fall back to scaling
        }
        it = memo.emplace(k.spec, p).first;
      }
      if (it->second.second >= 0) {
        predicted = true;
        rk.family = k.spec.substr(0, k.spec.find(' '));
        rk.source_pred_us = it->second.first;
        if (source && it->second.first > 0) {
          rk.target_us = k.dur_us * it->second.second / it->second.first;
          rk.method = "ratio";
        } else {
          rk.target_us = it->second.second;
          rk.method = "predicted";
        }
      }
    }
    if (!predicted) {
      if (source && target.dram_bytes_per_s > 0) {
        rk.target_us = k.dur_us * source->effective_dram_bytes_per_s() / target.effective_dram_bytes_per_s();
        rk.method = "dram-scaled";
      } else {
        rk.target_us = k.dur_us;
        rk.method = "unchanged";
      }
    }
    (predicted ? r.mapped : r.unmapped) += 1;
    r.measured_gpu_us += k.dur_us;
    r.target_gpu_us += rk.target_us;
    // Busy time as the union of kernel intervals (kernels of several streams may overlap).
    const double end_us = k.ts_us + k.dur_us;
    if (i == 0) first_us = k.ts_us, busy_end_us = k.ts_us;
    if (end_us > busy_end_us) busy_us += end_us - std::max(busy_end_us, k.ts_us), busy_end_us = end_us;
    last_us = std::max(last_us, end_us);
    r.kernels.push_back(std::move(rk));
  }
  r.measured_span_us = trace.kernels.empty() ? 0 : last_us - first_us;
  r.idle_us = std::max(0.0, r.measured_span_us - busy_us);
  r.target_span_us = r.target_gpu_us + r.idle_us;
  return r;
}

}  // namespace loom
