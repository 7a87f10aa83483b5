// Config spaces: YAML loading (strict, FILE:LINE errors), enumeration on a GPU, macro/micro split.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "analytical/demand.h"
#include "analytical/occupancy.h"
#include "core/error.h"
#include "kernels/config_space.h"
#include "kernels/gemm_paths.h"
#include "kernels/shape.h"
#include "scratch_dir.h"
#include "test_gpus.h"

namespace loom {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(ConfigSpace, EveryFamilyFileLoads) {
  for (const auto& f : family_names()) {
    SCOPED_TRACE(f);
    ConfigTable t = load_config_table(kernels_dir() + "/" + f + ".yaml");
    EXPECT_EQ(t.family, f);
  }
}

TEST(ConfigSpace, GemmOnH100AndA100) {
  auto h = test::test_h100();
  ConfigSpace s = config_space(h, parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16"));
  EXPECT_EQ(s.family, "gemm");
  EXPECT_TRUE(has(s.configs, "128x256x64_s4_w8"));
  EXPECT_TRUE(has(s.configs, "128x256x64_s4_w8_sk4"));
  EXPECT_FALSE(has(s.configs, "128x256x64_s5_w8"));  // 5 * 48 KiB > 227 KiB
  EXPECT_FALSE(has(s.configs, "128x128x8_s3_w8"));   // SIMT tiles are fp32-only
  EXPECT_TRUE(has(s.candidates, "128x256x64_s4_w8"));
  for (const auto& c : s.candidates) EXPECT_TRUE(has(s.configs, c)) << c;
  ConfigSpace a = config_space(test::test_a100(), parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16"));
  EXPECT_FALSE(has(a.configs, "128x256x64_s4_w8"));  // wgmma tiles are Hopper+
  EXPECT_TRUE(has(a.configs, "256x128x32_s3_w8"));
  ConfigSpace tf = config_space(h, parse_kernel_spec("gemm m=1024 n=1024 k=4096 dtype=tf32"));
  EXPECT_TRUE(has(tf.candidates, "128x256x32_s4_w8"));  // 128x256x32_s6 lowered to 4 stages for 4-byte tf32
}

TEST(ConfigSpace, SmallMTilesAndRtxBlackwell) {
  // The token-side small tiles (cuBLAS nvjet 64x8 etc.) run bf16/fp16 on Hopper, not fp8 (its `dtypes:` list).
  auto h = test::test_h100();
  ConfigSpace b = config_space(h, parse_kernel_spec("gemm m=1 n=4096 k=4096 dtype=bf16"));
  EXPECT_TRUE(has(b.candidates, "8x64x64_s16_w4"));
  ConfigSpace f = config_space(h, parse_kernel_spec("gemm m=1 n=4096 k=4096 dtype=fp8"));
  EXPECT_FALSE(has(f.configs, "8x64x64_s16_w4"));
  std::string why;
  TileConfig c = parse_config(config_table(Family::gemm), Family::gemm, "8x64x64_s16_w4", "test");
  KernelShape s8 = parse_shape(parse_kernel_spec("gemm m=1 n=4096 k=4096 dtype=fp8"), h);
  EXPECT_FALSE(config_fits(c, config_table(Family::gemm), s8, h, &why));
  EXPECT_NE(why.find("dtype=fp8"), std::string::npos) << why;
  // sm_120 (RTX PRO / GeForce Blackwell) has mma.sync tensor cores: Ada's tiles, no wgmma.
  GpuSpec rtx = h;
  rtx.architecture = "blackwell", rtx.compute_capability = 120;
  EXPECT_EQ(config_arch(rtx), "ada");
  GpuSpec b200 = h;
  b200.architecture = "blackwell", b200.compute_capability = 100;
  EXPECT_EQ(config_arch(b200), "blackwell");
  ConfigSpace r = config_space(rtx, parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16"));
  EXPECT_FALSE(has(r.configs, "128x256x64_s4_w8"));
  EXPECT_TRUE(has(r.candidates, "128x128x32_s4_w4"));
}

TEST(ConfigSpace, OtherFamilies) {
  auto h = test::test_h100();
  ConfigSpace d = config_space(h, parse_kernel_spec("attention_decode batch=1 heads=8 kv_heads=1 seq_kv=512 "
                                                    "head_dim=128 dtype=bf16"));
  EXPECT_TRUE(has(d.configs, "16x128_w4_sp4"));
  EXPECT_FALSE(has(d.configs, "16x128_w4_sp8"));  // 512 keys = 4 blocks of 128
  ConfigSpace r = config_space(h, parse_kernel_spec("rms_norm rows=8 cols=4096 dtype=bf16"));
  EXPECT_EQ(r.candidates, std::vector<std::string>{"r1_w32"});
  EXPECT_EQ(r.configs.size(), 30u);  // 5 row counts x 6 warp counts
  ConfigSpace e = config_space(h, parse_kernel_spec("elementwise op=add rows=8 cols=8 dtype=bf16"));
  EXPECT_EQ(e.candidates, std::vector<std::string>{"w4_e4"});
  ConfigSpace ar = config_space(h, parse_kernel_spec("all_reduce bytes=8 gpus=2"));
  EXPECT_EQ(ar.configs, std::vector<std::string>{"ring"});
}

TEST(ConfigSpace, MacroMicroSplit) {
  ConfigSplit g = split_config("gemm", "128x256x64_s4_w8_sk4");
  EXPECT_EQ(g.macro, "128x256x64_sk4");
  EXPECT_EQ(g.micro, "s4_w8");
  ConfigSplit a = split_config("attention_prefill", "128x128_w8");
  EXPECT_EQ(a.macro, "128x128");
  EXPECT_EQ(a.micro, "w8");
  ConfigSplit d = split_config("attention_decode", "16x128_w4_sp8");
  EXPECT_EQ(d.macro, "16x128_sp8");
  ConfigSplit r = split_config("softmax", "r4_w4");
  EXPECT_EQ(r.macro, "r4");
  EXPECT_EQ(r.micro, "w4");
  ConfigSplit e = split_config("elementwise", "w4_e4");
  EXPECT_EQ(e.macro, "w4_e4");
  EXPECT_EQ(e.micro, "");
  EXPECT_THROW(split_config("gemm", "w4_e4"), InputError);
  EXPECT_THROW(split_config("conv", "w4_e4"), InputError);
}

std::string load_error(const std::string& yaml) {
  const test::ScratchDir scratch;
  const std::string path = scratch.file("bad.yaml");
  std::ofstream(path) << yaml;
  try {
    load_config_table(path);
  } catch (const InputError& e) {
    return e.where() + ": " + e.detail();
  }
  return "";
}

TEST(ConfigSpace, BadYamlReportsFileAndLine) {
  std::string e = load_error("family: gemm\nnaming: tile\nstages: {wgmma: [2]}\ntiles:\n"
                             "  - {tile: 128x256x64, warps: 8, mma: wgmma, archs: [hopper], colour: red}\n");
  EXPECT_NE(e.find("bad.yaml:5: unknown key 'colour'"), std::string::npos) << e;
  e = load_error("family: gemm\nnaming: tile\nstages: {wgmma: [2]}\ntiles:\n"
                 "  - {tile: 128x256, warps: 8, mma: wgmma, archs: [hopper]}\n");
  EXPECT_NE(e.find("bad.yaml:5: bad tile '128x256'"), std::string::npos) << e;
  e = load_error("family: gemm\nnaming: tile\nstages: {wgmma: [2]}\ntiles:\n"
                 "  - {tile: 128x256x64, warps: 8, mma: wgmma, archs: [hoper]}\n");
  EXPECT_NE(e.find("unknown architecture 'hoper'"), std::string::npos) << e;
  e = load_error("family: gemm\nnaming: tile\nstages: {wgmma: [2]}\ntiles:\n"
                 "  - {tile: 8x64x64, warps: 4, mma: wgmma, archs: [hopper], dtypes: [bf16, bf61]}\n");
  EXPECT_NE(e.find("bad.yaml:5: 'dtypes' has unknown dtype 'bf61'"), std::string::npos) << e;
  e = load_error("family: gemm\nnaming: tile\nstages: {wgmma: [2]}\ntiles:\n"
                 "  - {tile: 8x64x64, warps: 4, mma: wgmma, archs: [hopper], dtypes: bf16}\n");
  EXPECT_NE(e.find("bad.yaml:5"), std::string::npos) << e;
  e = load_error(
      "family: gemm\nnaming: tile\nstages: {wgmma: [2]}\ntiles:\n"
      "  - {tile: 128x256x64, warps: 8, mma: wgmma, archs: [hopper]}\ncandidates:\n  hopper: [64x64x64_s2_w4]\n");
  EXPECT_NE(e.find("bad.yaml:7"), std::string::npos) << e;
  EXPECT_NE(e.find("no tile 64x64x64"), std::string::npos) << e;
  e = load_error("family: gemm\nnaming: [oops\n");
  EXPECT_NE(e.find("bad.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("malformed YAML"), std::string::npos) << e;
  e = load_error("family: gemm\nnaming: tile\nnaming: rows\n");
  EXPECT_NE(e.find("bad.yaml:3: duplicate key 'naming' (first at line 2)"), std::string::npos) << e;
}

/// A candidate list as text (every field the probes set), computed on a fresh thread: an empty memo.
std::string list_text(const std::vector<TileConfig>& l) {
  std::string t;
  for (const auto& c : l)
    t += c.name + "/" + c.mma + "/" + std::to_string(c.stages) + "/" + std::to_string(c.threads) + "/" +
         std::to_string(c.regs_per_thread) + "/" + std::to_string(c.smem_bytes) + " ";
  return t;
}

// candidate_configs keeps a thread's recent lists by everything its probes read: a list it serves equals the list
// computed afresh whatever came before it (other GPUs, dtypes, head_dims, split-K extents), and an edited GPU (same
// object) gets its own list.
TEST(ConfigSpace, CandidateMemoServesFreshLists) {
  const std::vector<GpuSpec> gpus = {test::test_h100(), test::test_a100()};
  const std::vector<std::string> texts = {
      "gemm m=4096 n=4096 k=4096 dtype=bf16", "gemm m=64 n=4096 k=8 dtype=bf16", "gemm m=4096 n=4096 k=4096 dtype=tf32",
      "gemm m=512 n=1024 k=4096 dtype=fp32", "gemm m=100 n=4098 k=4097 dtype=bf16",
      "moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16",
      "moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=w2",
      "attention_prefill batch=1 heads=32 kv_heads=8 seq=4096 head_dim=64 causal=1 dtype=bf16",
      "attention_prefill batch=1 heads=32 kv_heads=8 seq=4096 head_dim=256 causal=1 dtype=bf16",
      "attention_decode batch=8 heads=32 kv_heads=8 seq_kv=100 head_dim=128 dtype=bf16",
      "attention_decode batch=8 heads=32 kv_heads=8 seq_kv=9000 head_dim=128 dtype=bf16"};
  std::vector<std::pair<const GpuSpec*, KernelShape>> cases;
  for (const auto& g : gpus)
    for (const auto& t : texts) cases.emplace_back(&g, parse_shape(parse_kernel_spec(t), g));
  auto fresh = [](const KernelShape& s, const GpuSpec& g) {
    std::string out;
    std::thread([&] { out = list_text(candidate_configs(s, g)); }).join();
    return out;
  };
  std::vector<std::string> want;
  for (const auto& [g, s] : cases) want.push_back(fresh(s, *g));
  std::thread([&] {  // one thread, every case twice in reverse order: the second call of each is served
    for (size_t i = cases.size(); i-- > 0;)
      for (int r = 0; r < 2; ++r)
        EXPECT_EQ(list_text(candidate_configs(cases[i].second, *cases[i].first)), want[i]) << i;
  }).join();
  GpuSpec g = test::test_h100();
  const KernelShape s = parse_shape(parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16"), g);
  const std::string before = list_text(candidate_configs(s, g));
  g.smem_per_block_bytes = 64 * 1024;  // the same object, smaller shared memory: fewer stages fit
  const std::string after = list_text(candidate_configs(s, g));
  EXPECT_NE(after, before);
  EXPECT_EQ(after, fresh(s, g));
}


TEST(ConfigSpace, Sm100TilesRunAsTcgen05) {
  // B200-class GPUs (sm_100) have no wgmma: the same tiles run as tcgen05.mma with tensor-memory accumulators, and
  // 128-row tiles pair up (2SM) where the grid has two along M, each CTA holding half of B.
  GpuSpec h = test::test_h100(), b = h;
  b.architecture = "blackwell", b.compute_capability = 100,
  b.tensor_flops_per_clk_per_sm[static_cast<int>(Dtype::bf16)] = 8192;
  const ConfigTable& t = config_table(Family::gemm);
  KernelShape s = parse_shape(parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16"), b);
  TileConfig ch = parse_config(t, Family::gemm, "128x256x64_s4_w8", "test"), cb = ch;
  ASSERT_TRUE(config_fits(ch, t, s, h, nullptr));
  ASSERT_TRUE(config_fits(cb, t, s, b, nullptr));
  EXPECT_EQ(ch.mma, "wgmma");
  EXPECT_EQ(cb.mma, "tcgen05");
  EXPECT_LT(cb.regs_per_thread, ch.regs_per_thread);  // no accumulator registers
  const double bytes = 2.0, bk = 64;
  Demand dh = gemm_demand(h, s, ch, false), db = gemm_demand(b, s, cb, false);
  // wgmma: fill (A + B) + A once + B per warpgroup (2); tcgen05 pair: fill (A + B/2) + A + B/2, read once.
  EXPECT_DOUBLE_EQ(dh.per_iter.smem, (128 + 256) * bk * bytes + (128 + 2 * 256) * bk * bytes);
  EXPECT_DOUBLE_EQ(db.per_iter.smem, 2 * (128 + 128) * bk * bytes);
  EXPECT_DOUBLE_EQ(db.per_iter.l2, (128 + 128) * bk * bytes);
  // One tile row: nothing to pair with, so B is whole (and multicast has no partner either).
  KernelShape one = parse_shape(parse_kernel_spec("gemm m=128 n=4096 k=4096 dtype=bf16"), b);
  Demand d1 = gemm_demand(b, one, cb, false);
  EXPECT_DOUBLE_EQ(d1.per_iter.smem, 2 * (128 + 256) * bk * bytes);
  // A 256-row tile is two 128-row instructions: B read twice, A once.
  TileConfig c256 = parse_config(t, Family::gemm, "256x128x64_s4_w8", "test");
  ASSERT_TRUE(config_fits(c256, t, s, b, nullptr));
  EXPECT_DOUBLE_EQ(gemm_demand(b, s, c256, false).per_iter.smem,
                   (256 + 128) * bk * bytes + (256 + 2 * 128) * bk * bytes);
  // sm_120 keeps Ada's mma.sync tiles, and Hopper is untouched (above).
  GpuSpec rtx = b;
  rtx.compute_capability = 120;
  EXPECT_FALSE(tcgen05_gpu(rtx));
  EXPECT_TRUE(tcgen05_gpu(b));
  // Tensor memory bounds residency: a 128x256 fp32 accumulator takes 256 of the 512 columns, so 2 CTAs a SM even
  // where shared memory would hold 3 (fp8 128x256x32, 6 stages: 73.7 KiB).
  KernelShape f8 = parse_shape(parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=fp8"), b);
  TileConfig c8 = parse_config(t, Family::gemm, "128x256x32_s6_w8", "test");
  b.tensor_flops_per_clk_per_sm[static_cast<int>(Dtype::fp8)] = 16384;
  ASSERT_TRUE(config_fits(c8, t, f8, b, nullptr));
  EXPECT_EQ(c8.tmem_cols, 256);
  const Occupancy o = occupancy(b, c8.threads, c8.regs_per_thread, c8.smem_bytes, c8.tmem_cols);
  EXPECT_EQ(o.by_tmem, 2);
  EXPECT_GE(o.by_smem, 3);
  EXPECT_EQ(o.ctas_per_sm, 2);
  EXPECT_EQ(o.limit, "tmem");
  // The candidate list is memoised per GPU limits and architecture: a "blackwell" GPU of another compute capability
  // (a file extending b200 with compute_capability 90) must not be handed b200's tcgen05 list, nor the reverse.
  GpuSpec b90 = b;
  b90.compute_capability = 90;
  ASSERT_FALSE(candidate_configs(s, b).empty());
  for (const TileConfig& c : candidate_configs(s, b)) EXPECT_NE(c.mma, "wgmma") << c.name;
  for (const TileConfig& c : candidate_configs(s, b90)) EXPECT_NE(c.mma, "tcgen05") << c.name;
  for (const TileConfig& c : candidate_configs(s, b)) EXPECT_NE(c.mma, "wgmma") << c.name;
}

TEST(ConfigSpace, Sm100AttentionRunsAsTcgen05) {
  // FlashAttention-4's layout on sm_100: S/P and O of each 128-row slice in tensor memory, P fed to PV from there,
  // so K and V are read once per slice (FA3 on Hopper: once per consumer warpgroup) and O takes no registers.
  GpuSpec h = test::test_h100(), b = h;
  b.architecture = "blackwell", b.compute_capability = 100;
  const ConfigTable& t = config_table(Family::attention_prefill);
  const std::string spec = "attention_prefill batch=1 heads=32 kv_heads=8 seq=4096 head_dim=128 causal=1 dtype=bf16";
  KernelShape s = parse_shape(parse_kernel_spec(spec), b);
  TileConfig ch = parse_config(t, Family::attention_prefill, "128x128_w8", "test"), cb = ch;
  ASSERT_TRUE(config_fits(ch, t, s, h, nullptr));
  ASSERT_TRUE(config_fits(cb, t, s, b, nullptr));
  EXPECT_EQ(ch.mma, "wgmma");
  EXPECT_EQ(cb.mma, "tcgen05");
  EXPECT_EQ(cb.tmem_cols, 128 + 128);  // S (BN columns) + O (head_dim columns)
  EXPECT_LT(cb.regs_per_thread, ch.regs_per_thread);
  const double kv_tile = 2.0 * 128 * 128 * 2, q_tile = 128.0 * 128 * 2;
  EXPECT_DOUBLE_EQ(attention_prefill_demand(h, s, ch, false).per_iter.smem, kv_tile + q_tile + 2 * kv_tile);
  EXPECT_DOUBLE_EQ(attention_prefill_demand(b, s, cb, false).per_iter.smem, kv_tile + q_tile + kv_tile);
  // The two-slice FA4 tile (listed as tcgen05) runs only where tensor memory exists; its 512 columns are the SM's.
  TileConfig fa4 = parse_config(t, Family::attention_prefill, "256x128_w16", "test"), on_h = fa4;
  ASSERT_TRUE(config_fits(fa4, t, s, b, nullptr));
  EXPECT_EQ(fa4.tmem_cols, 512);
  std::string why;
  EXPECT_FALSE(config_fits(on_h, t, s, h, &why));
  EXPECT_NE(why.find("tcgen05 tiles need compute capability 10.x"), std::string::npos) << why;
  KernelShape d256 = parse_shape(
      parse_kernel_spec("attention_prefill batch=1 heads=8 kv_heads=8 seq=512 head_dim=256 causal=1 dtype=bf16"), b);
  TileConfig big = parse_config(t, Family::attention_prefill, "256x128_w16", "test");
  EXPECT_FALSE(config_fits(big, t, d256, b, &why));  // 2 x (128 + 256) columns
  EXPECT_NE(why.find("tensor-memory"), std::string::npos) << why;
  for (const TileConfig& c : candidate_configs(s, b)) EXPECT_NE(c.mma, "wgmma") << c.name;
}

}  // namespace
}  // namespace loom

namespace loom {

TEST(GemmPaths, AlignmentAndBuckets) {
  EXPECT_EQ(gemm_align_bytes(4096, 4096, Dtype::bf16), 16);
  EXPECT_EQ(gemm_align_bytes(4098, 4096, Dtype::bf16), 4);   // K = 2 mod 4 elements: 4-byte rows
  EXPECT_EQ(gemm_align_bytes(4097, 4096, Dtype::bf16), 2);   // odd K: element alignment only
  EXPECT_EQ(gemm_align_bytes(4096, 4100, Dtype::fp32), 16);  // fp32: 4 elements = 16 bytes
  EXPECT_EQ(gemm_align_bytes(4096, 4098, Dtype::fp32), 8);
  EXPECT_EQ(gemm_m_bucket(1), "m1");
  EXPECT_EQ(gemm_m_bucket(8), "m2-8");
  EXPECT_EQ(gemm_m_bucket(513), "m513+");
  EXPECT_EQ(gemm_path_key("hopper", Dtype::bf16, 4, false, 100), "hopper|bf16|a4|s|m33-128");
}

TEST(GemmPaths, MisalignedBf16RunsOffTheWgmmaPathOnHopper) {
  // kernels/gemm_paths.json is learned from traced cuBLAS launches (loom trace paths): on Hopper a bf16 GEMM whose
  // K is odd falls back to Turing-shaped align-1 kernels; an aligned one runs nvjet (wgmma).
  auto slow = lookup_gemm_path("hopper", Dtype::bf16, 2, false, 4096);
  auto fast = lookup_gemm_path("hopper", Dtype::bf16, 16, false, 4096);
  ASSERT_TRUE(slow && fast);
  EXPECT_NE(slow->path, "wgmma");
  EXPECT_EQ(fast->path, "wgmma");
  EXPECT_FALSE(lookup_gemm_path("volta", Dtype::bf16, 16, false, 4096));  // nothing traced there
}

}  // namespace loom
