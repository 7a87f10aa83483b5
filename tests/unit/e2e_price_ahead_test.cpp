// Pricing a what-if table's kernels ahead in one batch (price_ahead, KernelPredictor's batch form): the same table as
// pricing each kernel when a step asks for it, on any thread count, with GPUs that cannot run the model reported as
// before; and the pointer index the step loop uses.
#include <gtest/gtest.h>

#include <atomic>

#include "core/error.h"
#include "core/ptr_index.h"
#include "e2e/e2e.h"
#include "e2e/timeline.h"
#include "e2e/whatif.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "learned/predictor.h"

namespace loom {
namespace {

/// The learned predictor as a pure function without a batch form: every kernel priced one at a time.
KernelPredictor one_at_a_time(const Predictor& p, std::atomic<int>* calls) {
  static std::atomic<int> serial{0};
  return KernelPredictor::pure(
      [&p, calls](const GpuSpec& g, const KernelSpec& s) {
        if (calls) ++*calls;
        return p.latency_us(g, s);
      },
      "test-one-at-a-time#" + std::to_string(serial++));
}

/// Every catalogue entry, as `whatif --gpus all` lists them.
std::vector<GpuSpec> every_gpu(const Catalog& c) {
  std::vector<GpuSpec> gpus;
  for (const auto& n : c.names()) gpus.push_back(c.get(n));
  return gpus;
}

void expect_same_rows(const std::vector<WhatIfRow>& a, const std::vector<WhatIfRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].gpu + " tp " + std::to_string(a[i].tp));
    EXPECT_EQ(a[i].gpu, b[i].gpu);
    EXPECT_EQ(a[i].tp, b[i].tp);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].ttft_us, b[i].ttft_us);  // exactly: the batch gives each row what predict() gives
    EXPECT_EQ(a[i].tpot_us, b[i].tpot_us);
    EXPECT_EQ(a[i].fits, b[i].fits);
  }
}

TEST(PriceAhead, WhatIfTableIsTheSameBatchedOrOneAtATime) {
  const Predictor p("learned");
  ASSERT_TRUE(p.learned());
  const Catalog c = Catalog::load();
  const std::vector<GpuSpec> gpus = every_gpu(c);
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile prof = load_profile("vllm");
  WhatIfRequest req;
  req.batch = 8, req.input_len = 2048, req.output_len = 256, req.tp_choices = {1, 2, 4, 8};
  std::atomic<int> calls{0};
  const std::vector<WhatIfRow> ref = rank_gpus(gpus, m, prof, req, one_at_a_time(p, &calls));
  EXPECT_GT(calls.load(), 500);  // every kernel of the table was priced through the scalar path
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    clear_kernel_cost_cache();
    p.clear_memo();
    req.threads = threads;
    const KernelPredictor batched = as_kernel_predictor(p);
    ASSERT_TRUE(batched.batched());
    expect_same_rows(ref, rank_gpus(gpus, m, prof, req, batched));
  }
  // The sensitivity's changes on one thread and on three: the same rows.
  {
    const GpuSpec h200 = c.get("h200");
    WhatIfRequest one = req;
    one.threads = 1;
    const auto serial = sensitivity(h200, 2, m, prof, one, as_kernel_predictor(p));
    one.threads = 3;
    const auto spread = sensitivity(h200, 2, m, prof, one, as_kernel_predictor(p));
    ASSERT_EQ(serial.size(), 6u);
    ASSERT_EQ(spread.size(), serial.size());
    for (size_t i = 0; i < serial.size(); ++i) {
      EXPECT_EQ(serial[i].change, spread[i].change);
      EXPECT_EQ(serial[i].ttft_delta_pct, spread[i].ttft_delta_pct);
      EXPECT_EQ(serial[i].tpot_delta_pct, spread[i].tpot_delta_pct);
    }
  }
  // Automatic TP (ahead: each GPU's degrees up to the first that fits); GPUs without bf16 (P100, V100, T4) fail.
  req.tp_choices.clear();
  for (const char* model : {"llama-3-8b", "mixtral-8x7b"}) {
    SCOPED_TRACE(model);
    const ModelConfig mm = load_model(model);
    const std::vector<WhatIfRow> one = rank_gpus(gpus, mm, prof, req, one_at_a_time(p, nullptr));
    clear_kernel_cost_cache();
    expect_same_rows(one, rank_gpus(gpus, mm, prof, req, as_kernel_predictor(p)));
  }
}

TEST(PriceAhead, KeepsOnlyWhatTheStepWouldAskAndSkipsFailingGpus) {
  const Predictor p("learned");
  const Catalog c = Catalog::load();
  const GpuSpec h200 = c.get("h200");
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile prof = load_profile("vllm");
  const std::vector<Op> ops = build_op_graph(m, prof, decode_workload(4, {1000}, 1));
  clear_kernel_cost_cache();
  // A predictor whose batch form throws for every row: nothing is kept, and the step prices (and reports) itself.
  std::atomic<int> scalar{0};
  const KernelPredictor failing = KernelPredictor::pure(
      [&](const GpuSpec& g, const KernelSpec& s) { return ++scalar, p.latency_us(g, s); }, "test-failing-batch",
      [](const std::vector<const GpuSpec*>&, const std::vector<KernelSpec>&, std::vector<double>&, int,
         std::vector<uint8_t>*) { throw InputError("test", "cannot price"); });
  price_ahead({{&h200, &ops, ExecMode::graph}}, failing);
  const StepTiming a = simulate_step(h200, ops, prof, ExecMode::graph, false, failing);
  EXPECT_GT(scalar.load(), 5);
  // A batch form that prices: the step then asks the scalar path for nothing, and times the same.
  std::atomic<int> scalar2{0}, rows{0};
  const KernelPredictor batched = KernelPredictor::pure(
      [&](const GpuSpec& g, const KernelSpec& s) { return ++scalar2, p.latency_us(g, s); }, "test-batch",
      [&](const std::vector<const GpuSpec*>& g, const std::vector<KernelSpec>& s, std::vector<double>& out, int,
          std::vector<uint8_t>*) {
        rows += static_cast<int>(s.size());
        out.clear();
        for (size_t i = 0; i < s.size(); ++i) out.push_back(p.latency_us(*g[i], s[i]));
      });
  price_ahead({{&h200, &ops, ExecMode::graph}, {&h200, &ops, ExecMode::graph}}, batched);
  EXPECT_EQ(rows.load(), scalar.load());  // each distinct kernel once, though the step was listed twice
  const StepTiming b = simulate_step(h200, ops, prof, ExecMode::graph, false, batched);
  EXPECT_EQ(scalar2.load(), 0);
  EXPECT_EQ(a.wall_time_us, b.wall_time_us);
  EXPECT_EQ(a.gpu_time_us, b.gpu_time_us);
  price_ahead({{&h200, &ops, ExecMode::graph}}, batched);  // all kept already: nothing asked
  EXPECT_EQ(rows.load(), scalar.load());
}

TEST(PriceAhead, OneBatchWithGpusThatCannotRunSomeKernels) {
  // llama-3-8b on every GPU, automatic TP: P100, V100 and T4 have no bf16. The batch marks their refused rows and
  // prices everything else in one call (no retry GPU by GPU); their steps then ask the scalar path only for what
  // the batch refused, and report it as before.
  const Predictor p("learned");
  const Catalog c = Catalog::load();
  const std::vector<GpuSpec> gpus = every_gpu(c);
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile prof = load_profile("vllm");
  WhatIfRequest req;
  req.batch = 8, req.input_len = 1024, req.output_len = 64;
  const std::vector<WhatIfRow> ref = rank_gpus(gpus, m, prof, req, one_at_a_time(p, nullptr));
  size_t failing_gpus = 0;
  for (const auto& r : ref) failing_gpus += !r.error.empty();
  ASSERT_GE(failing_gpus, 2u);
  const KernelPredictor inner = as_kernel_predictor(p);
  std::atomic<int> scalar{0}, batches{0}, refused{0};
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    clear_kernel_cost_cache();
    p.clear_memo();
    scalar = batches = refused = 0;
    static std::atomic<int> serial{0};
    const KernelPredictor counted = KernelPredictor::pure(
        [&](const GpuSpec& g, const KernelSpec& s) { return ++scalar, inner(g, s); },
        "test-counted#" + std::to_string(serial++),
        [&](const std::vector<const GpuSpec*>& g, const std::vector<KernelSpec>& s, std::vector<double>& out,
            int t, std::vector<uint8_t>* failed) {
          ++batches;
          inner.batch(g, s, out, t, failed);
          if (failed)
            for (uint8_t f : *failed) refused += f;
        });
    req.threads = threads;
    expect_same_rows(ref, rank_gpus(gpus, m, prof, req, counted));
    EXPECT_EQ(batches.load(), 1);
    EXPECT_GT(refused.load(), 0);
    EXPECT_LE(scalar.load(), refused.load());  // each failing step stops at its first refused kernel
  }
}

TEST(PriceAhead, PredictManyMarksRefusedRows) {
  const Predictor p("learned");
  const Catalog c = Catalog::load();
  const GpuSpec t4 = c.get("t4"), h200 = c.get("h200");
  const std::vector<KernelSpec> specs = {parse_kernel_spec("gemm m=64 n=4096 k=4096 dtype=bf16"),
                                         parse_kernel_spec("gemm m=64 n=4096 k=4096 dtype=fp16"),
                                         parse_kernel_spec("gemm m=64 n=4096 k=4096 dtype=bf16")};
  const std::vector<const GpuSpec*> g = {&t4, &t4, &h200};
  std::vector<Prediction> out;
  EXPECT_THROW(p.predict_many(g, specs, false, out), InputError);
  std::vector<uint8_t> failed;
  for (int threads : {1, 2}) {
    p.clear_memo();
    p.predict_many(g, specs, false, out, threads, true, &failed);
    ASSERT_EQ(failed, (std::vector<uint8_t>{1, 0, 0}));
    EXPECT_EQ(out[1].latency_us, p.predict(t4, specs[1]).latency_us);
    EXPECT_EQ(out[2].latency_us, p.predict(h200, specs[2]).latency_us);
    EXPECT_EQ(out[0].analysis, nullptr);
  }
}

TEST(PtrIndex, DenseIndicesInOrderOfFirstSight) {
  std::vector<int> objects(1000);
  PtrIndex index;
  bool added = false;
  EXPECT_EQ(index.find(&objects[0]), PtrIndex::npos);
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < objects.size(); ++i) {
      EXPECT_EQ(index.find_or_add(&objects[i], added), i);
      EXPECT_EQ(added, round == 0);
    }
  EXPECT_EQ(index.size(), objects.size());
  for (size_t i = 0; i < objects.size(); ++i) EXPECT_EQ(index.find(&objects[i]), i);
  int other = 0;
  EXPECT_EQ(index.find(&other), PtrIndex::npos);
}

}  // namespace
}  // namespace loom
