// The serving simulator's scheduler and pipeline: single-request latencies equal the step model's, tokens are
// conserved, chunked prefill, prefix caching, preemption, CUDA-graph padding, replicas, pipeline stages, capacity.
#include <gtest/gtest.h>

#include "core/error.h"
#include "e2e/profile.h"
#include "hw/catalog.h"
#include "serving/capacity.h"
#include "serving/engine.h"
#include "serving/step_cost.h"

namespace loom::serving {
namespace {

struct Fixture {
  Catalog catalog = Catalog::load();
  GpuSpec gpu = catalog.get("h200");
  ModelConfig model = load_model("llama-3-8b");
  ServingProfile profile = load_profile("vllm");
};

Request req(double t, int64_t prompt, int64_t output, int64_t cached = 0) {
  static int64_t id = 0;
  return {id++, t, prompt, output, cached};
}

void expect_conserved(const SimResult& r, const std::vector<Request>& in) {
  size_t gaps = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const RequestResult& q = r.requests[i];
    EXPECT_GE(q.first_token_s, q.arrival_s);
    EXPECT_GE(q.finish_s, q.first_token_s);
    EXPECT_GT(q.finish_s, 0);
    gaps += static_cast<size_t>(in[i].output_tokens - 1);
  }
  EXPECT_EQ(r.itl_ms.size(), gaps);  // every output token after the first is one gap
}

TEST(ServingEngine, LoneRequestMatchesTheStepModel) {
  Fixture f;
  const std::vector<Request> in = {req(0, 1000, 11)};
  const SimResult r = simulate(f.gpu, f.model, f.profile, in, {}, {});
  const double prefill_us =
      predict_step(f.gpu, f.model, f.profile, prefill_workload(1, {1000}, {}, 1)).timing.wall_time_us;
  EXPECT_NEAR(r.requests[0].ttft_ms(), prefill_us / 1e3, prefill_us / 1e3 * 0.03);
  // Decode steps run as CUDA graphs at batch 1 over contexts 1001..1010.
  const double decode_us = predict_step(f.gpu, f.model, f.profile, decode_workload(1, {1005}, 1)).timing.wall_time_us;
  EXPECT_NEAR(r.requests[0].tpot_ms(), decode_us / 1e3, decode_us / 1e3 * 0.03);
  EXPECT_EQ(r.steps, 11);
  expect_conserved(r, in);
}

TEST(ServingEngine, ChunkedPrefillAndPrefixCache) {
  Fixture f;
  f.profile.scheduler.max_num_batched_tokens = 512;
  const std::vector<Request> in = {req(0, 2000, 2)};
  const SimResult r = simulate(f.gpu, f.model, f.profile, in, {}, {});
  EXPECT_EQ(r.steps, 4 + 1);  // ceil(2000 / 512) prefill chunks, then one decode
  const std::vector<Request> cached = {req(0, 2000, 2, 1500)};
  const SimResult c = simulate(f.gpu, f.model, f.profile, cached, {}, {});
  EXPECT_EQ(c.steps, 1 + 1);
  EXPECT_LT(c.requests[0].ttft_ms(), r.requests[0].ttft_ms() / 2);
  f.profile.scheduler.prefix_caching = false;
  EXPECT_EQ(simulate(f.gpu, f.model, f.profile, cached, {}, {}).steps, 5);
  f.profile.scheduler.chunked_prefill = false;
  EXPECT_THROW(simulate(f.gpu, f.model, f.profile, in, {}, {}), InputError);  // longer than the token budget
}

TEST(ServingEngine, PreemptionUnderKvPressureStillFinishesEveryToken) {
  Fixture f;
  f.gpu.dram_bytes = static_cast<int64_t>(22e9);  // ~3.6 GB of KV cache after weights: ~27k tokens
  std::vector<Request> in;
  for (int i = 0; i < 40; ++i) in.push_back(req(0.001 * i, 600, 600));
  const SimResult r = simulate(f.gpu, f.model, f.profile, in, {}, {});
  EXPECT_GT(r.preemptions, 0);
  expect_conserved(r, in);
  // A request that can never fit the cache is refused up front.
  std::vector<Request> huge = {req(0, 200000, 10)};
  EXPECT_THROW(simulate(f.gpu, f.model, f.profile, huge, {}, {}), InputError);
}

TEST(ServingEngine, CudaGraphPadding) {
  Fixture f;
  StepCost cost(f.gpu, f.model, f.profile, 1, {});
  BatchShape b;
  b.decodes = 3;
  b.decode_kv = 3000;
  EXPECT_EQ(cost.graph_batch(b), 4);
  b.decodes = 513;
  b.decode_kv = 513000;
  EXPECT_EQ(cost.graph_batch(b), 0);  // above the largest capture size: eager
  b.decodes = 3;
  b.prefills = 1;
  b.prefill_tokens = 100;
  EXPECT_EQ(cost.graph_batch(b), 0);  // mixed steps are not captured
  EXPECT_EQ(bucket(20), 20);
  EXPECT_NEAR(static_cast<double>(bucket(10000)), 10000, 10000 * 0.011);
}

TEST(ServingEngine, StepClockThrottlesOnlyPastTheOnset) {
  // --clock auto for serving: a step priced at boost; one whose GPU time runs past the GPU's onset is priced
  // boost + w x (sustained - boost), w = (T - onset) / T. A stand-in predictor: every kernel 100 us at boost, 130 us
  // throttled, so a step's sustained wall is known in closed form from its boost one.
  Fixture f;
  f.gpu.tensor_load_onset_s = 0.02;  // 20 ms
  const KernelPredictor boost = [](const GpuSpec&, const KernelSpec&) { return 100.0; };
  const KernelPredictor slow = [](const GpuSpec&, const KernelSpec&) { return 130.0; };
  StepCost plain(f.gpu, f.model, f.profile, 1, boost), clocked(f.gpu, f.model, f.profile, 1, boost),
      throttled(f.gpu, f.model, f.profile, 1, slow);
  clocked.set_step_clock(slow);
  BatchShape small;  // a few-token eager prefill: ~290 launches, ~29 ms of GPU time: past the onset
  small.prefills = 1;
  small.prefill_tokens = 16;
  small.prefill_pairs = 16 * 17 / 2.0;
  const double b = plain.step_us(small), s = throttled.step_us(small), a = clocked.step_us(small);
  ASSERT_GT(b, 20000);
  EXPECT_GT(a, b);
  EXPECT_LT(a, s);
  BatchShape decode;  // a CUDA-graph decode step of the same launches is as long: it throttles the same way
  decode.decodes = 4;
  decode.decode_kv = 4 * 100;
  decode.decode_kv_max = 100;
  EXPECT_GT(clocked.step_us(decode), plain.step_us(decode));
  f.gpu.tensor_load_onset_s = 10;  // an onset no step reaches: boost
  StepCost late(f.gpu, f.model, f.profile, 1, boost);
  late.set_step_clock(slow);
  EXPECT_DOUBLE_EQ(late.step_us(small), plain.step_us(small));
}

TEST(ServingEngine, ReplicasAndRouters) {
  Fixture f;
  const auto stream =
      at_rate(synthesize(400, 1, {}, parse_length_dist("800", "x"), parse_length_dist("100", "x"), 1), 60);
  SimConfig one;
  const SimResult a = simulate(f.gpu, f.model, f.profile, stream, one, {});
  SimConfig two;
  two.replicas = 2;
  two.router = "least_outstanding";
  const SimResult b = simulate(f.gpu, f.model, f.profile, stream, two, {});
  expect_conserved(b, stream);
  int on_second = 0;
  for (const auto& q : b.requests) on_second += q.replica;
  EXPECT_GT(on_second, 150);
  EXPECT_LT(on_second, 250);
  EXPECT_LT(summarize(b, {}).e2e_ms.mean, summarize(a, {}).e2e_ms.mean);
  two.router = "random";
  EXPECT_THROW(simulate(f.gpu, f.model, f.profile, stream, two, {}), InputError);
}

TEST(ServingEngine, PipelineStages) {
  Fixture f;
  const std::vector<Request> in = {req(0, 1000, 5)};
  SimConfig pp;
  pp.pp = 2;
  const SimResult r = simulate(f.gpu, f.model, f.profile, in, pp, {});
  const ModelConfig half = stage_model(f.model, 2);
  EXPECT_EQ(half.layers, 16);
  const double stage_us = predict_step(f.gpu, half, f.profile, prefill_workload(1, {1000}, {}, 1)).timing.wall_time_us;
  // A lone request crosses both stages back to back, plus one activation transfer.
  EXPECT_GT(r.requests[0].ttft_ms(), 2 * stage_us / 1e3 * 0.97);
  EXPECT_LT(r.requests[0].ttft_ms(), 2 * stage_us / 1e3 * 1.05 + 0.05);
  pp.pp = 0;
  EXPECT_THROW(simulate(f.gpu, f.model, f.profile, in, pp, {}), InputError);
}

TEST(ServingEngine, CapacityMeetsItsSloAndLooserSlosServeMore) {
  Fixture f;
  CapacityQuery q;
  q.unit_stream = synthesize(300, 1, {}, parse_length_dist("1000", "x"), parse_length_dist("100", "x"), 2);
  q.target_rate = 50;
  q.slo = parse_slo("ttft=1s,tpot=30ms", "--slo");
  const CapacityRow tight = capacity(f.gpu, 1, f.model, f.profile, q, {});
  ASSERT_TRUE(tight.error.empty()) << tight.error;
  ASSERT_GT(tight.max_rate, 0);
  EXPECT_LE(tight.ttft_p99_ms, 1000);
  EXPECT_LE(tight.tpot_p99_ms, 30);
  EXPECT_EQ(tight.replicas, static_cast<int64_t>(std::ceil(50 / tight.max_rate - 1e-9)));
  q.slo = parse_slo("ttft=5s,tpot=80ms", "--slo");
  EXPECT_GT(capacity(f.gpu, 1, f.model, f.profile, q, {}).max_rate, tight.max_rate);
  // A GPU that cannot hold the model reports why instead of throwing.
  const CapacityRow none = capacity(f.catalog.get("t4"), 1, load_model("llama-3-70b"), f.profile, q, {});
  EXPECT_FALSE(none.error.empty());
}

TEST(ServingProfileScheduler, StrictSection) {
  const ServingProfile p = parse_profile("scheduler:\n  policy: prefill_first\n  max_num_seqs: 8\n", "p.yaml");
  EXPECT_EQ(p.scheduler.policy, "prefill_first");
  EXPECT_EQ(p.scheduler.max_num_seqs, 8);
  EXPECT_EQ(p.scheduler.graph_max(), 512);  // vLLM's capture sizes by default
  for (const char* bad : {"scheduler:\n  polcy: mixed\n", "scheduler:\n  max_num_seqs: 0\n",
                          "scheduler:\n  block_size: 1.5\n", "scheduler:\n  cuda_graph_sizes: [4, 2]\n",
                          "scheduler:\n  chunked_prefill: maybe\n", "scheduler: 5\n",
                          "scheduler:\n  step_overhead_us: .nan\n"})
    EXPECT_THROW(parse_profile(bad, "p.yaml"), InputError) << bad;
}

}  // namespace
}  // namespace loom::serving
