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
  // The batch form: predict_many gives each row exactly what predict() gives (without the analyses' text, which
  // latency_us does not read either).
  auto batch = [own](const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                     std::vector<double>& out, int threads, std::vector<uint8_t>* failed) {
    std::vector<Prediction> preds;
    own->predict_many(gpus, specs, /*with_achievable=*/false, preds, threads, /*with_text=*/false, failed);
    out.resize(preds.size());
    for (size_t i = 0; i < preds.size(); ++i) out[i] = preds[i].latency_us;
  };
  return KernelPredictor::pure([own](const GpuSpec& g, const KernelSpec& s) { return own->latency_us(g, s); },
                               "predictor#" + std::to_string(serial.fetch_add(1)), std::move(batch));
}

}  // namespace loom
