// Hand-checked analytical GEMM numbers on the unit-test H100 (tests/unit/test_gpus.h: 132 SMs at 1830 MHz).
#include <gtest/gtest.h>

#include <cmath>

#include "analytical/analysis.h"
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

// gemm m=n=k=4096 bf16, pinned 128x256x64_s4_w8 on H100 (clock 1.83 GHz):
//   FLOP = 2 * 4096^3 = 137,438,953,472 (137.4 GFLOP)
//   tiles 4096/128 = 32 x 4096/256 = 16 -> 512 CTAs; k-loop L = 4096/64 = 64
//   threads 8*32 = 256; regs 40 + 128*256/256 = 168; smem 4 * (128+256) * 64 * 2 B = 196,608 B
//   occupancy: regs 168*32 = 5376/warp -> 16384/5376 = 3 warps per sub-partition -> 12 warps -> 1 CTA (regs);
//     smem (196608 + 1 KiB reserved) -> 233472 / 197632 = 1; threads 2048/256 = 8 -> 1 CTA/SM, limiter "regs"
//   waves ceil(512/132) = 4, last wave 512 - 3*132 = 116 of 132 slots (0.879); busiest SM runs 4 CTAs
//   tensor: 4 CTAs * 64 * 2*128*256*64 = 1,073,741,824 FLOP / (4096 FLOP/clk * 1.83e9) = 143.248 us
//   smem per k-iter: TMA fill (128+256)*64*2 = 49,152 B + wgmma reads A 16,384 + B 32,768 * 2 warpgroups = 131,072 B;
//     epilogue 2 * 128*256*2 = 131,072 B; per CTA 64*131072 + 131072 = 8,519,680; busiest 4x / (128 B/clk) = 145.486 us
//   l2: per k-iter A 16,384 + B/2 (2-CTA cluster multicast) 16,384 = 32,768; + C tile 65,536 per CTA;
//     total 512 * (64*32768 + 65536) = 1,107,296,256 B / 5.5 TB/s = 201.327 us (per-SM bound 73.9 us is lower)
//   dram: compulsory A + B + C = 3 * 32 MiB = 100,663,296 B. Wave = 132 CTAs = 9 tile rows x 16 columns:
//     B (32 MiB) + 9 A panels (9 MiB) = 41 MiB > usable L2 0.75 * 50 MiB = 37.5 MiB -> B re-read ceil(32/9) = 4x:
//     32 + 4*32 + 32 MiB = 201,326,592 B / 3.35 TB/s = 60.097 us
//   alu: per CTA 64 * 256 threads * 4 + 3 * 128*256 = 163,840 ops; busiest 4x / (64 * 1.83e9) = 5.596 us
//   ceiling = l2 201.327 us; fixed = 2 us + 4 stages * 49152 B / 64 B/clk / 1.83 GHz = 3.679 us
//   latency = max(tensor 143.248/0.8, smem 145.486/0.85, l2 201.327/0.8, dram 60.097/0.85) + 3.679 = 255.337 us
//   (with the brief's 5.5 TB/s L2 this GEMM is L2-bound; see kernels/README.md on the H100 L2 bandwidth)
TEST(AnalyticalGemm, HandChecked4096Bf16OnH100) {
  Analysis a = run("gemm m=4096 n=4096 k=4096 dtype=bf16 config=128x256x64_s4_w8");
  EXPECT_EQ(a.config, "128x256x64_s4_w8");
  EXPECT_TRUE(a.config_pinned);
  EXPECT_DOUBLE_EQ(a.flops, 137438953472.0);
  EXPECT_EQ(a.launch.ctas, 512);
  EXPECT_EQ(a.launch.loop_iters, 64);
  EXPECT_EQ(a.launch.threads_per_cta, 256);
  EXPECT_EQ(a.launch.regs_per_thread, 168);
  EXPECT_EQ(a.launch.smem_per_cta_bytes, 196608);
  EXPECT_EQ(a.launch.ctas_per_sm, 1);
  EXPECT_EQ(a.launch.occupancy_limit, "regs");
  EXPECT_EQ(a.launch.waves, 4);
  EXPECT_NEAR(a.launch.last_wave_fill, 116.0 / 132.0, 1e-12);
  EXPECT_DOUBLE_EQ(a.launch.tile_waste, 0.0);
  EXPECT_DOUBLE_EQ(pipe(a, "tensor").total, 137438953472.0);
  EXPECT_DOUBLE_EQ(pipe(a, "tensor").busiest_sm, 1073741824.0);
  EXPECT_NEAR(pipe(a, "tensor").time_us, 143.248, 1e-3);
  EXPECT_DOUBLE_EQ(pipe(a, "smem").busiest_sm, 4.0 * 8519680.0);
  EXPECT_NEAR(pipe(a, "smem").time_us, 145.486, 1e-3);
  EXPECT_DOUBLE_EQ(a.l2_bytes, 1107296256.0);
  EXPECT_NEAR(pipe(a, "l2").time_us, 201.327, 1e-3);
  EXPECT_DOUBLE_EQ(a.min_dram_bytes, 100663296.0);
  EXPECT_DOUBLE_EQ(a.dram_bytes, 201326592.0);
  EXPECT_NEAR(pipe(a, "dram").time_us, 60.097, 1e-3);
  EXPECT_NEAR(pipe(a, "alu").time_us, 5.596, 1e-3);
  EXPECT_EQ(pipe(a, "sfu").total, 0.0);
  EXPECT_EQ(a.bottleneck, "l2");
  EXPECT_NEAR(a.ceiling_us, 201.327, 1e-3);
  EXPECT_NEAR(a.fixed_overhead_us, 3.679, 1e-3);
  EXPECT_NEAR(a.latency_us, 201.32659 / 0.8 + 3.67869, 1e-3);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes[0].find("re-read from DRAM 4x"), std::string::npos);
}

// 128x128x64_s4_w8: 32 x 32 = 1024 CTAs; smem 131072 + 1 KiB -> 1 CTA/SM (regs would allow 2: 104 regs ->
// 3328/warp -> 4 warps per sub-partition -> 16 warps). 1024/132 = 7.76 -> 8 waves, last 1024 - 7*132 = 100 of 132.
TEST(AnalyticalGemm, RaggedGridWavesAndLastWaveFill) {
  Analysis a = run("gemm m=4096 n=4096 k=4096 dtype=bf16 config=128x128x64_s4_w8");
  EXPECT_EQ(a.launch.ctas, 1024);
  EXPECT_EQ(a.launch.ctas_per_sm, 1);
  EXPECT_EQ(a.launch.occupancy_limit, "smem");
  EXPECT_EQ(a.launch.waves, 8);
  EXPECT_NEAR(a.launch.last_wave_fill, 100.0 / 132.0, 1e-12);
  // busiest SM runs ceil(1024/132) = 8 CTAs, the mean SM 7.76: wave quantization shows in the tensor time
  EXPECT_NEAR(pipe(a, "tensor").time_us, 8 * 64 * 2.0 * 128 * 128 * 64 / (4096 * 1.83e9) * 1e6, 1e-6);
}

// m=1000 with BM=128: 8 row tiles compute 1024 rows -> waste 1 - 1000/1024 = 0.0234375.
TEST(AnalyticalGemm, TileWasteOnRaggedM) {
  Analysis a = run("gemm m=1000 n=4096 k=4096 dtype=bf16 config=128x128x64_s4_w8");
  EXPECT_NEAR(a.launch.tile_waste, 1.0 - 1000.0 / 1024.0, 1e-12);
  EXPECT_DOUBLE_EQ(a.flops, 2.0 * 1000 * 4096 * 4096);
  EXPECT_GT(pipe(a, "tensor").total, a.flops);  // padded rows are computed
}

TEST(AnalyticalGemm, L2ReuseVersusDramRereads) {
  // 2048^3: A + B = 16 MiB fit the usable L2 -> DRAM traffic is compulsory.
  Analysis fits = run("gemm m=2048 n=2048 k=2048 dtype=bf16 config=128x256x64_s4_w8");
  EXPECT_DOUBLE_EQ(fits.dram_bytes, fits.min_dram_bytes);
  EXPECT_DOUBLE_EQ(fits.min_dram_bytes, 3.0 * 2048 * 2048 * 2);
  // 16384^3: operands of 512 MiB each -> re-read from DRAM.
  Analysis big = run("gemm m=16384 n=16384 k=16384 dtype=bf16 config=128x256x64_s4_w8");
  EXPECT_GT(big.dram_bytes, 2 * big.min_dram_bytes);
  EXPECT_LE(big.dram_bytes, big.l2_bytes + big.min_dram_bytes);
}

TEST(AnalyticalGemm, DefaultConfigAndSplitK) {
  Analysis big = run("gemm m=8192 n=8192 k=8192 dtype=bf16");
  EXPECT_FALSE(big.config_pinned);
  EXPECT_NE(big.config_reason.find("cuBLAS-like"), std::string::npos);
  EXPECT_EQ(big.config.find("_sk"), std::string::npos);
  // Decode GEMM: one row runs cuBLAS's token-side small tile (nvjet 64x8 = 8 tokens x 64 features), DRAM-bound;
  // with a 1024-wide weight its tile grid alone (16 CTAs) leaves SMs idle -> split-K.
  Analysis dec = run("gemm m=1 n=4096 k=4096 dtype=bf16");
  EXPECT_EQ(dec.config.rfind("8x64x64_", 0), 0u) << dec.config;
  EXPECT_EQ(dec.bottleneck, "dram");
  EXPECT_GT(dec.launch.tile_waste, 0.8);
  Analysis narrow = run("gemm m=1 n=1024 k=8192 dtype=bf16");
  EXPECT_NE(narrow.config.find("_sk"), std::string::npos) << narrow.config;
  // fp8 keeps its 64-row tiles (its small-M kernels differ).
  Analysis f8 = run("gemm m=1 n=4096 k=4096 dtype=fp8");
  EXPECT_EQ(f8.config.rfind("8x", 0), std::string::npos) << f8.config;
  // ... and is never split (kernels/gemm.yaml split_k_dtypes: cuBLAS's fp8 kernels were traced split in ~1%), where
  // the same shape in bf16 is.
  EXPECT_EQ(run("gemm m=1 n=1024 k=8192 dtype=fp8").config.find("_sk"), std::string::npos);
  EXPECT_EQ(run("gemm m=16 n=2048 k=16384 dtype=fp8 scales=rowwise").config.find("_sk"), std::string::npos);
  // fp32 runs on the FMA pipe with SIMT tiles; tf32 on tensor cores.
  Analysis f32 = run("gemm m=2048 n=2048 k=2048 dtype=fp32");
  EXPECT_EQ(pipe(f32, "tensor").total, 0.0);
  EXPECT_GT(pipe(f32, "fma").total, f32.flops);
  Analysis tf32 = run("gemm m=2048 n=2048 k=2048 dtype=tf32");
  EXPECT_GT(pipe(tf32, "tensor").total, 0.0);
  EXPECT_GT(f32.latency_us, tf32.latency_us);
}

TEST(AnalyticalGemm, PinnedConfigErrors) {
  auto err = [](const std::string& spec, const GpuSpec& gpu) {
    try {
      analyze(gpu, parse_kernel_spec(spec, "b.csv:4"));
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "b.csv:4");
      return e.detail();
    }
    return std::string();
  };
  auto h100 = test::test_h100();
  EXPECT_NE(err("gemm m=64 n=64 k=64 dtype=bf16 config=128x256", h100).find("bad config '128x256'"),
            std::string::npos);
  EXPECT_NE(err("gemm m=64 n=64 k=64 dtype=bf16 config=96x256x64_s4_w8", h100).find("no tile 96x256x64"),
            std::string::npos);
  EXPECT_NE(err("gemm m=64 n=64 k=64 dtype=bf16 config=128x256x64_s9_w8", h100).find("stage count"),
            std::string::npos);
  // tf32 doubles the operand bytes: 4 * 384 * 64 * 4 B = 384 KiB > 227 KiB per block.
  EXPECT_NE(err("gemm m=64 n=64 k=4096 dtype=tf32 config=128x256x64_s4_w8", h100).find("shared memory per block"),
            std::string::npos);
  EXPECT_NE(err("gemm m=64 n=64 k=64 dtype=fp32 config=128x256x64_s4_w8", h100).find("do not run dtype=fp32"),
            std::string::npos);
  EXPECT_NE(err("gemm m=64 n=64 k=64 dtype=bf16 config=128x256x64_s4_w8", test::test_a100())
                .find("not available on architecture 'ampere'"),
            std::string::npos);
  EXPECT_NE(err("gemm m=64 n=64 k=128 dtype=bf16 config=128x128x64_s4_w8_sk4", h100).find("exceeds the 2 k-iter"),
            std::string::npos);
}

}  // namespace
}  // namespace loom
