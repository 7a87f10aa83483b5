// Learned-model throughput: the full prediction path (analysis + features + forest) for one kernel, a mixed batch,
// and the forest evaluation alone (what a batched caller pays once the analysis is cached).
#include <benchmark/benchmark.h>

#include <vector>

#include "hw/catalog.h"
#include "learned/dataset.h"
#include "learned/predictor.h"

namespace {

const std::vector<std::string> kMixed = {
    "gemm m=16 n=14336 k=4096 dtype=bf16 config=64x128x32_s8_w4",
    "rms_norm rows=4096 cols=4096 dtype=bf16",
    "attention_decode batch=32 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16",
    "elementwise op=silu_mul rows=4096 cols=14336 dtype=bf16",
    "softmax rows=4096 cols=32000 dtype=fp32",
    "rotary tokens=4096 heads=40 head_dim=128 dtype=bf16",
};

void predict_specs(benchmark::State& state, const std::vector<std::string>& texts) {
  const loom::GpuSpec gpu = loom::Catalog::load().get("h200");
  const loom::Predictor predictor("learned");
  if (!predictor.learned()) state.SkipWithError("no learned model in models/efficiency");
  std::vector<loom::KernelSpec> specs;
  for (const auto& t : texts) specs.push_back(loom::parse_kernel_spec(t));
  for (auto _ : state)
    for (const auto& s : specs) benchmark::DoNotOptimize(predictor.predict(gpu, s));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(specs.size()));
}

void BM_LearnedPredictGemmPinned(benchmark::State& state) {
  predict_specs(state, {"gemm m=4096 n=4096 k=4096 dtype=bf16 config=128x256x64_s4_w8"});
}
BENCHMARK(BM_LearnedPredictGemmPinned);

void BM_LearnedPredictMixedBatch(benchmark::State& state) { predict_specs(state, kMixed); }
BENCHMARK(BM_LearnedPredictMixedBatch);

void BM_ForestOnly(benchmark::State& state) {
  const loom::GpuSpec gpu = loom::Catalog::load().get("h200");
  const auto model = loom::EfficiencyModel::load(loom::default_model_dir());
  std::vector<loom::Sample> samples;
  for (const auto& t : kMixed) {
    auto spec = loom::parse_kernel_spec(t);
    auto a = loom::analyze(gpu, spec);
    samples.push_back(loom::make_sample(a, gpu, loom::default_impl(a.family)));
    samples.back().m.family = a.family;
  }
  for (auto _ : state)
    for (const auto& s : samples) benchmark::DoNotOptimize(model.predict_log_ratio(s.m.family, s.x.data()));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(samples.size()));
}
BENCHMARK(BM_ForestOnly);

}  // namespace
