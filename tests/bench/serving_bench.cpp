// Serving simulator speed targets (issue 13): a 10,000-request simulation of Llama-3-70B at TP 8 in <= 2 s on one
// core, and the SLO capacity search (one GPU x one parallelism here; the CLI runs 17 GPUs x 4 over --threads) fast
// enough that 68 of them take <= 30 s. Learned kernel model, as the CLI uses by default. Not timed tests: run
// `build/tests/loom_benchmarks --benchmark_filter=Serving` (docs/serving.md, "Speed").
#include <benchmark/benchmark.h>

#include "e2e/kernel_predictor.h"
#include "hw/catalog.h"
#include "learned/predictor.h"
#include "serving/capacity.h"
#include "serving/engine.h"

namespace {

using namespace loom;

// What both benchmarks set up: one catalogue GPU, one model, the vllm profile and the learned kernel model (pure,
// so its costs are cached across steps as the CLI's are).
struct Setup {
  Setup(const char* gpu_name, const char* model_name)
      : gpu(Catalog::load().get(gpu_name)), model(load_model(model_name)), profile(load_profile("vllm")),
        predict(as_kernel_predictor(Predictor("learned"))) {}
  const GpuSpec gpu;
  const ModelConfig model;
  const ServingProfile profile;
  const KernelPredictor predict;
};

// Arg 0: 1 = lognormal lengths (mean prompt 1000, output 200, sigma 1), 0 = fixed 1000 / 200.
void BM_ServingSimulate70bTp8(benchmark::State& state) {
  const Setup s("h200", "llama-3-70b");
  const bool spread = state.range(0) != 0;
  const auto prompt = serving::parse_length_dist(spread ? "lognormal:1000:1" : "1000", "--prompt-len");
  const auto output = serving::parse_length_dist(spread ? "lognormal:200:1" : "200", "--output-len");
  const auto reqs = serving::synthesize(10000, 12, serving::ArrivalProcess{}, prompt, output, 1);
  serving::SimConfig cfg;
  cfg.tp = 8;
  for (auto _ : state)
    benchmark::DoNotOptimize(serving::simulate(s.gpu, s.model, s.profile, reqs, cfg, s.predict).requests.size());
}
BENCHMARK(BM_ServingSimulate70bTp8)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

// One row of `loom whatif --rate ... --slo ttft=2s,tpot=50ms`: the highest rate that meets the SLO.
void BM_ServingCapacityRow(benchmark::State& state) {
  const Setup s("h100-sxm", "llama-3-8b");
  serving::CapacityQuery q;
  q.slo = serving::parse_slo("ttft=2s,tpot=50ms", "--slo");
  q.unit_stream = serving::synthesize(1000, 1, serving::ArrivalProcess{},
                                      serving::parse_length_dist("lognormal:1000:1", "--prompt-len"),
                                      serving::parse_length_dist("lognormal:200:1", "--output-len"), 1);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        serving::capacity(s.gpu, static_cast<int>(state.range(0)), s.model, s.profile, q, s.predict).max_rate);
}
BENCHMARK(BM_ServingCapacityRow)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
