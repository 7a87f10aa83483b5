// `loom validate --e2e` library: case-spec parsing, the rep/phase/kernel join on a synthetic trace, and a
// prediction on a synthetic case list + trace written to a temporary directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/error.h"
#include "e2e/e2e.h"
#include "e2e/validate_e2e.h"
#include "hw/catalog.h"
#include "scratch_dir.h"

namespace loom {
namespace {

std::string kernel(int64_t start_ns, int64_t end_ns, const std::string& name) {
  std::ostringstream s;
  s << "K\t" << start_ns << "\t" << end_ns << "\t0\t1\t7\t1\t0\t1\t1\t1\t128\t1\t1\t32\t0\t0\t" << name << "\n";
  return s.str();
}
std::string range(int64_t start_ns, int64_t end_ns, const std::string& name) {
  std::ostringstream s;
  s << "R\t" << start_ns << "\t" << end_ns << "\t1\t" << name << "\n";
  return s.str();
}

const char* kGemm = "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT";
const char* kAdd =
    "_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_15CUDAFunctor_addIN3c108BFloat16EEESt5arrayIPcLm3EEEEviT0_"
    "T1_";

/// Case 1: three reps; rep GPU times 30, 10, 20 us (median 20), phase ranges 100, 50, 80 us (median 80), one
/// kernel before the first rep (warm-up) that must not count, an l2 flush that must not count.
std::string synthetic_lct() {
  std::string t = "#loom-cupti 1\n#gpu=NVIDIA H200\n#sms=132\n";
  std::string rec;
  rec += range(0, 1'000'000, "loom.case=1");
  rec += kernel(1'000, 500'000, kGemm);  // warm-up: outside every rep
  int64_t base = 600'000;
  const int64_t gemm_ns[3] = {20'000, 5'000, 15'000}, add_ns[3] = {10'000, 5'000, 5'000},
                phase_ns[3] = {100'000, 50'000, 80'000};
  for (int r = 0; r < 3; ++r) {
    rec += range(base, base + phase_ns[r] + 2'000, "loom.rep");
    rec += range(base + 1'000, base + 1'000 + phase_ns[r], "loom.phase=decode");
    rec += kernel(base + 1'500, base + 1'500 + gemm_ns[r], kGemm);
    rec += kernel(base + 1'600 + gemm_ns[r], base + 1'600 + gemm_ns[r] + add_ns[r], kAdd);
    rec += kernel(base + 40'000, base + 41'000, "loom_l2_flush");
    base += 120'000;
  }
  int n = 0;
  for (char c : rec) n += c == '\n';
  return t + rec + "#end records=" + std::to_string(n) + " dropped=0\n";
}

const char* kCases =
    "#loom-bench 1\n#gpu=NVIDIA H200\n#sms=132\n"
    "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n"
    "1,e2e_decode,e2e_decode model=llama-3.2-1b batch=2 context=64 dtype=bf16 mode=eager,torch_hf,3,80,50,100\n"
    "2,e2e_prefill,e2e_prefill model=llama-3.2-1b batch=1 seq=16 dtype=bf16 mode=eager,torch_hf,3,1,1,1\n";

TEST(E2eValidate, ParsesSpecs) {
  const E2eCaseSpec d =
      parse_e2e_spec("e2e_decode model=llama-3.2-1b batch=8 context=512 dtype=bf16 mode=cuda_graph", "x");
  EXPECT_EQ(d.phase, "decode");
  EXPECT_EQ(d.batch, 8);
  EXPECT_EQ(d.length, 512);
  EXPECT_EQ(d.mode, "cuda_graph");
  const E2eCaseSpec p = parse_e2e_spec("e2e_prefill model=m batch=1 seq=128", "x");
  EXPECT_EQ(p.phase, "prefill");
  EXPECT_EQ(p.length, 128);
  EXPECT_EQ(p.mode, "eager");
  EXPECT_THROW(parse_e2e_spec("gemm m=1 n=1 k=1", "x"), InputError);
  EXPECT_THROW(parse_e2e_spec("e2e_prefill model=m batch=1 context=5", "x"), InputError);  // prefill needs seq
  EXPECT_THROW(parse_e2e_spec("e2e_decode model=m batch=0 context=5", "x"), InputError);
  EXPECT_THROW(parse_e2e_spec("e2e_decode model=m batch=1 context=5 mode=megakernel", "x"), InputError);
  EXPECT_EQ(p.tp, 1);
  EXPECT_EQ(parse_e2e_spec("e2e_decode model=m batch=1 context=5 mode=eager tp=2", "x").tp, 2);  // tp_e2e.py runs
  EXPECT_THROW(parse_e2e_spec("e2e_decode model=m batch=1 context=5 tp=16", "x"), InputError);
  EXPECT_THROW(parse_e2e_spec("e2e_decode model=m batch=1 context=5 tp=0", "x"), InputError);
}

TEST(E2eValidate, MeasuresRepsPhasesAndFamilies) {
  const LctTrace lct = parse_lct(synthetic_lct(), "syn.lct");
  const CaseList cases = parse_case_list(kCases, "syn.cases.csv");
  std::vector<std::string> skipped;
  const auto steps = measure_e2e_steps(lct, cases, skipped);
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_EQ(skipped.size(), 1u);  // case 2 has no loom.case range
  EXPECT_NE(skipped[0].find("case 2"), std::string::npos);
  const MeasuredStep& m = steps[0];
  EXPECT_EQ(m.reps, 3);
  EXPECT_NEAR(m.gpu_us, 20.0, 1e-9);   // reps: 30, 10, 20
  EXPECT_NEAR(m.wall_us, 80.0, 1e-9);  // phase ranges, not rep ranges
  EXPECT_NEAR(m.kernels, 2.0, 1e-9);   // warm-up and l2 flush excluded
  ASSERT_EQ(m.families.count("gemm"), 1u);
  EXPECT_NEAR(m.families.at("gemm").gpu_us, 15.0, 1e-9);  // the median rep (the third)
  EXPECT_NEAR(m.families.at("elementwise").gpu_us, 5.0, 1e-9);
  EXPECT_EQ(m.families.at("elementwise").launches, 1);
}

/// synthetic_lct() with host probes between and after the reps (which span 600-702, 720-772 and 840-922 us): 2
/// launches in 40 us (20 us a launch) twice and 1 in 30 us; a probe without kernels and one outside the case range
/// must not count.
std::string probed_lct() {
  std::string t = synthetic_lct();
  std::string rec;
  auto probe = [&](int64_t start, int64_t us, int launches) {
    rec += range(start, start + us * 1000, "loom.host_probe");
    for (int i = 0; i < launches; ++i) rec += kernel(start + 100 + i * 10, start + 105 + i * 10, kAdd);
  };
  probe(703'000, 10, 0);       // no kernels: not a reading
  probe(773'000, 40, 2);       // 20 us a launch
  probe(923'000, 40, 2);       // 20
  probe(965'000, 30, 1);       // 30
  probe(2'000'000, 10, 10);    // outside the case
  const size_t end = t.rfind("#end");
  int n = 0;
  for (char c : t.substr(0, end) + rec) n += c == '\n';
  return t.substr(0, end) + rec + "#end records=" + std::to_string(n - 3) + " dropped=0\n";
}

TEST(E2eValidate, HostProbesSetTheHostSpeed) {
  const LctTrace lct = parse_lct(probed_lct(), "syn.lct");
  std::vector<std::string> skipped;
  const auto steps = measure_e2e_steps(lct, parse_case_list(kCases, "syn.cases.csv"), skipped);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].host_probes, 3);                   // 20, 20, 30 us a launch
  EXPECT_NEAR(steps[0].host_us_per_launch, 20.0, 1e-9);  // their median
  EXPECT_NEAR(steps[0].gpu_us, 20.0, 1e-9);              // probe kernels are outside every rep

  namespace fs = std::filesystem;
  const loom::test::ScratchDir scratch;
  fs::create_directories(scratch.path() / "h200");
  std::ofstream(scratch.path() / "h200" / "syn.cases.csv") << kCases;
  std::ofstream(scratch.path() / "h200" / "syn.lct") << probed_lct();
  E2eOptions opt;
  opt.traces_dir = scratch.path().string();
  const E2eReport rep = validate_e2e(opt);
  ASSERT_EQ(rep.rows.size(), 1u);
  const E2eRow& r = rep.rows[0];
  ASSERT_TRUE(r.host_from_probe);
  EXPECT_NEAR(r.host_cpu_speed, 12.72 * 1.18 / 20.0, 1e-9);  // reference x the collector's cost / measured
  GpuSpec slow = Catalog::load().get("h200");
  slow.host_cpu_speed = r.host_cpu_speed;
  const StepPrediction s = predict_step(slow, load_model("llama-3.2-1b"), load_profile("hf-sdpa"),
                                        decode_workload(2, {64}, 1), ExecMode::eager);
  EXPECT_NEAR(r.analytical.wall_us, s.timing.wall_time_us, 1e-6);
  EXPECT_GT(r.learned.wall_us, r.catalogue_host_wall_us);  // a host slower than the catalogue's: a longer step
}

TEST(E2eValidate, GpuMismatchIsAnError) {
  const LctTrace lct = parse_lct(synthetic_lct(), "syn.lct");
  std::string other = kCases;
  other.replace(other.find("H200"), 4, "H100");
  EXPECT_THROW({
    std::vector<std::string> skipped;
    measure_e2e_steps(lct, parse_case_list(other, "x.cases.csv"), skipped);
  }, InputError);
}

TEST(E2eValidate, PredictsTheSameStepAsE2e) {
  namespace fs = std::filesystem;
  const loom::test::ScratchDir scratch;
  const fs::path& dir = scratch.path();
  fs::create_directories(dir / "h200");
  std::ofstream(dir / "h200" / "syn.cases.csv") << kCases;
  std::ofstream(dir / "h200" / "syn.lct") << synthetic_lct();
  E2eOptions opt;
  opt.traces_dir = dir.string();
  const E2eReport rep = validate_e2e(opt);
  ASSERT_EQ(rep.rows.size(), 1u);
  const E2eRow& r = rep.rows[0];
  EXPECT_EQ(r.gpu_key, "h200");
  EXPECT_EQ(r.mode, "eager");
  EXPECT_EQ(r.profile, "hf-sdpa");
  // Same numbers as predict_step with the analytical predictor on the same inputs.
  const StepPrediction s = predict_step(Catalog::load().get("h200"), load_model("llama-3.2-1b"),
                                        load_profile("hf-sdpa"), decode_workload(2, {64}, 1), ExecMode::eager);
  EXPECT_NEAR(r.analytical.gpu_us, s.timing.gpu_time_us, 1e-6);
  EXPECT_NEAR(r.analytical.wall_us, s.timing.wall_time_us, 1e-6);
  EXPECT_EQ(r.analytical.kernels, static_cast<int>(s.timing.kernels.size()));
  EXPECT_GT(r.learned.gpu_us, 0);
  double fam = 0;
  for (const auto& [_, f] : r.analytical.families) fam += f.gpu_us;
  EXPECT_NEAR(fam, r.analytical.gpu_us, 1e-6);
  EXPECT_NEAR(error_pct(110, 100), 10.0, 1e-12);
  // A directory without case lists is an input error.
  E2eOptions missing;
  missing.traces_dir = scratch.file("no-such-dir");
  EXPECT_THROW(validate_e2e(missing), InputError);
}

TEST(E2eValidate, KvCacheModes) {
  const ModelConfig m = load_model("llama-3.2-1b");
  ServingProfile p = load_profile("hf-sdpa");
  auto count = [&](const std::string& prefix) {
    int n = 0;
    for (const auto& op : build_op_graph(m, p, decode_workload(2, {100}, 1)))
      if (op.name.rfind(prefix, 0) == 0) ++n;
    return n;
  };
  EXPECT_EQ(count("kv_cache.cat_"), 2 * 16);  // K and V per layer
  p.kv_cache = "static";
  EXPECT_EQ(count("kv_cache.index_copy_"), 2 * 16);
  EXPECT_EQ(count("attn.repeat_"), 2 * 16);  // 32 query heads over 8 KV heads: sdpa with a mask repeats KV
  p.kv_cache = "none";
  EXPECT_EQ(count("kv_cache."), 0);
  EXPECT_THROW(parse_profile("kv_cache: pages\n", "p.yaml"), InputError);
}

TEST(E2eValidate, StaticCacheAttendsOverTheWholeCacheWithAMask) {
  const ModelConfig m = load_model("llama-3.2-1b");  // 32 query heads, 8 KV heads, head_dim 64, 16 layers
  ServingProfile p = load_profile("hf-sdpa");
  p.kv_cache = "static";
  Workload w = decode_workload(4, {100}, 1);
  w.static_cache_len = 300;
  const auto ops = build_op_graph(m, p, w);
  const Op* attn = nullptr;
  const Op* repeat = nullptr;
  int small = 0, argmax = 0;
  for (const auto& op : ops) {
    if (op.name == "attention" && op.layer == 0) attn = &op;
    if (op.name == "attn.repeat_k" && op.layer == 0) repeat = &op;
    small += op.name == "step_small_op" || op.name == "static_cache.small_op";
    argmax += op.name == "sampler_argmax";
  }
  ASSERT_NE(attn, nullptr);
  ASSERT_NE(repeat, nullptr);
  const KernelSpec& a = attn->parts().front();
  EXPECT_EQ(a.family, "attention_decode");
  EXPECT_EQ(a.params.at("seq_kv"), "300");  // the cache's capacity, not context + 1
  EXPECT_EQ(a.params.at("kv_heads"), "32");  // K/V expanded to every query head (repeat_kv)
  EXPECT_EQ(a.params.at("mask"), "1");
  EXPECT_EQ(repeat->parts().front().params.at("op"), "expand_copy");
  EXPECT_EQ(repeat->parts().front().params.at("rows"), std::to_string(4 * 32 * 300));
  EXPECT_EQ(small, p.step_small_ops + 5 + 6 * 16);  // per-step and per-layer StaticCache bookkeeping
  EXPECT_EQ(argmax, 1);
  // Without a capacity the cache is as long as the longest request.
  w.static_cache_len = 0;
  for (const auto& op : build_op_graph(m, p, w))
    if (op.name == "attention" && op.layer == 0) EXPECT_EQ(op.parts().front().params.at("seq_kv"), "101");
}

TEST(E2eValidate, ProfileOpListsTakeADtype) {
  const ServingProfile p = parse_profile("norm: elementwise\nnorm_ops: [to_fp32, mean:fp32, mul_bcast]\n", "p.yaml");
  ASSERT_EQ(p.norm_ops.size(), 3u);
  EXPECT_EQ(p.norm_ops[1], "mean:fp32");
  EXPECT_THROW(parse_profile("norm_ops: [mean:int8]\n", "p.yaml"), InputError);
  EXPECT_THROW(parse_profile("norm_ops: [reduce]\n", "p.yaml"), InputError);
  EXPECT_THROW(parse_profile("sampler: topk\n", "p.yaml"), InputError);
  const ModelConfig m = load_model("llama-3.2-1b");
  for (const auto& op : build_op_graph(m, p, decode_workload(1, {10}, 1)))
    if (op.name == "input_norm.op1" && op.layer == 0) {
      EXPECT_EQ(op.parts().front().params.at("op"), "mean");
      EXPECT_EQ(op.parts().front().params.at("dtype"), "fp32");
    }
}

}  // namespace
}  // namespace loom
