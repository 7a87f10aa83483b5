// google-benchmark: time of one `loom tune` decision (wave tables compiled from models/tune/), gemm and moe on H200.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "wave/config_model.h"
#include "wave/decide.h"
#include "wave/fit.h"
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
  decide_bench(state, "moe-triton",
               "moe tokens=512 experts=128 topk=8 hidden=2048 inter=768 dtype=bf16 impl=triton stage=w13");
}
void BM_TuneDecisionMoeTritonFp8(benchmark::State& state) {
  decide_bench(state, "moe-triton-fp8",
               "moe tokens=512 experts=128 topk=8 hidden=2048 inter=768 dtype=fp8 impl=triton stage=w13");
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
// The Triton GEMM's per-config model over its grid (scripts/torch/tune/gemm_sweep.py all_configs: 228 configs). Until
// device-measured tables are committed (models/tune/h200-gemm-triton.json), the coefficients are fitted on a synthetic
// pool of the same grid: a decision's cost does not depend on their values, only on the configs and tile sizes.
loom::wave::TuneTables gemm_triton_tables() {
  using namespace loom::wave;
  const std::string committed = tables_path("h200", "gemm-triton");
  if (std::filesystem::exists(committed)) return load_tables(committed, "h200", "gemm-triton");
  const loom::GpuSpec gpu = loom::Catalog::load().get("h200");
  Pool p;
  p.gpu = "h200", p.family = "gemm-triton", p.sms = gpu.sms;
  for (int bm : {16, 32, 64, 128})
    for (int bn : {32, 64, 128, 256})
      for (int bk : {64, 128})
        for (int g : {1, 8})
          for (int w : {4, 8})
            for (int st : {3, 4}) {
              if (st * (bm + bn) * bk * 2 > 232448 || bm * bn / (w * 32) > 256) continue;
              const std::string name = std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + "_s" +
                                       std::to_string(st) + "_w" + std::to_string(w) + "_g" + std::to_string(g);
              TuneConfig c = parse_tune_config("gemm-triton", name, "bench");
              fit_occupancy(c, gpu);
              p.configs.push_back(c);
            }
  for (int64_t m : {1, 16, 128, 1024, 4096})
    for (int64_t n : {4096, 14336}) {
      TuneShape s;
      s.family = "gemm", s.impl = "triton", s.m = m, s.n = n, s.k = 4096;
      std::vector<double> us;
      for (const auto& c : p.configs) {
        const ConfigCoef f = config_features(s, c, p.sms);
        us.push_back(2 + 0.01 * c.bm * f[0] / 16 + 0.3 * f[1] + 0.05 * f[2] + f[4]);
      }
      p.shapes.push_back(s), p.keys.push_back(tune_spec(s)), p.us.push_back(us);
    }
  const std::vector<bool> all(p.shapes.size(), true);
  TuneTables t = build_tables(p, all, default_config("gemm-triton"));
  t.config_model = fit_config_model(p, all, 0.03);
  return t;
}
void BM_TuneDecisionGemmTriton(benchmark::State& state) {
  using namespace loom::wave;
  const CompiledTables t = compile_tables(gemm_triton_tables());
  const TuneShape s = parse_tune_shape(loom::parse_kernel_spec("gemm m=512 n=6144 k=4096 dtype=bf16 impl=triton"));
  for (auto _ : state) benchmark::DoNotOptimize(decide(t, s));
}
// The slowest per-config path: the committed H100 tables (tile bytes gathered per (BM, BN) pair) at M = 16, below
// most tiles' BM (the row-repeat term on); skipped where the tables are not committed.
void BM_TuneDecisionGemmTritonSmallM(benchmark::State& state) {
  using namespace loom::wave;
  const std::string committed = tables_path("h100-sxm", "gemm-triton");
  if (!std::filesystem::exists(committed)) return state.SkipWithError("no committed h100-sxm gemm-triton tables");
  const CompiledTables t = compile_tables(load_tables(committed, "h100-sxm", "gemm-triton"));
  const TuneShape s = parse_tune_shape(loom::parse_kernel_spec("gemm m=16 n=6144 k=4096 dtype=bf16 impl=triton"));
  for (auto _ : state) benchmark::DoNotOptimize(decide(t, s));
}
// Distinct shapes, one decision each, as `loom tune --validate` times them over its held-out shapes (there each shape
// is repeated 2,000 times): 64 shapes cycled, M / tokens from 1 to 4096, so no branch or cache sees one shape only.
void decide_shapes_bench(benchmark::State& state, const char* gpu, const char* family) {
  using namespace loom::wave;
  const std::string path = tables_path(gpu, family);
  if (!std::filesystem::exists(path)) return state.SkipWithError("tables not committed");
  const CompiledTables t = compile_tables(load_tables(path, gpu, family));
  std::vector<TuneShape> shapes;
  const char* dtype = target_dtype(family) == "fp8" ? "fp8" : "bf16";
  for (int i = 0; i < 64; ++i) {
    const int64_t m = int64_t(1) << (i % 13), n = 1024 * (1 + i % 7), k = 2048 * (1 + i % 3);
    const std::string spec = base_family(family) == "gemm"
                                 ? "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                       " k=" + std::to_string(k) + " dtype=bf16 impl=triton"
                                 : "moe tokens=" + std::to_string(m) + " experts=" + std::to_string(i % 2 ? 128 : 8) +
                                       " topk=" + std::to_string(i % 2 ? 8 : 2) + " hidden=" + std::to_string(k) +
                                       " inter=" + std::to_string(n / 2 + 256) + " dtype=" + dtype +
                                       " impl=triton stage=" + (i % 4 < 2 ? "w13" : "w2");
    shapes.push_back(parse_tune_shape(loom::parse_kernel_spec(spec)));
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(decide(t, shapes[i]));
    i = (i + 1) & 63;
  }
}
void BM_TuneDecisionShapes(benchmark::State& state) {
  const char* gpus[] = {"h100-sxm", "h200"};
  const char* families[] = {"moe-triton", "moe-triton-fp8", "gemm-triton"};
  state.SetLabel(std::string(gpus[state.range(0)]) + " " + families[state.range(1)]);
  decide_shapes_bench(state, gpus[state.range(0)], families[state.range(1)]);
}
BENCHMARK(BM_TuneDecisionShapes)->ArgsProduct({{0, 1}, {0, 1, 2}});
BENCHMARK(BM_TuneDecisionGemm);
BENCHMARK(BM_TuneDecisionMoe);
BENCHMARK(BM_TuneDecisionMoeTriton);
BENCHMARK(BM_TuneDecisionMoeTritonFp8);
BENCHMARK(BM_TuneDecisionGemmTriton);
BENCHMARK(BM_TuneDecisionGemmTritonSmallM);

}  // namespace
