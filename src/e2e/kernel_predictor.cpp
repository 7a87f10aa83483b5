// Kernel predictors for end-to-end composition: the analytical model, and the learned Predictor as a pure function.
#include "e2e/kernel_predictor.h"

#include <atomic>

#include "analytical/analysis.h"
#include "learned/predictor.h"

namespace loom {

KernelPredictor analytical_predictor() {
  return [](const GpuSpec& gpu, const KernelSpec& spec) { return analyze(gpu, spec).latency_us; };
}

KernelPredictor as_kernel_predictor(const Predictor& p) {
  // Predictor::latency_us reads only the GPU, the spec, the loaded model and the clock setting; the copy fixes the
  // last two, and the serial makes the identity unique for the process's lifetime (no address reuse).
  static std::atomic<uint64_t> serial{0};
  auto own = std::make_shared<const Predictor>(p);
  return KernelPredictor::pure([own](const GpuSpec& g, const KernelSpec& s) { return own->latency_us(g, s); },
                               "predictor#" + std::to_string(serial.fetch_add(1)));
}

}  // namespace loom
