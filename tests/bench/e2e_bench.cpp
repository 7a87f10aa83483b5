// End-to-end speed targets: one 70B-model step under 1 ms; a what-if table over the whole catalogue under 1 s.
#include <benchmark/benchmark.h>

#include "e2e/e2e.h"
#include "e2e/whatif.h"
#include "hw/catalog.h"

namespace {

using namespace loom;

GpuSpec first_hopper(const Catalog& c) {
  for (const auto& n : c.names())
    if (n.find("h200") != std::string::npos || n.find("h100") != std::string::npos) return c.get(n);
  return c.get(c.names().front());
}

// Arg 0: tp. Arg 1: 1 = cold (the process-wide kernel cost cache emptied before every step), 0 = warm.
void BM_Llama70bDecodeStep(benchmark::State& state) {
  const Catalog c = Catalog::load();
  const GpuSpec gpu = first_hopper(c);
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile p = load_profile("vllm");
  const Workload w = decode_workload(16, {2048}, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    if (state.range(1)) clear_kernel_cost_cache();
    benchmark::DoNotOptimize(predict_step(gpu, m, p, w).timing.wall_time_us);
  }
}
BENCHMARK(BM_Llama70bDecodeStep)->Args({1, 1})->Args({8, 1})->Args({8, 0})->Unit(benchmark::kMicrosecond);

void BM_Llama70bPrefillStep(benchmark::State& state) {
  const Catalog c = Catalog::load();
  const GpuSpec gpu = first_hopper(c);
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile p = load_profile("vllm");
  const Workload w = prefill_workload(4, {512, 1024, 2048, 4096}, {}, 8);
  for (auto _ : state) {
    if (state.range(0)) clear_kernel_cost_cache();
    benchmark::DoNotOptimize(predict_step(gpu, m, p, w).timing.wall_time_us);
  }
}
BENCHMARK(BM_Llama70bPrefillStep)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

void BM_WhatIfWholeCatalogue(benchmark::State& state) {
  const Catalog c = Catalog::load();
  std::vector<GpuSpec> gpus;
  for (const auto& n : c.names()) gpus.push_back(c.get(n));
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile p = load_profile("vllm");
  WhatIfRequest req;
  req.batch = 8;
  req.input_len = 1024;
  req.output_len = 256;
  for (auto _ : state) {
    clear_kernel_cost_cache();  // cold: a fresh `loom whatif` process
    const auto rows = rank_gpus(gpus, m, p, req);
    if (!rows.empty() && rows.front().error.empty())
      for (const auto& g : gpus)
        if (g.name == rows.front().gpu) benchmark::DoNotOptimize(sensitivity(g, rows.front().tp, m, p, req));
  }
  state.counters["gpus"] = static_cast<double>(gpus.size());
}
BENCHMARK(BM_WhatIfWholeCatalogue)->Unit(benchmark::kMillisecond);

}  // namespace
