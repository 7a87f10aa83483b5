// Unit tests of the wave model's mapping and bilinear fit (src/wave/mapping.h, bilinear.h).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "wave/bilinear.h"
#include "wave/mapping.h"

namespace loom::wave {
namespace {

TEST(WaveMapping, GemmGridHandChecked) {
  // gemm m=66 n=1792 k=1664 under 64x64x32: ceil(66/64)=2 M-tiles x 1792/64=28 N-tiles = 56 CTAs; L = 1664/32 = 52.
  // (The corpus's CUPTI grid for this case is 28:2:1, i.e. the same 56 CTAs.)
  TuneShape s = parse_tune_shape(parse_kernel_spec("gemm m=66 n=1792 k=1664 dtype=bf16"));
  TuneConfig c = parse_tune_config("gemm", "64x64x32_s3_w4", "test");
  c.ctas_per_sm = 7;
  GridMap g = map_shape(s, c, 132);
  EXPECT_EQ(g.ctas, 56);
  EXPECT_EQ(g.loop_iters, 52);
  EXPECT_EQ(g.waves, 1);
  // 8192 x 16384 under 128x128x32 with 2 CTAs/SM on 132 SMs: 64*128 = 8192 CTAs -> ceil(8192/264) = 32 waves.
  s = parse_tune_shape(parse_kernel_spec("gemm m=8192 n=16384 k=4096"));
  c = parse_tune_config("gemm", "128x128x32_s3_w8", "test");
  c.ctas_per_sm = 2;
  g = map_shape(s, c, 132);
  EXPECT_EQ(g.ctas, 8192);
  EXPECT_EQ(g.loop_iters, 128);
  EXPECT_EQ(g.waves, 32);
}

TEST(WaveMapping, MoeGridFollowsUniformRouting) {
  // tokens=1 topk=2 experts=8: 2 experts hold one row each -> 2 M-tiles; w13 N = 2*14336 -> 448 N-tiles of 64.
  // The corpus's CUPTI grid for this case is 448:2:1.
  TuneShape s = parse_tune_shape(
      parse_kernel_spec("moe tokens=1 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=w13 config=x"));
  GridMap g = map_grid(s, 16, 64, 64);
  EXPECT_EQ(g.ctas, 2 * 448);
  EXPECT_EQ(g.loop_iters, 4096 / 64);
  // 100 tokens x topk 2 = 200 rows over 8 experts = 25 each -> ceil(25/16) = 2 tiles each = 16 M-tiles.
  TuneShape routed = s;  // 8 experts
  routed.tokens = 100, routed.topk = 2;
  EXPECT_EQ(tiled_gemm(routed, true).m_tiles(16), 16);
  // 13 rows over 8 experts: 5 experts get 2, 3 get 1 -> 8 tiles of bm=16.
  routed.tokens = 13, routed.topk = 1;
  EXPECT_EQ(tiled_gemm(routed, true).m_tiles(16), 8);
  s.stage = 2;  // w2: N = hidden, K = inter
  g = map_grid(s, 16, 64, 64);
  EXPECT_EQ(g.ctas, 2 * 64);
  EXPECT_EQ(g.loop_iters, 14336 / 64);
}

TEST(WaveMapping, ConfigSplitAndOccupancy) {
  TuneConfig c = parse_tune_config("gemm", "128x256x64_s3_w8", "test");
  EXPECT_EQ(c.macro, "128x256x64");
  EXPECT_EQ(c.micro, "s3_w8");
  EXPECT_EQ(c.smem_bytes, 3 * (128 + 256) * (64 + 8) * 2);
  GpuSpec gpu = Catalog::load().get("h200");
  c.regs_per_thread = 128;
  fit_occupancy(c, gpu);
  EXPECT_EQ(c.ctas_per_sm, 1);  // 165,888 B of smem per CTA
  EXPECT_THROW(parse_tune_config("gemm", "128x128", "test"), InputError);
  EXPECT_THROW(parse_tune_shape(parse_kernel_spec("rms_norm rows=4 cols=4096")), InputError);
  EXPECT_THROW(parse_tune_shape(parse_kernel_spec("gemm m=4 n=4")), InputError);
  EXPECT_THROW(parse_tune_shape(parse_kernel_spec("gemm m=4 n=4 k=64 dtype=fp8")), InputError);
}

TEST(WaveMapping, BucketsAndAnchors) {
  EXPECT_EQ(wave_bucket(1), 0);
  EXPECT_EQ(wave_bucket(6), 5);
  EXPECT_EQ(wave_bucket(7), 6);
  EXPECT_EQ(wave_bucket(9), wave_bucket(8));
  EXPECT_EQ(wave_bucket(1 << 20), int(wave_bucket_edges().size()) - 1);
  EXPECT_EQ(l_anchor(1), 0);
  EXPECT_EQ(l_anchor(2), 1);
  EXPECT_EQ(l_anchor(5), 2);   // 5 < 4*sqrt(2)=5.66
  EXPECT_EQ(l_anchor(6), 3);
  EXPECT_EQ(l_anchor(128), 7);
  EXPECT_EQ(l_anchor(1 << 30), kLAnchors - 1);
}

TEST(WaveBilinear, RecoversKnownCoefficients) {
  std::vector<BilinearSample> s;
  const double a = 0.0021, b = 0.013, c = 0.41, d = 6.5;
  for (double g : {132.0, 200.0, 264.0, 300.0, 396.0})
    for (double l : {8.0, 16.0, 64.0, 128.0}) s.push_back({g, l, a * g * l + b * g + c * l + d});
  BilinearFit f = fit_bilinear(s, 2.0);
  EXPECT_EQ(f.terms, 4);
  EXPECT_NEAR(f.a, a, 1e-9);
  EXPECT_NEAR(f.b, b, 1e-8);
  EXPECT_NEAR(f.c, c, 1e-7);
  EXPECT_NEAR(f.d, d, 1e-6);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_LT(f.max_rel_err, 1e-9);
  EXPECT_DOUBLE_EQ(f.mean_waves, 2.0);
  EXPECT_NEAR(f.predict(250, 32), a * 250 * 32 + b * 250 + c * 32 + d, 1e-6);
}

TEST(WaveBilinear, NoisyFitReportsResiduals) {
  std::vector<BilinearSample> s;
  int i = 0;
  for (double g : {100.0, 150.0, 200.0, 250.0})
    for (double l : {10.0, 20.0, 40.0, 80.0}) {
      const double noise = (i++ % 2 ? 1.03 : 0.97);
      s.push_back({g, l, (0.001 * g * l + 5) * noise});
    }
  BilinearFit f = fit_bilinear(s);
  EXPECT_EQ(f.terms, 4);
  EXPECT_GT(f.r2, 0.95);
  EXPECT_LT(f.r2, 1.0);
  EXPECT_GT(f.rel_rms, 0.01);
  EXPECT_LT(f.rel_rms, 0.05);
}

TEST(WaveBilinear, RankDeficientFallsBack) {
  // One grid size only: G and G*L are collinear with 1 and L -> the 4-term design is rank 2; falls back to {a, d}.
  std::vector<BilinearSample> s = {{128, 8, 10}, {128, 16, 14}, {128, 32, 22}, {128, 64, 38}};
  BilinearFit f = fit_bilinear(s);
  EXPECT_EQ(f.terms, 2);
  EXPECT_NEAR(f.predict(128, 24), 18, 1e-6);
  // Fewer samples than terms: 1 point -> a only.
  f = fit_bilinear({{100, 10, 50}});
  EXPECT_EQ(f.terms, 1);
  EXPECT_NEAR(f.predict(100, 10), 50, 1e-9);
  // Nothing: no terms, prediction floored at 0.
  f = fit_bilinear({});
  EXPECT_EQ(f.terms, 0);
  EXPECT_EQ(f.samples, 0);
}

TEST(WaveBilinear, PredictionFlooredAtHalfTheFastestSample) {
  std::vector<BilinearSample> s = {{10, 1, 10}, {20, 1, 5}, {30, 1, 1}, {40, 2, 1}, {50, 3, 2}};
  BilinearFit f = fit_bilinear(s);
  EXPECT_GE(f.predict(1000, 1), 0.5);
}

}  // namespace
}  // namespace loom::wave
