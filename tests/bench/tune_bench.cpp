// google-benchmark: time of one `loom tune` decision (wave tables compiled from models/tune/), gemm and moe on H200.
#include <benchmark/benchmark.h>

#include "kernels/kernel_spec.h"
#include "wave/decide.h"

namespace {

void decide_bench(benchmark::State& state, const char* family, const char* spec) {
  using namespace loom::wave;
  const CompiledTables t = compile_tables(load_tables(tables_path("h200", family), "h200", family));
  const TuneShape s = parse_tune_shape(loom::parse_kernel_spec(spec));
  for (auto _ : state) benchmark::DoNotOptimize(decide(t, s));
}

void BM_TuneDecisionGemm(benchmark::State& state) {
  decide_bench(state, "gemm", "gemm m=4096 n=14336 k=4096 dtype=bf16");
}
void BM_TuneDecisionMoe(benchmark::State& state) {
  decide_bench(state, "moe", "moe tokens=512 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=w13");
}
// The Triton fused-MoE kernel's per-config model (236-256 configs evaluated per decision; target <= 0.5 us).
void BM_TuneDecisionMoeTriton(benchmark::State& state) {
  decide_bench(state, "moe-triton", "moe tokens=512 experts=128 topk=8 hidden=2048 inter=768 dtype=bf16 impl=triton stage=w13");
}
void BM_TuneDecisionMoeTritonFp8(benchmark::State& state) {
  decide_bench(state, "moe-triton-fp8", "moe tokens=512 experts=128 topk=8 hidden=2048 inter=768 dtype=fp8 impl=triton stage=w13");
}
BENCHMARK(BM_TuneDecisionGemm);
BENCHMARK(BM_TuneDecisionMoe);
BENCHMARK(BM_TuneDecisionMoeTriton);
BENCHMARK(BM_TuneDecisionMoeTritonFp8);

}  // namespace
