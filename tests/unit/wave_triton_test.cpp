// Unit tests of the Triton fused-MoE tuning target: config names with GROUP_SIZE_M, the pool of a multi-part sweep,
// and the engine config files (names, JSON shape, decisions = the summed w13 + w2 optimum of the committed tables).
#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "trace/trace.h"
#include "wave/config_model.h"
#include "wave/decide.h"
#include "wave/engine_export.h"
#include "wave/fit.h"
#include "wave/tables.h"

namespace loom::wave {
namespace {

TEST(WaveTriton, ConfigNamesCarryGroup) {
  TuneConfig c = parse_tune_config("moe-triton", "64x128x64_s3_w4_g16", "t");
  EXPECT_EQ(c.bm, 64);
  EXPECT_EQ(c.bn, 128);
  EXPECT_EQ(c.bk, 64);
  EXPECT_EQ(c.stages, 3);
  EXPECT_EQ(c.warps, 4);
  EXPECT_EQ(c.group, 16);
  EXPECT_EQ(c.macro, "64x128x64");
  EXPECT_EQ(c.micro, "s3_w4_g16");
  EXPECT_EQ(parse_tune_config("moe", "64x64x64_s3_w4", "t").group, 0);
  for (const char* bad : {"64x128x64_s3_w4_g", "64x128x64_s3_w4_g0", "64x128x64_s3_w4_gx", "64x128x64_s3_w4_g16x"})
    EXPECT_THROW(parse_tune_config("moe-triton", bad, "t"), InputError) << bad;
}

TEST(WaveTriton, TargetsFromSpecs) {
  auto target = [](const char* spec) { return target_of(parse_tune_shape(parse_kernel_spec(spec))); };
  EXPECT_EQ(target("moe tokens=8 experts=8 topk=2 hidden=4096 inter=14336"), "moe");
  EXPECT_EQ(target("moe tokens=8 experts=8 topk=2 hidden=4096 inter=14336 impl=triton"), "moe-triton");
  EXPECT_EQ(target("moe tokens=8 experts=8 topk=2 hidden=4096 inter=14336 impl=triton dtype=fp8"), "moe-triton-fp8");
  EXPECT_THROW(target("moe tokens=8 experts=8 topk=2 hidden=4096 inter=14336 dtype=fp8"), InputError);
  EXPECT_EQ(target("gemm m=8 n=8 k=8 impl=triton"), "gemm-triton");
  EXPECT_THROW(target("moe tokens=8 experts=8 topk=2 hidden=4096 inter=14336 impl=cutlass"), InputError);
  EXPECT_EQ(base_family("moe-triton-fp8"), "moe");
  EXPECT_EQ(target_impl("moe-triton-fp8"), "triton");
  EXPECT_EQ(target_dtype("moe-triton-fp8"), "fp8");
  EXPECT_EQ(target_dtype("moe-triton"), "bf16");
}

Corpus sweep_part(const std::string& path, const std::string& tool, const std::vector<const char*>& shapes,
                  double base_us) {
  Corpus c;
  c.gpu_key = "h200", c.sms = 132, c.path = path;
  c.meta["tool"] = tool;
  int id = 0;
  for (const char* cfg : {"16x64x64_s3_w4_g1", "64x128x64_s4_w8_g16"})
    for (const char* shape : shapes)
      for (const char* dtype : {"bf16", "fp8"}) {
        CorpusRow r;
        r.case_id = ++id, r.family = "moe", r.impl = "triton", r.regs = 128, r.smem_bytes = 65536;
        r.median_us = base_us + id;
        r.spec = std::string(shape) + " dtype=" + dtype + " stage=w13 config=" + cfg;
        c.rows.push_back(r);
      }
  return c;
}

TEST(WaveTriton, PoolMergesSweepPartsOnly) {
  const char* a = "moe tokens=16 experts=8 topk=2 hidden=4096 inter=1792";
  const char* b = "moe tokens=64 experts=8 topk=2 hidden=4096 inter=1792";
  const char* c = "moe tokens=256 experts=8 topk=2 hidden=4096 inter=1792";
  std::vector<Corpus> corpora = {sweep_part("p1", "moe_sweep.py", {a}, 10), sweep_part("p2", "moe_sweep.py", {b}, 20),
                                 sweep_part("d", "moe_sweep.py --configs", {c}, 30)};
  const GpuSpec gpu = Catalog::load().get("h200");
  Pool p = load_pool(corpora, gpu, "h200", "moe-triton", "traces");
  EXPECT_EQ(p.shapes.size(), 2u);  // parts 1 and 2; the defaults corpus is not part of the grid
  EXPECT_EQ(p.configs.size(), 2u);
  EXPECT_EQ(p.configs[1].smem_bytes, 65536);  // CUPTI's shared memory, not loom-bench's formula
  for (const auto& k : p.keys) EXPECT_NE(k.find("dtype=bf16"), std::string::npos) << k;
  Pool f = load_pool(corpora, gpu, "h200", "moe-triton-fp8", "traces");
  EXPECT_EQ(f.shapes.size(), 2u);
  for (const auto& k : f.keys) EXPECT_NE(k.find("dtype=fp8"), std::string::npos) << k;
  EXPECT_THROW(load_pool(corpora, gpu, "h200", "moe", "traces"), InputError);  // no loom-bench corpus here
}

TEST(WaveEngineExport, FileNamesAsTheEnginesBuildThem) {
  const MoeLayerShape l{128, 8, 2048, 768};
  EXPECT_EQ(moe_config_file_name(l, "NVIDIA H200", "bf16"), "E=128,N=768,device_name=NVIDIA_H200.json");
  EXPECT_EQ(moe_config_file_name({8, 2, 4096, 7168}, "NVIDIA H100 80GB HBM3", "fp8"),
            "E=8,N=7168,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8.json");
}

TEST(WaveEngineExport, DecisionsMinimiseBothGemmsOfTheCommittedTables) {
  const TuneTables t = load_tables(tables_path("h200", "moe-triton"), "h200", "moe-triton");
  const CompiledTables ct = compile_tables(t);
  const MoeLayerShape l{128, 8, 2048, 768};
  const auto choices = choose_engine_configs(ct, l, engine_batch_sizes(), 2048);
  ASSERT_EQ(choices.size(), engine_batch_sizes().size());
  for (const auto& c : choices) {
    TuneShape s13;
    s13.family = "moe", s13.impl = "triton", s13.tokens = c.m, s13.experts = 128, s13.topk = 8, s13.hidden = 2048;
    s13.inter = 768;
    TuneShape s2 = s13;
    s2.stage = 2;
    double best = std::numeric_limits<double>::infinity();
    ASSERT_FALSE(ct.per_config.empty()) << "moe-triton tables carry the per-config model";
    for (size_t i = 0; i < ct.per_config.size(); ++i)
      best = std::min(best, predict_config(ct, i, s13) + predict_config(ct, i, s2));
    EXPECT_NEAR(c.w13_us + c.w2_us, best, 1e-9 * best) << "M=" << c.m;
    const TuneConfig cfg = parse_tune_config("moe-triton", ct.configs[size_t(c.config)], "t");
    EXPECT_GT(cfg.group, 0);
    EXPECT_EQ(c.extrapolated || c.m > 2048, c.extrapolated) << "M above the measured range must be flagged";
  }
  const auto j = engine_config_json(ct, choices);
  ASSERT_EQ(j.size(), engine_batch_sizes().size());
  int64_t prev = 0;
  for (const auto& [key, v] : j.items()) {
    const int64_t m = std::stoll(key);
    EXPECT_GT(m, prev);
    prev = m;
    ASSERT_EQ(v.size(), 6u);
    for (const char* k : {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages"})
      EXPECT_TRUE(v.contains(k) && v[k].is_number_integer() && v[k].get<int>() > 0) << key << " " << k;
  }
}

TEST(WaveConfigModel, RecoversALinearLawAndRoundTrips) {
  // Synthetic pool: every config's latency is exactly w . features; an unregularised fit must recover it, a decision
  // must pick the true argmin, and JSON must round-trip.
  Pool p;
  p.gpu = "h200", p.family = "moe-triton", p.sms = 132;
  for (const char* n : {"16x64x64_s3_w4_g1", "64x128x64_s4_w8_g16", "128x256x64_s3_w8_g1"}) {
    TuneConfig c = parse_tune_config("moe-triton", n, "t");
    c.ctas_per_sm = 1;
    p.configs.push_back(c);
  }
  // The last term is moe's empty programs per slot (decode batches launch mostly programs without work).
  const ConfigCoef truth[3] = {{0.02, 1.0, 0.01, 5, 3, 0.1, 0.4},
                               {0.05, 2.0, 0.02, 8, 1, 0.2, 0.6},
                               {0.09, 3.0, 0.03, 12, 0.5, 0.3, 0.8}};
  for (int64_t m : {1, 4, 16, 64, 256, 1024, 2048, 4096})
    for (int stage : {13, 2}) {
      TuneShape s;
      s.family = "moe", s.impl = "triton", s.tokens = m, s.experts = 64, s.topk = 6, s.hidden = 2048, s.inter = 1408;
      s.stage = stage;
      std::vector<double> us;
      for (size_t i = 0; i < 3; ++i) {
        const ConfigCoef f = config_features(s, p.configs[i], p.sms);
        double v = 0;
        for (int j = 0; j < kConfigFeatures; ++j) v += truth[i][size_t(j)] * f[size_t(j)];
        us.push_back(v);
      }
      p.shapes.push_back(s), p.keys.push_back(tune_spec(s)), p.us.push_back(us);
    }
  const std::vector<bool> all(p.shapes.size(), true);
  ConfigModel m = fit_config_model(p, all, 0.0);
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < size_t(kConfigFeatures); ++j)
      EXPECT_NEAR(m.coef[i][j], truth[i][j], 1e-6 * (1 + truth[i][j]));
  TuneTables t = build_tables(p, all, "16x64x64_s3_w4_g1");
  t.config_model = m;
  const TuneTables back = tables_from_json(nlohmann::json::parse(tables_to_json(t).dump()), "t");
  ASSERT_EQ(back.config_model.coef.size(), 3u);
  EXPECT_EQ(back.config_model.coef[1], m.coef[1]);
  const CompiledTables ct = compile_tables(back);
  for (size_t s = 0; s < p.shapes.size(); ++s) {
    size_t arg = 0;
    for (size_t i = 1; i < 3; ++i)
      if (p.us[s][i] < p.us[s][arg]) arg = i;
    EXPECT_EQ(decide(ct, p.shapes[s]).config, int(arg)) << p.keys[s];
    EXPECT_NEAR(predict_config(ct, arg, p.shapes[s]), p.us[s][arg], 1e-6 * p.us[s][arg]);
  }
  // A coefficient row of the wrong length is refused with the config's name.
  auto j = tables_to_json(t);
  j["config_model"]["coef"]["64x128x64_s4_w8_g16"] = {1, 2};
  EXPECT_THROW(tables_from_json(nlohmann::json::parse(j.dump()), "t"), InputError);
}

TEST(WaveConfigModel, StratifiedSampleSpansTheBatchRange) {
  Pool p;
  p.gpu = "h200", p.family = "moe-triton", p.sms = 132;
  for (int64_t m = 1; m <= 4096; m *= 2)
    for (int stage : {13, 2}) {
      TuneShape s;
      s.family = "moe", s.tokens = m, s.experts = 8, s.topk = 2, s.hidden = 4096, s.inter = 1792, s.stage = stage;
      p.shapes.push_back(s), p.keys.push_back(tune_spec(s)), p.us.push_back({1.0});
    }
  const auto sampled = select_stratified(p, 0.25);
  int64_t lo = 1 << 30, hi = 0, n = 0;
  for (size_t i = 0; i < sampled.size(); ++i)
    if (sampled[i]) ++n, lo = std::min(lo, p.shapes[i].tokens), hi = std::max(hi, p.shapes[i].tokens);
  EXPECT_EQ(n, 7);  // llround(0.25 * 26 = 6.5)
  EXPECT_LE(lo, 4);
  EXPECT_GE(hi, 1024);
  EXPECT_EQ(select_stratified(p, 0.25), sampled);  // deterministic
}

}  // namespace
TEST(WaveConfigModel, EmptyProgramsAreTheUpperBoundGridPastTheRoutedRows) {
  // The launch the sweep recorded (traces/tune/h200/moe-triton-1: grid 5456 for this shape and 128x64 tiles):
  // cdiv(2048*4 + 60*127, 128) = 124 M tiles x 44 N tiles; the routed rows fill 60 experts' ceil(137 rows / 128).
  TuneShape s;
  s.family = "moe", s.impl = "triton", s.tokens = 2048, s.experts = 60, s.topk = 4, s.hidden = 2048, s.inter = 1408;
  s.stage = 13;
  const GridMap g = map_grid(s, 128, 64, 64);
  EXPECT_EQ(double(g.ctas) + empty_programs(s, 128, 64), 5456.0);
  // One decode token, 8 of 128 experts: 8 working M tiles of cdiv(8 + 128*15, 16) = 121 launched, per N tile.
  s.tokens = 1, s.experts = 128, s.topk = 8, s.inter = 768;
  EXPECT_EQ(empty_programs(s, 16, 64), (121.0 - 8.0) * 24.0);
  s.family = "gemm";
  EXPECT_EQ(empty_programs(s, 16, 64), 0.0);
}

}  // namespace loom::wave

