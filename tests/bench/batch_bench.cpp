// Throughput and start-up of the learned predictor as a library caller sees them (issue 14): mixed-family batches
// of 1k / 100k / 1M kernels through Predictor::predict_many (4,096-row blocks, as `loom predict --batch`), with and
// without threads; the forest alone, batched vs row by row; a cold start (catalogue + model + first prediction);
// a learned 70B decode step; the learned what-if table (17 GPUs x TP 1/2/4/8), warm and from nothing.
#include <benchmark/benchmark.h>

#include <random>

#include "e2e/e2e.h"
#include "e2e/whatif.h"
#include "hw/catalog.h"
#include "learned/dataset.h"
#include "learned/predictor.h"

namespace {

using namespace loom;

// The nine families in turn, serving-like random shapes (the same ranges as tests/bench/gen_batch.py).
std::vector<KernelSpec> mixed_specs(size_t n) {
  std::mt19937_64 rng(1);
  auto in = [&](int64_t lo, int64_t hi) { return std::to_string(lo + int64_t(rng() % uint64_t(hi - lo + 1))); };
  auto p2 = [&](int lo, int hi) { return std::to_string(int64_t(1) << (lo + int(rng() % (hi - lo + 1)))); };
  std::vector<KernelSpec> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string t;
    switch (i % 9) {
      case 0: t = "gemm m=" + in(1, 8192) + " n=" + p2(9, 14) + " k=" + p2(9, 13) + " dtype=bf16"; break;
      case 1: t = "rms_norm rows=" + in(1, 16384) + " cols=" + p2(10, 14) + " dtype=bf16"; break;
      case 2: t = "elementwise op=silu_mul rows=" + in(1, 16384) + " cols=" + p2(10, 14) + " dtype=bf16"; break;
      case 3: t = "attention_decode batch=" + in(1, 256) + " heads=32 kv_heads=8 seq_kv=" + in(128, 32768) +
                  " head_dim=128 dtype=bf16"; break;
      case 4: t = "attention_prefill batch=" + in(1, 8) + " heads=32 kv_heads=8 seq=" + in(128, 8192) +
                  " head_dim=128 causal=1 dtype=bf16"; break;
      case 5: t = "rotary tokens=" + in(1, 16384) + " heads=32 head_dim=128 dtype=bf16"; break;
      case 6: t = "softmax rows=" + in(1, 8192) + " cols=" + p2(10, 15) + " dtype=fp32"; break;
      case 7: t = "layer_norm rows=" + in(1, 16384) + " cols=" + p2(10, 14) + " dtype=bf16"; break;
      default: t = "moe tokens=" + in(1, 4096) + " experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=" +
                   std::string(rng() % 2 ? "w13" : "w2");
    }
    out.push_back(parse_kernel_spec(t));
  }
  return out;
}

// `rows` rows drawn at random (seed 2) from `distinct` mixed specs: a serving simulator's or sweep's batch, which
// asks for the same few thousand shapes again and again.
std::vector<KernelSpec> repeated_specs(size_t rows, size_t distinct) {
  const std::vector<KernelSpec> pool = mixed_specs(distinct);
  std::mt19937_64 rng(2);
  std::vector<KernelSpec> out;
  out.reserve(rows);
  for (size_t i = 0; i < rows; ++i) out.push_back(pool[rng() % distinct]);
  return out;
}

// Arg 0: rows; arg 1: threads; arg 2: the rows repeat this many distinct specs (0: every row drawn afresh); arg 3
// 1 with the analysis's text (as JSON output), 0 without (as CSV output and the Python module).
void BM_PredictManyMixed(benchmark::State& state) {
  const GpuSpec gpu = Catalog::load().get("h200");
  const Predictor predictor("learned");  // a fresh predictor: its memo of earlier calls starts empty
  if (!predictor.learned()) state.SkipWithError("no learned model");
  const size_t rows = static_cast<size_t>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const size_t distinct = static_cast<size_t>(state.range(2));
  const bool text = state.range(3) != 0;
  const std::vector<KernelSpec> all = distinct ? repeated_specs(rows, distinct) : mixed_specs(rows);
  constexpr size_t kBlock = 4096;
  std::vector<KernelSpec> block;
  std::vector<const GpuSpec*> gpus;
  std::vector<Prediction> out;
  for (auto _ : state) {
    for (size_t b = 0; b < rows; b += kBlock) {
      const size_t e = std::min(rows, b + kBlock);
      block.assign(all.begin() + b, all.begin() + e);
      gpus.assign(e - b, &gpu);
      predictor.predict_many(gpus, block, false, out, threads, text);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows));
}
BENCHMARK(BM_PredictManyMixed)
    ->Args({1000, 1, 0, 1})->Args({100000, 1, 0, 1})->Args({100000, 2, 0, 1})->Args({1000000, 1, 0, 1})
    ->Args({1000000, 2, 0, 1})->Args({100000, 1, 2000, 1})->Args({1000000, 1, 2000, 1})->Args({1000000, 1, 20000, 1})
    ->Args({100000, 1, 0, 0})->Args({1000000, 1, 0, 0})->Args({100000, 1, 2000, 0})->Args({1000000, 1, 2000, 0})
    ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// The forest alone on 4,096 GEMM feature rows: one row at a time (arg 0), batched (arg 1: after the first
// iteration the SIMD walk's layout, where the CPU has AVX2), batched over the trees as they are (arg 2: the walk of
// a forest's first Forest::kLayoutFrom rows: a fresh copy of the forest, loaded untimed, walks the first 2,000 rows).
void BM_ForestGemm(benchmark::State& state) {
  const GpuSpec gpu = Catalog::load().get("h200");
  const auto model = EfficiencyModel::load(default_model_dir());
  const Forest* f = model.find("gemm", "");
  std::vector<float> x;
  size_t cols = 0;
  for (const auto& s : mixed_specs(9 * 4096)) {
    if (s.family != "gemm") continue;
    const Analysis a = analyze(gpu, s);
    const Sample smp = make_sample(a, gpu, default_impl(a.family));
    cols = smp.x.size();
    x.insert(x.end(), smp.x.begin(), smp.x.end());
  }
  const size_t n = state.range(0) == 2 ? std::min<size_t>(2000, x.size() / cols) : x.size() / cols;
  std::vector<float> out(n);
  const std::string packed = state.range(0) == 2 ? f->to_binary() : std::string();
  for (auto _ : state) {
    if (state.range(0) == 2) {
      state.PauseTiming();
      const Forest fresh = Forest::from_binary(packed);
      state.ResumeTiming();
      fresh.predict_batch(x.data(), n, cols, out.data());
    } else if (state.range(0) == 1) {
      f->predict_batch(x.data(), n, cols, out.data());
    } else {
      for (size_t r = 0; r < n; ++r) out[r] = f->predict(&x[r * cols]);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
  state.counters["trees"] = static_cast<double>(f->num_trees());
}
BENCHMARK(BM_ForestGemm)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// What one CLI prediction pays inside the process: catalogue, model index, the family's forest, one prediction.
void BM_ColdStartOnePrediction(benchmark::State& state) {
  const KernelSpec spec = parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16");
  for (auto _ : state) {
    const Catalog c = Catalog::load();
    const Predictor p("learned");
    benchmark::DoNotOptimize(p.predict(c.get("h200"), spec, false).latency_us);
  }
}
BENCHMARK(BM_ColdStartOnePrediction)->Unit(benchmark::kMillisecond);

// As the CLI's --kernel-model learned: a pure predictor, whose costs steps share (an opaque lambda over the same
// Predictor would be priced afresh in every step).
const Predictor& learned_predictor() {
  static const Predictor p("learned");
  return p;
}
KernelPredictor learned_kernels() { return as_kernel_predictor(learned_predictor()); }

// A 70B decode step (batch 16, 2k context, TP 8) with the learned kernel model.
void BM_Llama70bDecodeStepLearned(benchmark::State& state) {
  const GpuSpec gpu = Catalog::load().get("h200");
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile prof = load_profile("vllm");
  const Workload w = decode_workload(16, {2048}, 8);
  const KernelPredictor kp = learned_kernels();
  for (auto _ : state) benchmark::DoNotOptimize(predict_step(gpu, m, prof, w, std::nullopt, kp).timing.wall_time_us);
}
BENCHMARK(BM_Llama70bDecodeStepLearned)->Unit(benchmark::kMicrosecond);

// The what-if table: every catalogue GPU x TP 1/2/4/8 (rank_gpus), learned kernel model, cold analytical cache.
void BM_WhatIfTableLearned(benchmark::State& state) {
  const Catalog c = Catalog::load();
  std::vector<GpuSpec> gpus;
  for (const auto& n : c.names()) gpus.push_back(c.get(n));
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile prof = load_profile("vllm");
  WhatIfRequest req;
  req.batch = 8;
  req.input_len = 2048;
  req.output_len = 256;
  req.tp_choices = {1, 2, 4, 8};
  req.threads = static_cast<int>(state.range(0));  // /1, /2: whatif --threads
  const KernelPredictor kp = learned_kernels();
  for (auto _ : state) {
    clear_kernel_cost_cache();
    learned_predictor().clear_memo();  // shared with kp's copy: every row is priced afresh
    benchmark::DoNotOptimize(rank_gpus(gpus, m, prof, req, kp));
  }
  state.counters["gpus"] = static_cast<double>(gpus.size());
}
BENCHMARK(BM_WhatIfTableLearned)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// What `loom whatif --gpus all --tp 1,2,4,8` computes in process, from nothing: the catalogue, a fresh learned
// predictor (each family's forest loaded on first use), the model and profile, the ranked table and the top GPU's
// sensitivity, with the kernel-cost cache cleared (the CLI's end to end less process start and printing; the kernel
// config tables and traced GEMM paths stay loaded after the first iteration: they have no clear function).
void BM_WhatIfColdInProcess(benchmark::State& state) {
  WhatIfRequest req;
  req.batch = 8;
  req.input_len = 2048;
  req.output_len = 256;
  req.tp_choices = {1, 2, 4, 8};
  for (auto _ : state) {
    clear_kernel_cost_cache();
    const Catalog c = Catalog::load();
    std::vector<GpuSpec> gpus;
    for (const auto& n : c.names()) gpus.push_back(c.get(n));
    const Predictor p("learned");
    const KernelPredictor kp = as_kernel_predictor(p);
    const ModelConfig m = load_model("llama-3-70b");
    const ServingProfile prof = load_profile("vllm");
    const std::vector<WhatIfRow> rows = rank_gpus(gpus, m, prof, req, kp);
    for (const auto& g : gpus)
      if (g.name == rows.front().gpu) benchmark::DoNotOptimize(sensitivity(g, rows.front().tp, m, prof, req, kp));
  }
}
BENCHMARK(BM_WhatIfColdInProcess)->Unit(benchmark::kMillisecond);

}  // namespace
