// Analytical model across families: occupancy limiters, attention, decode, collectives, SM partitions, features.
#include <gtest/gtest.h>

#include <cmath>

#include "analytical/analysis.h"
#include "analytical/features.h"
#include "analytical/occupancy.h"
#include "core/error.h"
#include "test_gpus.h"

namespace loom {
namespace {

const PipeLoad& pipe(const Analysis& a, const std::string& name) {
  for (const auto& p : a.pipes)
    if (p.pipe == name) return p;
  throw std::runtime_error("no pipe " + name);
}

Analysis run(const std::string& spec, const GpuSpec& gpu = test::test_h100()) {
  return analyze(gpu, parse_kernel_spec(spec));
}

TEST(Occupancy, Limiters) {
  auto h = test::test_h100();
  // regs: 255 -> 256/thread -> 8192/warp -> 2 warps per sub-partition -> 8 warps -> 1 CTA of 8 warps.
  Occupancy r = occupancy(h, 256, 255, 0);
  EXPECT_EQ(r.ctas_per_sm, 1);
  EXPECT_EQ(r.limit, "regs");
  EXPECT_EQ(r.by_threads, 8);
  // regs rounding: 33 -> 40/thread -> 1280/warp -> 12 warps per sub-partition -> 48 warps -> 12 CTAs of 4 warps.
  EXPECT_EQ(occupancy(h, 128, 33, 0).by_regs, 12);
  // smem: 100 KiB + 1 KiB reserved -> 228 KiB / 101 KiB = 2.
  Occupancy s = occupancy(h, 128, 32, 100 * 1024);
  EXPECT_EQ(s.ctas_per_sm, 2);
  EXPECT_EQ(s.limit, "smem");
  // 128 B granularity: 100 B rounds to 128 + 1024 reserved -> 233472 / 1152 = 202, capped by 32 CTAs.
  EXPECT_EQ(occupancy(h, 32, 16, 100).by_smem, 202);
  // threads: 1024 threads -> 2 CTAs (regs would allow 4).
  Occupancy t = occupancy(h, 1024, 16, 0);
  EXPECT_EQ(t.ctas_per_sm, 2);
  EXPECT_EQ(t.limit, "threads");
  EXPECT_DOUBLE_EQ(t.occupancy, 1.0);
  // CTA limit: tiny CTAs -> 32 per SM.
  Occupancy c = occupancy(h, 32, 16, 0);
  EXPECT_EQ(c.ctas_per_sm, 32);
  EXPECT_EQ(c.limit, "ctas");
  EXPECT_DOUBLE_EQ(c.occupancy, 0.5);
}

TEST(AnalyticalAttention, PrefillCountsKAndVAndCausalSkipping) {
  const std::string base = "attention_prefill batch=2 heads=16 kv_heads=16 seq=2048 head_dim=128 dtype=bf16 "
                           "config=128x128_w8 causal=";
  Analysis full = run(base + "0"), causal = run(base + "1");
  // Useful FLOP: 4 * B * H * S * S_kv * d (QK^T and PV); causal keeps S(S+1)/2 of the S^2 pairs.
  EXPECT_DOUBLE_EQ(full.flops, 4.0 * 2 * 16 * 2048.0 * 2048 * 128);
  EXPECT_DOUBLE_EQ(causal.flops, 4.0 * 2 * 16 * 128 * (2048.0 * 2049 / 2));
  EXPECT_EQ(full.launch.ctas, 2 * 16 * 16);
  EXPECT_EQ(full.launch.loop_iters, 16);
  // exp on the SFU: one per computed score.
  EXPECT_DOUBLE_EQ(pipe(full, "sfu").total - 2 * 16 * 16 * 128.0, 2.0 * 16 * 2048 * 2048);
  // L2 requests: both K and V tiles every iteration (2 * BN * d * 2 B) per CTA.
  const double kv_l2 = 512.0 * 16 * 2 * 128 * 128 * 2;
  EXPECT_GT(full.l2_bytes, kv_l2);
  EXPECT_LT(full.l2_bytes, kv_l2 * 1.2);
  EXPECT_LT(causal.l2_bytes, 0.6 * full.l2_bytes);
  EXPECT_LT(causal.ceiling_us, 0.6 * full.ceiling_us);
  // DRAM: Q, K, V, O (+LSE) once: all fit in L2 or are used by concurrent CTAs.
  EXPECT_DOUBLE_EQ(full.min_dram_bytes, 4.0 * 2 * 16 * 2048 * 128 * 2 + 2 * 16 * 2048 * 4.0);
  // With the test H100's 5.5 TB/s L2 the K/V tile stream is L2-bound; with 12 TB/s the tensor pipe binds.
  EXPECT_EQ(full.bottleneck, "l2");
  GpuSpec fast_l2 = test::test_h100();
  fast_l2.l2_bytes_per_s = 12e12;
  Analysis f = run(base + "0", fast_l2);
  EXPECT_EQ(f.bottleneck, "tensor");
  EXPECT_NEAR(pipe(f, "tensor").time_us, 4 * 16 * 4.0 * 128 * 128 * 128 / (4096 * 1.83e9) * 1e6, 1e-6);
}

TEST(AnalyticalAttention, DecodeIsDramBoundAndSplitsFillTheChip) {
  Analysis a = run("attention_decode batch=8 heads=32 kv_heads=8 seq_kv=8192 head_dim=128 dtype=bf16");
  EXPECT_EQ(a.bottleneck, "dram");
  const double kv = 8.0 * 8 * 8192 * 128 * 2 * 2;
  EXPECT_GE(a.min_dram_bytes, kv);
  EXPECT_LT(a.min_dram_bytes, kv * 1.01);
  // 64 (batch, kv head) pairs < 0.8 * 264 FA2 slots (2 per SM) -> FA2 heuristic: 4 splits (256 CTAs, 97% of the
  // slots); FA2 itself launches 7 for batch 4 and 32 for batch 1 here (traces/checks/fa2_splits_h100.json).
  EXPECT_EQ(a.config, "16x128_w4_sp4");
  EXPECT_EQ(a.launch.ctas, 256);
  EXPECT_NE(a.config_reason.find("num_splits_heuristic"), std::string::npos);
  Analysis one = run("attention_decode batch=8 heads=32 kv_heads=8 seq_kv=8192 head_dim=128 dtype=bf16 "
                     "config=16x128_w4_sp1");
  EXPECT_EQ(one.launch.ctas, 64);
  EXPECT_EQ(one.launch.occupancy_limit, "grid");
  // batch 1: 8 pairs -> many splits; each split's partials are combined by a second kernel.
  Analysis b1 = run("attention_decode batch=1 heads=32 kv_heads=8 seq_kv=8192 head_dim=128 dtype=bf16");
  EXPECT_EQ(b1.config, "16x128_w4_sp32");
  Analysis b4 = run("attention_decode batch=4 heads=32 kv_heads=8 seq_kv=8192 head_dim=128 dtype=bf16");
  EXPECT_NE(b4.config.find("_sp7"), std::string::npos) << b4.config;  // the tile is the cheaper of 16x64 / 16x128
  EXPECT_GT(b1.l2_bytes, b1.min_dram_bytes);
}

TEST(AnalyticalElementwise, HfOpsMoveTheirBytes) {
  const double n = 4096.0 * 2048;
  // Casts: bf16 in, fp32 out (and back); the widening one is its own variant (unrolled kernel, no vector loads).
  Analysis up = run("elementwise op=to_fp32 rows=4096 cols=2048 dtype=bf16");
  Analysis down = run("elementwise op=to_bf16 rows=4096 cols=2048 dtype=fp32");
  EXPECT_DOUBLE_EQ(up.min_dram_bytes, n * 6);
  EXPECT_DOUBLE_EQ(down.min_dram_bytes, n * 6);
  EXPECT_EQ(up.variant, 3);
  EXPECT_EQ(down.variant, 0);
  // Row mean: reads the tensor, writes one fp32 per row; a row reduction variant.
  Analysis mean = run("elementwise op=mean rows=4096 cols=2048 dtype=fp32");
  EXPECT_DOUBLE_EQ(mean.min_dram_bytes, n * 4 + 4096 * 4);
  EXPECT_EQ(mean.variant, 2);
  EXPECT_EQ(run("elementwise op=argmax rows=1 cols=128256 dtype=bf16").launch.ctas, 1);
  // Broadcast and strided maps read one full tensor through the offset calculator.
  Analysis bc = run("elementwise op=mul_bcast rows=4096 cols=2048 dtype=bf16");
  EXPECT_DOUBLE_EQ(bc.min_dram_bytes, n * 4);
  EXPECT_EQ(bc.variant, 1);
  // torch.cat: every input element read once and written once, through per-input strides.
  Analysis cat = run("elementwise op=cat rows=4096 cols=2048 dtype=bf16");
  EXPECT_DOUBLE_EQ(cat.min_dram_bytes, n * 4);
  EXPECT_EQ(cat.variant, 1);
  // repeat_kv: writes the expanded tensor, reads a quarter of it.
  EXPECT_DOUBLE_EQ(run("elementwise op=expand_copy rows=4096 cols=2048 dtype=bf16").min_dram_bytes, n * 2 * 1.25);
  // A cast's dtype names its input.
  EXPECT_THROW(run("elementwise op=to_fp32 rows=4 cols=4 dtype=fp32"), InputError);
  EXPECT_THROW(run("elementwise op=to_bf16 rows=4 cols=4 dtype=bf16"), InputError);
  EXPECT_THROW(run("elementwise op=reduce rows=4 cols=4 dtype=bf16"), InputError);
}

TEST(AnalyticalAttention, MaskedDecodeReadsTheMask) {
  Analysis plain = run("attention_decode batch=8 heads=32 kv_heads=32 seq_kv=512 head_dim=64 dtype=bf16");
  Analysis masked = run("attention_decode batch=8 heads=32 kv_heads=32 seq_kv=512 head_dim=64 dtype=bf16 mask=1");
  EXPECT_DOUBLE_EQ(masked.min_dram_bytes - plain.min_dram_bytes, 8.0 * 512 * 3);  // bool mask + additive bf16
  EXPECT_EQ(masked.variant, 1);
  EXPECT_EQ(plain.variant, 0);
  EXPECT_GT(masked.latency_us, plain.latency_us);
  EXPECT_THROW(run("attention_decode batch=8 heads=32 kv_heads=32 seq_kv=512 head_dim=64 dtype=bf16 mask=2"),
               InputError);
}

TEST(AnalyticalPartition, SixteenSmPartitionPullsLessDram) {
  const std::string spec = "attention_decode batch=32 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16";
  Analysis full = run(spec), part = run(spec, test::test_h100_partition(16));
  // 16 SMs x 64 B/clk x 1.83 GHz = 1.87 TB/s < 3.35 TB/s: DRAM time bounded by the busy SMs.
  EXPECT_NEAR(pipe(part, "dram").time_us, part.dram_bytes / (16 * 64 * 1.83e9) * 1e6, 1e-6);
  EXPECT_GT(pipe(part, "dram").time_us, 1.7 * pipe(full, "dram").time_us);
  Analysis big = run("gemm m=4096 n=4096 k=4096 dtype=bf16 config=128x256x64_s4_w8", test::test_h100_partition(16));
  EXPECT_EQ(big.launch.waves, 32);  // 512 CTAs over 16 SMs
}

TEST(AnalyticalCollective, AllReduceScalesWithBytes) {
  Analysis a = run("all_reduce bytes=67108864 gpus=8"), b = run("all_reduce bytes=134217728 gpus=8");
  // The H100 sits on an NVSwitch (Hopper, NVLink, no bridge): the link pipe is NVLS's speed of light, 1x the
  // buffer per GPU in 2 hops; the latency still prices the ring, 2(g-1)/g of the buffer in 2(g-1) steps of 1 us.
  const double link = 67108864 / 450e9 * 1e6, ring = 2.0 * 7 / 8 * 67108864 / 450e9 * 1e6 + 14 * 1.0;
  EXPECT_NEAR(pipe(a, "link").time_us, link + 2 * 1.0, 1e-6);
  EXPECT_NEAR(pipe(b, "link").time_us - pipe(a, "link").time_us, link, 1e-6);
  EXPECT_NEAR(a.latency_us, ring / 0.80 + a.fixed_overhead_us, 1e-6);
  EXPECT_EQ(a.bottleneck, "link");
  EXPECT_NE(a.config_reason.find("NCCL ring"), std::string::npos);
  // impl=custom is priced by the custom fit; its reason names that kernel, not NCCL's ring.
  EXPECT_NE(run("all_reduce bytes=16384 gpus=8 impl=custom").config_reason.find("custom all-reduce"),
            std::string::npos);
  // One GPU communicates nothing: refused (round 12), not priced at 0 us.
  EXPECT_THROW(run("all_reduce bytes=67108864 gpus=1"), InputError);
}

TEST(AnalyticalFamilies, EveryFamilyAnalyzesOnBothTestGpus) {
  const char* specs[] = {
      "gemm m=4096 n=4096 k=4096 dtype=bf16",
      "gemm m=7 n=11008 k=4096 dtype=fp16",
      "gemm m=512 n=512 k=512 batch=8 dtype=fp8",
      "gemm m=300 n=200 k=100 dtype=fp32",
      "gemm m=4096 n=4096 k=4096 dtype=tf32",
      "moe tokens=4096 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16",
      "moe tokens=1 experts=64 topk=8 hidden=2048 inter=1408 dtype=bf16 stage=w2",
      "moe tokens=256 experts=128 topk=8 hidden=7168 inter=2048 dtype=fp8",
      "attention_prefill batch=1 heads=32 kv_heads=8 seq=4096 head_dim=128 causal=1 dtype=bf16",
      "attention_prefill batch=4 heads=16 kv_heads=16 seq=512 seq_kv=1536 head_dim=64 causal=1 dtype=fp16",
      "attention_prefill batch=1 heads=8 kv_heads=1 seq=1000 head_dim=256 causal=0 dtype=bf16",
      "attention_decode batch=1 heads=32 kv_heads=8 seq_kv=100 head_dim=128 dtype=bf16",
      "attention_decode batch=256 heads=64 kv_heads=8 seq_kv=2048 head_dim=128 dtype=fp8",
      "rms_norm rows=1 cols=4096 dtype=bf16",
      "rms_norm rows=8192 cols=8192 dtype=fp32",
      "layer_norm rows=4096 cols=768 dtype=fp16",
      "softmax rows=4096 cols=1000 dtype=fp32",
      "softmax rows=64 cols=32000 dtype=bf16",
      "elementwise op=add rows=4096 cols=4096 dtype=bf16",
      "elementwise op=gelu rows=1 cols=3 dtype=fp32",
      "elementwise op=silu_mul rows=4096 cols=14336 dtype=bf16",
      "rotary tokens=4096 heads=40 head_dim=128 dtype=bf16",
      "all_reduce bytes=1024 gpus=2",
      "all_gather bytes=1048576 gpus=8",
      "reduce_scatter bytes=4096 gpus=2",
      "send_recv bytes=16777216",
  };
  for (const auto& gpu : {test::test_h100(), test::test_a100()}) {
    for (const char* spec : specs) {
      std::string s = spec;
      if (gpu.architecture == "ampere" && s.find("fp8") != std::string::npos) continue;
      SCOPED_TRACE(s + " on " + gpu.name);
      Analysis a;
      ASSERT_NO_THROW(a = analyze(gpu, parse_kernel_spec(s)));
      EXPECT_GT(a.latency_us, 0);
      EXPECT_GE(a.latency_us, a.ceiling_us);
      EXPECT_GT(a.launch.ctas, 0);
      EXPECT_GE(a.dram_bytes, a.min_dram_bytes * 0.999);
      EXPECT_GE(a.launch.tile_waste, 0);
      EXPECT_LT(a.launch.tile_waste, 1);
      EXPECT_FALSE(a.config.empty());
      EXPECT_FALSE(a.config_reason.empty());
      const bool coll = s.rfind("all_", 0) == 0 || s.rfind("reduce_scatter", 0) == 0 || s.rfind("send_recv", 0) == 0;
      EXPECT_EQ(a.pipes.size(), coll ? 8u : 7u);
      for (const auto& p : a.pipes) EXPECT_TRUE(std::isfinite(p.time_us) && p.time_us >= 0) << p.pipe;
    }
  }
  EXPECT_EQ(kernel_families().size(), 13u);
  EXPECT_EQ(kernel_families().front(), "gemm");
}

TEST(AnalyticalFamilies, AttentionConfigErrors) {
  auto h = test::test_h100();
  // 128x128 FA3 tile with head_dim 256: Q 64 KiB + 2 stages x K,V 256 KiB > 227 KiB.
  EXPECT_THROW(analyze(h, parse_kernel_spec("attention_prefill batch=1 heads=8 kv_heads=8 seq=512 head_dim=256 "
                                            "causal=0 dtype=bf16 config=128x128_w8")),
               InputError);
  EXPECT_THROW(analyze(h, parse_kernel_spec("attention_prefill batch=1 heads=8 kv_heads=8 seq=512 head_dim=128 "
                                            "causal=0 dtype=bf16 config=128x128_w8_sp2")),
               InputError);
  EXPECT_THROW(analyze(h, parse_kernel_spec("rms_norm rows=8 cols=8 dtype=bf16 config=r3_w4")), InputError);
  EXPECT_THROW(analyze(h, parse_kernel_spec("all_reduce bytes=8 gpus=2 config=tree")), InputError);
}

TEST(AnalyticalFeatures, StableNamesAcrossFamilies) {
  auto h = test::test_h100();
  auto f1 = analysis_features(run("gemm m=4096 n=4096 k=4096 dtype=bf16"), h);
  auto f2 = analysis_features(run("rms_norm rows=4096 cols=4096 dtype=bf16"), h);
  auto f3 = analysis_features(run("all_reduce bytes=1048576 gpus=4"), h);
  ASSERT_EQ(f1.size(), analysis_feature_names().size());
  ASSERT_EQ(f1.size(), f2.size());
  ASSERT_EQ(f1.size(), f3.size());
  for (size_t i = 0; i < f1.size(); ++i) {
    EXPECT_EQ(f1[i].first, f2[i].first);
    EXPECT_EQ(f1[i].first, analysis_feature_names()[i]);
    EXPECT_TRUE(std::isfinite(f1[i].second) && std::isfinite(f2[i].second) && std::isfinite(f3[i].second));
  }
  auto get = [](const auto& f, const std::string& n) {
    for (const auto& [k, v] : f)
      if (k == n) return v;
    return -1.0;
  };
  EXPECT_EQ(get(f1, "family_gemm"), 1.0);
  EXPECT_EQ(get(f1, "family_rms_norm"), 0.0);
  EXPECT_EQ(get(f2, "family_rms_norm"), 1.0);
  EXPECT_EQ(get(f2, "rel_log_time_dram"), 0.0);  // the norm's bottleneck
  EXPECT_EQ(get(f2, "sms"), 132.0);
}

}  // namespace
}  // namespace loom
