// Step prediction: execution modes (megakernel < graph < eager for decode), memory fit, breakdowns, what-if.
#include <gtest/gtest.h>

#include <numeric>

#include "core/error.h"
#include "analytical/analysis.h"
#include "e2e/chrome_trace.h"
#include "e2e/e2e.h"
#include "e2e/timeline.h"
#include "e2e/whatif.h"
#include "kernels/kernel_spec.h"
#include "hw/catalog.h"

namespace loom {
namespace {

/// A GPU with only the fields memory fit reads, so the expected numbers can be checked by hand.
GpuSpec memory_only_gpu(double gb) {
  GpuSpec g;
  g.name = "test";
  g.dram_bytes = static_cast<int64_t>(gb * 1e9);
  g.gpus_per_node = 8;  // TP stays in one node: memory_fit refuses a degree beyond it
  return g;
}

TEST(E2eMemory, Llama70bFitsOnlyWithTp) {
  const ModelConfig m = load_model("llama-3-70b");
  const ServingProfile p = load_profile("vllm");
  // 70.55B params x 2 bytes = 141.1 GB of weights: more than an 80 GB H100.
  const auto one = memory_fit(memory_only_gpu(80), m, p, decode_workload(1, {1024}, 1));
  EXPECT_NEAR(one.weights_bytes / 1e9, 141.1, 0.2);
  EXPECT_FALSE(one.fits);
  EXPECT_NE(one.note.find("DOES NOT FIT"), std::string::npos);
  // tp=2 on 141 GB H200s: 70.6 GB weights + KV (1025 tokens x 80 layers x 2 x 4 heads x 128 x 2 B = 168 MB).
  const auto two = memory_fit(memory_only_gpu(141), m, p, decode_workload(1, {1024}, 2));
  EXPECT_NEAR(two.weights_bytes / 1e9, 70.55, 0.1);
  EXPECT_NEAR(two.kv_cache_bytes, 1025.0 * 80 * 2 * 4 * 128 * 2, 1);
  EXPECT_TRUE(two.fits);
  // ... but a large batch of long contexts does not.
  EXPECT_FALSE(memory_fit(memory_only_gpu(141), m, p, decode_workload(64, {32768}, 2)).fits);
}

TEST(E2eMemory, StaticCacheCountsItsFullLength) {  // issue 17: --cache-len priced the kernels, not the memory
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile p = load_profile("hf-sdpa");
  Workload w = decode_workload(2, {64}, 1);
  const double held = memory_fit(memory_only_gpu(141), m, p, w).kv_cache_bytes;
  EXPECT_NEAR(held, 2.0 * 65 * 131072.0, 1);
  w.static_cache_len = 4096;  // allocated for both requests, whatever they hold
  EXPECT_NEAR(memory_fit(memory_only_gpu(141), m, p, w).kv_cache_bytes, 2.0 * 4096 * 131072.0, 1);
  w.static_cache_len = 100000000;
  EXPECT_FALSE(memory_fit(memory_only_gpu(141), m, p, w).fits);
}

TEST(E2eMemory, KvBytesPerToken) {
  // Llama 3 8B: 32 layers x 2 (K, V) x 8 heads x 128 x 2 bytes = 128 KiB per token.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(load_model("llama-3-8b"), 1), 131072.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(load_model("llama-3-8b"), 4), 32768.0);
}

class E2eStep : public ::testing::Test {
 protected:
  void SetUp() override {
    const Catalog c = Catalog::load();
    const auto names = c.names();
    ASSERT_FALSE(names.empty());
    // Prefer an H100 or H200 entry; any catalogue GPU with a bf16 tensor path would do.
    std::string pick = names.front();
    for (const auto& n : names)
      if (n.find("h100") != std::string::npos || n.find("h200") != std::string::npos) { pick = n; break; }
    gpu = c.get(pick);
  }
  /// `gpu` with no raw launch cost (every issue time is then profile host time), and the same on a host half as fast.
  std::pair<GpuSpec, GpuSpec> host_only_fast_and_half() const {
    GpuSpec fast = gpu;
    fast.launch_overhead_us = 0;
    GpuSpec slow = fast;
    slow.host_cpu_speed = fast.host_cpu_speed / 2;
    return {fast, slow};
  }
  /// The what-if tests' request: 4 requests of 512 prompt tokens, 128 generated.
  static WhatIfRequest whatif_request() {
    WhatIfRequest req;
    req.batch = 4;
    req.input_len = 512;
    req.output_len = 128;
    return req;
  }
  GpuSpec gpu;
  // The models and profile most tests price (a test that changes a profile copies it or loads its own).
  const ModelConfig llama_1b = load_model("llama-3.2-1b");
  const ModelConfig llama_8b = load_model("llama-3-8b");
  const ServingProfile vllm = load_profile("vllm");
};

TEST_F(E2eStep, DecodeModesAreOrdered) {
  const Workload w = decode_workload(1, {512}, 1);
  const auto eager = predict_step(gpu, llama_1b, vllm, w, ExecMode::eager);
  const auto graph = predict_step(gpu, llama_1b, vllm, w, ExecMode::graph);
  const auto mega = predict_step(gpu, llama_1b, vllm, w, ExecMode::megakernel);
  EXPECT_LT(mega.timing.wall_time_us, graph.timing.wall_time_us);
  EXPECT_LT(graph.timing.wall_time_us, eager.timing.wall_time_us);
  // Same kernels, same GPU time; only the layout differs.
  EXPECT_DOUBLE_EQ(eager.timing.gpu_time_us, graph.timing.gpu_time_us);
  // Graph: one launch, then every kernel's time plus a gap per kernel after the first.
  const double n = static_cast<double>(graph.timing.kernels.size());
  // The GPU's own gap where the catalogue has one.
  const double gap = gpu.graph_gap_us > 0 ? gpu.graph_gap_us : vllm.graph_gap_us;
  EXPECT_NEAR(graph.timing.wall_time_us, gpu.launch_overhead_us + graph.timing.gpu_time_us + (n - 1) * gap,
              1e-6 * graph.timing.wall_time_us);
  // Eager: never faster than max(total GPU time, total launch time).
  EXPECT_GE(eager.timing.wall_time_us + 1e-9, std::max(eager.timing.gpu_time_us, n * gpu.launch_overhead_us));
}

TEST_F(E2eStep, TheGpusOwnGraphGapWinsOverTheProfiles) {
  const Workload w = decode_workload(1, {512}, 1);
  GpuSpec slow_gaps = gpu;
  const double gap = gpu.graph_gap_us > 0 ? gpu.graph_gap_us : vllm.graph_gap_us;
  slow_gaps.graph_gap_us = gap + 2.0;  // a catalogue graph_gap 2 us longer (e.g. from loom calibrate)
  const auto base = predict_step(gpu, llama_1b, vllm, w, ExecMode::graph);
  const auto gapped = predict_step(slow_gaps, llama_1b, vllm, w, ExecMode::graph);
  const double n = static_cast<double>(base.timing.kernels.size());
  EXPECT_DOUBLE_EQ(gapped.timing.gpu_time_us, base.timing.gpu_time_us);
  EXPECT_NEAR(gapped.timing.wall_time_us - base.timing.wall_time_us, (n - 1) * 2.0, 1e-6 * base.timing.wall_time_us);
}

TEST_F(E2eStep, HostCostsScaleWithTheHostsSpeed) {
  // The profile's host costs are divided by the GPU's host.cpu_speed (and multiplied by the profile's own, the speed
  // of the host they were measured on). With the raw launch cost at 0 every issue time is profile host time, so on a
  // host half as fast each launch is issued twice as late.
  ServingProfile p = load_profile("hf-eager");
  p.new_kv_length_host_us = 1000;
  const Workload w = decode_workload(1, {128}, 1);
  const auto [fast, slow] = host_only_fast_and_half();
  const auto a = predict_step(fast, llama_1b, p, w, ExecMode::eager).timing;
  const auto b = predict_step(slow, llama_1b, p, w, ExecMode::eager).timing;
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  ASSERT_GT(a.kernels.back().issue_us, 1000 * p.host_cpu_speed / fast.host_cpu_speed);
  for (size_t i = 0; i < a.kernels.size(); ++i) EXPECT_NEAR(b.kernels[i].issue_us, 2 * a.kernels[i].issue_us, 1e-6);
  EXPECT_GT(b.wall_time_us, a.wall_time_us);
}

TEST_F(E2eStep, APlanBuildsFixedShareDoesNotFollowTheHost) {
  // new_kv_length_host_fixed_share: on a host half as fast the plan takes fixed + (1 - fixed) x 2 of its time;
  // the launches' host time still doubles. hf-sdpa's decode attention pays the plan (1000 us here).
  ServingProfile p = load_profile("hf-sdpa");
  p.new_kv_length_host_us = 1000;
  const Workload w = decode_workload(1, {128}, 1);
  const auto [fast, slow] = host_only_fast_and_half();
  auto plan_us = [&](const GpuSpec& g, double share) {
    p.new_kv_length_host_fixed_share = share;
    const auto with = predict_step(g, llama_1b, p, w, ExecMode::eager).timing;
    p.new_kv_length_host_us = 0;
    const auto without = predict_step(g, llama_1b, p, w, ExecMode::eager).timing;
    p.new_kv_length_host_us = 1000;
    return with.kernels.back().issue_us - without.kernels.back().issue_us;
  };
  const double base = 1000 * p.host_cpu_speed / fast.host_cpu_speed;
  EXPECT_NEAR(plan_us(fast, 0.0), base, 1e-6);
  EXPECT_NEAR(plan_us(slow, 0.0), 2 * base, 1e-6);
  EXPECT_NEAR(plan_us(slow, 0.25), 1000 * (0.25 + 0.75 * 2 * base / 1000), 1e-6);
  EXPECT_NEAR(plan_us(fast, 0.25), 1000 * (0.25 + 0.75 * base / 1000), 1e-6);
  EXPECT_THROW(parse_profile("name: x\nnew_kv_length_host_fixed_share: 1.5\n", "p.yaml"), InputError);
  EXPECT_THROW(parse_profile("name: x\nnew_kv_length_host_fixed_share: -0.1\n", "p.yaml"), InputError);
}

TEST_F(E2eStep, AFallenBackCustomAllReduceIsListedAsNccl) {
  // vllm prices its small all-reduces as the engines' custom kernel (impl=custom); on 4 PCIe GPUs (l40) the engines
  // run NCCL, which parse_shape prices: the kernel list says impl=nccl there, impl=custom on an NVSwitch node.
  const Catalog c = Catalog::load();
  const Workload w = decode_workload(1, {512}, 4);
  auto listed = [&](const std::string& gpu_name, const std::string& impl) {
    int n = 0;
    for (const auto& k : predict_step(c.get(gpu_name), llama_8b, vllm, w, ExecMode::graph).timing.kernels)
      n += k.family() == "all_reduce" && k.spec().find(" impl=" + impl) != std::string::npos;
    return n;
  };
  EXPECT_EQ(listed("l40", "custom"), 0);
  EXPECT_GT(listed("l40", "nccl"), 0);
  EXPECT_GT(listed("h100-sxm", "custom"), 0);
}

TEST_F(E2eStep, EagerCollectivesCostHostTime) {
  // collective_host_us: an eager step's collective launches each cost that much more host time (scaled like the
  // profile's other host costs); a CUDA-graph step does not pay it.
  ServingProfile p = load_profile("hf-sdpa");
  const Workload w = prefill_workload(1, {64}, {}, 2);
  p.collective_host_us = 0;
  const auto a = predict_step(gpu, llama_8b, p, w, ExecMode::eager).timing;
  const auto ga = predict_step(gpu, llama_8b, p, w, ExecMode::graph).timing;
  p.collective_host_us = 500;
  const auto b = predict_step(gpu, llama_8b, p, w, ExecMode::eager).timing;
  const auto gb = predict_step(gpu, llama_8b, p, w, ExecMode::graph).timing;
  int collectives = 0;
  for (const auto& k : b.kernels) {
    const std::string f = k.family();
    collectives += f == "all_reduce" || f == "all_gather";
  }
  EXPECT_EQ(collectives, 2 * 32 + 2);  // two a layer, the embedding's, the logits gather
  const double scale = host_time_scale(p, gpu.host_cpu_speed);
  EXPECT_NEAR(b.kernels.back().issue_us - a.kernels.back().issue_us, 500 * scale * collectives, 1e-6);
  EXPECT_GT(b.wall_time_us, a.wall_time_us);
  EXPECT_DOUBLE_EQ(gb.wall_time_us, ga.wall_time_us);
}

TEST_F(E2eStep, InputPreparationPrecedesTheFirstLaunch) {
  // eager_input_host_us / graph_input_host_us: host time before the step's first launch while the GPU idles. A graph
  // step's wall grows by exactly that (the replay waits); an eager step's launches are all issued that much later.
  ServingProfile p = vllm;
  const Workload w = decode_workload(4, {512, 512, 512, 512}, 1);
  const double scale = host_time_scale(p, gpu.host_cpu_speed);
  const auto g0 = predict_step(gpu, llama_1b, p, w, ExecMode::graph).timing;
  const auto e0 = predict_step(gpu, llama_1b, p, w, ExecMode::eager).timing;
  p.graph_input_host_us = 500;
  p.eager_input_host_us = 300;
  const auto g1 = predict_step(gpu, llama_1b, p, w, ExecMode::graph).timing;
  const auto e1 = predict_step(gpu, llama_1b, p, w, ExecMode::eager).timing;
  EXPECT_NEAR(g1.wall_time_us - g0.wall_time_us, 500 * scale, 1e-6 * g1.wall_time_us);
  EXPECT_DOUBLE_EQ(g1.gpu_time_us, g0.gpu_time_us);
  ASSERT_EQ(e1.kernels.size(), e0.kernels.size());
  for (size_t i = 0; i < e0.kernels.size(); ++i)
    EXPECT_NEAR(e1.kernels[i].issue_us - e0.kernels[i].issue_us, 300 * scale, 1e-6);
  EXPECT_GE(e1.wall_time_us, e0.wall_time_us + 1e-9);
}

TEST_F(E2eStep, BreakdownsSumToWallTime) {
  const auto s = predict_step(gpu, llama_8b, vllm, prefill_workload(2, {512}, {}, 1));
  double fam = 0, op = 0;
  for (const auto& f : s.by_family) fam += f.wall_us;
  for (const auto& o : s.by_op) op += o.wall_us;
  EXPECT_NEAR(fam, s.timing.wall_time_us, 1e-6 * s.timing.wall_time_us);
  EXPECT_NEAR(op, s.timing.wall_time_us, 1e-6 * s.timing.wall_time_us);
  EXPECT_EQ(s.by_family.front().key, "gemm");  // prefill of an 8B model is GEMM time
  EXPECT_NEAR(s.tokens_per_s, 1024 / (s.timing.wall_time_us * 1e-6), 1e-6 * s.tokens_per_s);
  // The validation view lists the same launches with per-part predictions.
  const auto launches = predict_kernels(gpu, llama_8b, vllm, prefill_workload(2, {512}, {}, 1));
  ASSERT_EQ(launches.size(), s.timing.kernels.size());
  EXPECT_EQ(launches[1].name, "input_norm");
  EXPECT_DOUBLE_EQ(std::accumulate(launches[1].part_us.begin(), launches[1].part_us.end(), 0.0), launches[1].gpu_us);
  // Chrome trace: one GPU event per kernel.
  const auto trace = chrome_trace(s);
  int gpu_events = 0;
  for (const auto& e : trace["traceEvents"]) gpu_events += e["ph"] == "X" && e["tid"] == 3;
  EXPECT_EQ(gpu_events, static_cast<int>(s.timing.kernels.size()));
}

TEST_F(E2eStep, WhatIfRanksAndSensitivity) {
  const WhatIfRequest req = whatif_request();
  const WhatIfRow r = whatif_one(gpu, 1, llama_8b, vllm, req);
  EXPECT_GT(r.ttft_us, 0);
  EXPECT_GT(r.tpot_us, 0);
  EXPECT_NEAR(r.tokens_per_s, 4 * 128 / ((r.ttft_us + 127 * r.tpot_us) * 1e-6), 1e-6 * r.tokens_per_s);
  EXPECT_TRUE(r.fits);
  const auto sens = sensitivity(gpu, 1, llama_8b, vllm, req);
  ASSERT_FALSE(sens.empty());
  EXPECT_EQ(sens[0].change, "+50% DRAM bandwidth");
  EXPECT_LT(sens[0].tpot_delta_pct, -5);  // small-batch decode is bandwidth-bound
}

// A changed GPU is priced by the analytical model's ratio, anchored at the real GPU: a kernel predictor that
// extrapolates badly off the real hardware (here 2x slower on any GPU but the real one, as a learned forest did for
// a +20% clock) cannot make more of a resource slower.
TEST_F(E2eStep, SensitivityAsksThePredictorAboutTheRealGpuOnly) {
  const WhatIfRequest req = whatif_request();
  const GpuSpec real = gpu;
  const KernelPredictor off_real = [real](const GpuSpec& g, const KernelSpec& s) {
    const double a = analyze(g, s).latency_us;
    return g.sustained_clock_mhz == real.sustained_clock_mhz && g.sms == real.sms &&
                   g.dram_bytes_per_s == real.dram_bytes_per_s && g.l2_bytes_per_s == real.l2_bytes_per_s
               ? a
               : 2 * a;
  };
  for (const auto& r : sensitivity(gpu, 1, llama_8b, vllm, req, off_real)) {
    EXPECT_LE(r.ttft_delta_pct, 1e-9) << r.change;
    EXPECT_LE(r.tpot_delta_pct, 1e-9) << r.change;
  }
}

// Inside a step a memory-bound kernel finds its input in L2 (the kernel before wrote it): priced l2=warm when its
// compulsory traffic lies between 64 KiB and half the L2; tiny (latency-bound) ones, huge ones and GEMMs stay cold.
TEST_F(E2eStep, MemoryBoundKernelsInheritL2) {
  const KernelPredictor p = [](const GpuSpec&, const KernelSpec& s) {
    auto it = s.params.find("l2");
    return it != s.params.end() && it->second == "warm" ? 1.0 : 2.0;
  };
  auto gpu_us = [&](const std::string& spec) {
    Op o;
    o.name = "x";
    auto shape = std::make_shared<OpShape>();
    shape->parts.push_back(parse_kernel_spec(spec));
    o.shape = shape;
    return simulate_step(gpu, {o}, vllm, ExecMode::graph, false, p).gpu_time_us;
  };
  EXPECT_DOUBLE_EQ(gpu_us("rms_norm rows=64 cols=4096 dtype=bf16"), 1.0);        // 1 MiB: warm
  EXPECT_DOUBLE_EQ(gpu_us("rms_norm rows=1 cols=4096 dtype=bf16"), 2.0);         // 16 KiB: latency-bound, cold
  EXPECT_DOUBLE_EQ(gpu_us("rms_norm rows=65536 cols=8192 dtype=bf16"), 2.0);     // 2 GiB: does not fit
  EXPECT_DOUBLE_EQ(gpu_us("gemm m=64 n=4096 k=4096 dtype=bf16"), 2.0);           // weights stream from DRAM
  EXPECT_DOUBLE_EQ(gpu_us("rms_norm rows=64 cols=4096 dtype=bf16 l2=cold"), 2.0);  // the spec's own l2= stands
}

// A pure predictor's costs are shared by later steps (and kept apart per identity, per GPU fingerprint and per
// latency-only vs megakernel pricing); an opaque one is asked again in every step. Both give the same step.
TEST_F(E2eStep, PurePredictorCostsAreSharedAcrossSteps) {
  auto calls = std::make_shared<int>(0);
  auto fn = [calls](const GpuSpec& g, const KernelSpec& s) { return ++*calls, analyze(g, s).latency_us; };
  const Workload w = decode_workload(4, {512}, 1);
  const KernelPredictor pure = KernelPredictor::pure(fn, "e2e_step_test-pure");
  const double first = predict_step(gpu, llama_1b, vllm, w, std::nullopt, pure).timing.wall_time_us;
  const int priced = *calls;
  EXPECT_GT(priced, 0);
  EXPECT_EQ(predict_step(gpu, llama_1b, vllm, w, std::nullopt, pure).timing.wall_time_us, first);
  EXPECT_EQ(*calls, priced);  // all from the shared cache
  GpuSpec other = gpu;
  other.dram_type = gpu.dram_type + "x";  // a field the fingerprint must hold (the models read it)
  predict_step(other, llama_1b, vllm, w, std::nullopt, pure);
  EXPECT_EQ(*calls, 2 * priced);
  predict_step(gpu, llama_1b, vllm, w, ExecMode::megakernel, pure);  // tails needed: priced afresh once
  EXPECT_EQ(*calls, 3 * priced);
  // The same values predicted through a catalogue anchor (an edited GPU), or joined by another NVLink domain, are
  // other costs: each is priced afresh, not served from the plain GPU's entries.
  GpuSpec anchored = gpu;
  anchored.anchor = std::make_shared<const GpuSpec>(other);
  predict_step(anchored, llama_1b, vllm, w, std::nullopt, pure);
  EXPECT_EQ(*calls, 4 * priced);
  GpuSpec domain = gpu;
  domain.nvlink_gpus = gpu.nvlink_gpus + 2;
  predict_step(domain, llama_1b, vllm, w, std::nullopt, pure);
  EXPECT_EQ(*calls, 5 * priced);

  const KernelPredictor opaque = fn;
  EXPECT_EQ(predict_step(gpu, llama_1b, vllm, w, std::nullopt, opaque).timing.wall_time_us, first);
  EXPECT_EQ(predict_step(gpu, llama_1b, vllm, w, std::nullopt, opaque).timing.wall_time_us, first);
  EXPECT_EQ(*calls, 7 * priced);
}

}  // namespace
}  // namespace loom
