// analyze() throughput: one pinned GEMM, one GEMM with the default-config search, and a mixed batch of families.
#include <benchmark/benchmark.h>

#include <vector>

#include "analytical/analysis.h"
#include "../unit/test_gpus.h"

namespace {

void analyze_specs(benchmark::State& state, const std::vector<std::string>& texts) {
  const loom::GpuSpec gpu = loom::test::test_h100();
  std::vector<loom::KernelSpec> specs;
  for (const auto& t : texts) specs.push_back(loom::parse_kernel_spec(t));
  for (auto _ : state)
    for (const auto& s : specs) benchmark::DoNotOptimize(loom::analyze(gpu, s));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(specs.size()));
}

void BM_AnalyzeGemmPinned(benchmark::State& state) {
  analyze_specs(state, {"gemm m=4096 n=4096 k=4096 dtype=bf16 config=128x256x64_s4_w8"});
}
BENCHMARK(BM_AnalyzeGemmPinned);

void BM_AnalyzeGemmDefault(benchmark::State& state) {
  analyze_specs(state, {"gemm m=4096 n=4096 k=4096 dtype=bf16"});
}
BENCHMARK(BM_AnalyzeGemmDefault);

void BM_AnalyzeMixedBatch(benchmark::State& state) {
  analyze_specs(state, {
                           "gemm m=1 n=4096 k=4096 dtype=bf16",
                           "gemm m=8192 n=8192 k=8192 dtype=fp8",
                           "moe tokens=512 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16",
                           "attention_prefill batch=1 heads=32 kv_heads=8 seq=4096 head_dim=128 causal=1 dtype=bf16",
                           "attention_decode batch=32 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16",
                           "rms_norm rows=4096 cols=4096 dtype=bf16",
                           "softmax rows=4096 cols=1000 dtype=fp32",
                           "elementwise op=silu_mul rows=4096 cols=14336 dtype=bf16",
                           "rotary tokens=4096 heads=40 head_dim=128 dtype=bf16",
                           "all_reduce bytes=33554432 gpus=8",
                       });
}
BENCHMARK(BM_AnalyzeMixedBatch);

}  // namespace
