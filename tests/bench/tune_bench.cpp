// google-benchmark: time of one `loom tune` decision (wave tables compiled from models/tune/), gemm and moe on H200.
#include <benchmark/benchmark.h>

#include "kernels/kernel_spec.h"
#include "wave/decide.h"
#include "wave/lt_model.h"

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
// cuBLASLt algorithm selection (gemm-cublaslt): the decision's cost depends only on the number of configs, so a
// synthetic model of state.range(0) configs (tiles 64..256, split-K 1..8) stands in until measured tables exist.
void BM_TuneDecisionCublasLt(benchmark::State& state) {
  using namespace loom::wave;
  LtModel m;
  m.sms = 132;
  const int tiles[][2] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}, {64, 256}, {256, 64}};
  for (int i = 0; i < state.range(0); ++i) {
    LtConfig c;
    c.bm = tiles[i % 8][0], c.bn = tiles[i % 8][1], c.splitk = 1 << ((i / 8) % 4);
    m.configs.push_back(c);
    m.coef.push_back({1e-3 * (1 + i % 5), 0.5, 1e-3, 3.0 + i % 3, 1.0, 1e-4, c.splitk > 1 ? 2.0 : 0.0});
    m.max_refused_k_per_split.push_back(c.splitk > 1 ? 128.0 : 0.0);
  }
  const LtCompiled c = compile_lt(m);
  int64_t mm = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(decide_lt(c, mm, 14336, 4096));
    mm = mm % 4096 + 7;
  }
}
BENCHMARK(BM_TuneDecisionCublasLt)->Arg(32)->Arg(64)->Arg(96)->Arg(128);
BENCHMARK(BM_TuneDecisionGemm);
BENCHMARK(BM_TuneDecisionMoe);
BENCHMARK(BM_TuneDecisionMoeTriton);
BENCHMARK(BM_TuneDecisionMoeTritonFp8);

}  // namespace
