// Unit tests of the Triton GEMM tuning target (gemm-triton, gemm-triton-fp8): spec -> target, the pool of
// gemm_sweep.py corpora (and nothing else), the cuBLAS rows measured beside it, the wave features of a plain GEMM and
// the per-config model's decision on them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "learned/corpus.h"
#include "trace/trace.h"
#include "wave/config_model.h"
#include "wave/decide.h"
#include "wave/fit.h"
#include "wave/tables.h"
#include "wave/validate.h"

namespace loom::wave {
namespace {

TuneShape shape_of(const std::string& spec) { return parse_tune_shape(parse_kernel_spec(spec)); }

TEST(WaveGemmTriton, TargetsAndDefaults) {
  EXPECT_EQ(target_of(shape_of("gemm m=8 n=4096 k=4096 impl=triton")), "gemm-triton");
  EXPECT_EQ(target_of(shape_of("gemm m=8 n=4096 k=4096 impl=triton dtype=fp8")), "gemm-triton-fp8");
  EXPECT_EQ(target_of(shape_of("gemm m=8 n=4096 k=4096")), "gemm");
  EXPECT_THROW(shape_of("gemm m=8 n=4096 k=4096 dtype=fp8"), InputError);  // loom-bench's kernels are bf16 only
  EXPECT_THROW(shape_of("gemm m=8 n=4096 k=4096 impl=triton dtype=fp16"), InputError);
  EXPECT_EQ(base_family("gemm-triton-fp8"), "gemm");
  EXPECT_EQ(target_impl("gemm-triton"), "triton");
  EXPECT_EQ(target_dtype("gemm-triton-fp8"), "fp8");
  EXPECT_TRUE(is_tune_family("gemm-triton") && is_tune_family("gemm-triton-fp8"));
  EXPECT_FALSE(is_tune_family("gemm-cutlass"));
  EXPECT_EQ(default_config("gemm-triton"), "128x256x64_s3_w8_g8");  // Triton's matmul tutorial, first autotune entry
  EXPECT_EQ(default_config("moe-triton"), "64x64x64_s3_w4_g1");     // unchanged
  EXPECT_EQ(tune_spec(shape_of("gemm m=8 n=4096 k=4096 impl=triton dtype=fp8"), "64x64x64_s3_w4_g8"),
            "gemm m=8 n=4096 k=4096 dtype=fp8 config=64x64x64_s3_w4_g8");
  EXPECT_TRUE(is_tune_sweep_tool("gemm_sweep.py") && is_tune_sweep_tool("moe_sweep.py --configs"));
  EXPECT_FALSE(is_tune_sweep_tool("torch_sweep.py"));
}

TEST(WaveGemmTriton, GridOfAPlainGemm) {
  const TuneShape s = shape_of("gemm m=100 n=4096 k=1000 impl=triton");
  const GridMap g = map_grid(s, 64, 128, 64);
  EXPECT_EQ(g.ctas, 2 * 32);      // ceil(100/64) * ceil(4096/128)
  EXPECT_EQ(g.loop_iters, 16);    // ceil(1000/64)
  TuneConfig c = parse_tune_config("gemm-triton", "64x128x64_s3_w4_g8", "t");
  c.ctas_per_sm = 2;
  const ConfigCoef f = config_features(s, c, 132);
  EXPECT_DOUBLE_EQ(f[1], 1.0);                     // 64 CTAs fit one wave of 264 slots
  EXPECT_DOUBLE_EQ(f[0], 16.0);                    // W * L
  EXPECT_DOUBLE_EQ(f[2], 64.0 * 16 / 264);         // G * L / slots
  EXPECT_DOUBLE_EQ(f[4], 4096.0 * 1000 / 1e8);     // weight elements: the floor of small M
  EXPECT_DOUBLE_EQ(f[6], 0.0);                     // M = 100 >= BM = 64: no wrapped rows
  // Other bytes features: every operand once (bf16 A, B, C), and what the tiles load (A per N tile, B per M tile).
  EXPECT_DOUBLE_EQ(config_features(s, c, 132, BytesFeature::operands)[4],
                   (2.0 * (4096.0 * 1000 + 100.0 * 1000) + 2.0 * 100 * 4096) / 1e8);
  EXPECT_DOUBLE_EQ(config_features(s, c, 132, BytesFeature::tiles)[4],
                   (2.0 * 1000 * (2 * 4096.0 + 100.0 * 32) + 2.0 * 100 * 4096) / 1e8);
  // M = 4 under 64-row tiles: each real row is loaded 16 times (rows wrap), 15 repeats per unit of work.
  const TuneShape small = shape_of("gemm m=4 n=4096 k=1000 impl=triton");
  EXPECT_DOUBLE_EQ(row_repeats(small, 64), 15.0);
  EXPECT_DOUBLE_EQ(config_features(small, c, 132)[6], 32.0 * 16 / 264 * 15);
  EXPECT_DOUBLE_EQ(row_repeats(shape_of("moe tokens=1 experts=8 topk=2 hidden=1024 inter=512 impl=triton"), 64), 0.0);
}

Corpus gemm_part(const std::string& path, const std::string& tool, const std::vector<const char*>& shapes, double us) {
  Corpus c;
  c.gpu_key = "h200", c.sms = 132, c.path = path;
  c.meta["tool"] = tool;
  int id = 0;
  for (const char* shape : shapes)
    for (const char* dtype : {"bf16", "fp8"}) {
      CorpusRow lib;  // cuBLAS beside the sweep: the spec without config=
      lib.case_id = ++id, lib.family = "gemm", lib.impl = "torch", lib.median_us = us / 2;
      lib.spec = std::string(shape) + " dtype=" + dtype;
      c.rows.push_back(lib);
      for (const char* cfg : {"16x64x64_s3_w4_g1", "128x256x64_s3_w8_g8"}) {
        CorpusRow r;
        r.case_id = ++id, r.family = "gemm", r.impl = "triton", r.regs = 168, r.smem_bytes = 98304;
        r.median_us = us + id;
        r.spec = lib.spec + " config=" + cfg;
        c.rows.push_back(r);
      }
    }
  return c;
}

TEST(WaveGemmTriton, PoolReadsGemmSweepsOnly) {
  const char* a = "gemm m=1 n=6144 k=4096";
  const char* b = "gemm m=512 n=6144 k=4096";
  const char* c = "gemm m=4096 n=6144 k=4096";
  std::vector<Corpus> corpora = {gemm_part("p1", "gemm_sweep.py", {a}, 10), gemm_part("p2", "gemm_sweep.py", {b}, 20),
                                 gemm_part("m", "moe_sweep.py", {c}, 30)};
  const GpuSpec gpu = Catalog::load().get("h200");
  Pool p = load_pool(corpora, gpu, "h200", "gemm-triton", "traces");
  ASSERT_EQ(p.shapes.size(), 2u);  // both parts; not the corpus of another sweep tool
  ASSERT_EQ(p.configs.size(), 2u);
  EXPECT_EQ(p.configs[1].smem_bytes, 98304);
  EXPECT_EQ(p.configs[1].regs_per_thread, 168);
  EXPECT_GE(p.configs[0].ctas_per_sm, 1);
  for (const auto& k : p.keys) EXPECT_NE(k.find("dtype=bf16"), std::string::npos) << k;
  EXPECT_EQ(load_pool(corpora, gpu, "h200", "gemm-triton-fp8", "traces").shapes.size(), 2u);
  const auto lib = sweep_cublas_latencies(corpora, "h200", "gemm-triton");
  ASSERT_EQ(lib.size(), 2u);
  EXPECT_DOUBLE_EQ(lib.at("gemm m=1 n=6144 k=4096 dtype=bf16"), 5.0);
  EXPECT_EQ(sweep_cublas_latencies(corpora, "h200", "gemm-triton-fp8").count("gemm m=512 n=6144 k=4096 dtype=fp8"), 1u);
  try {
    load_pool({corpora[2]}, gpu, "h200", "gemm-triton", "traces");
    FAIL() << "a moe sweep is no gemm pool";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/tune-gemm-triton-collect.sh"), std::string::npos) << e.what();
  }
}

TEST(WaveGemmTriton, ConfigModelDecidesTheTrueArgminOfAGemmLaw) {
  Pool p;
  p.gpu = "h200", p.family = "gemm-triton", p.sms = 132;
  for (const char* n : {"16x64x128_s4_w4_g1", "64x128x64_s3_w4_g8", "128x256x64_s3_w8_g8"}) {
    TuneConfig c = parse_tune_config("gemm-triton", n, "t");
    c.ctas_per_sm = 1;
    p.configs.push_back(c);
  }
  // Small tiles: cheap waves, dear per tile; big tiles: the reverse; so the argmin moves with M.
  const ConfigCoef truth[3] = {{0.30, 1.0, 0.01, 4, 2.0, 0.05}, {0.50, 2.0, 0.02, 6, 2.5, 0.1},
                               {0.90, 3.0, 0.03, 9, 3.0, 0.2}};
  for (int64_t m : {1, 8, 32, 128, 512, 1024, 2048, 4096})
    for (int64_t nk : {1024, 4096}) {
      const TuneShape s = shape_of("gemm m=" + std::to_string(m) + " n=" + std::to_string(nk * 3) + " k=" +
                                   std::to_string(nk) + " impl=triton");
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
  TuneTables t = build_tables(p, all, default_config("gemm-triton"));
  t.config_model = fit_config_model(p, all, 0.0);
  const CompiledTables ct = compile_tables(tables_from_json(nlohmann::json::parse(tables_to_json(t).dump()), "t"));
  std::set<int> chosen;
  for (size_t s = 0; s < p.shapes.size(); ++s) {
    size_t arg = 0;
    for (size_t i = 1; i < 3; ++i)
      if (p.us[s][i] < p.us[s][arg]) arg = i;
    const Choice c = decide(ct, p.shapes[s]);
    EXPECT_EQ(c.config, int(arg)) << p.keys[s];
    chosen.insert(c.config);
  }
  EXPECT_GE(chosen.size(), 2u) << "the law should make the best config depend on the shape";
  // CV over (lambda, left-out feature, pruning) takes values from its grids; the exact law is found with every
  // feature, a dropped feature has a zero coefficient, and pruned configs (never near-best) a 1e9 intercept.
  const ConfigParams cp = choose_config_params(p, all, {0.0, 0.1}, {-1, 4}, {1e9, 0.0});
  EXPECT_EQ(cp.dropped_feature, -1);
  EXPECT_EQ(cp.lambda, 0.0);
  const ConfigModel d = fit_config_model(p, all, 0.01, 4);
  for (const auto& c : d.coef) EXPECT_EQ(c[4], 0.0);
  std::vector<bool> one(p.shapes.size(), false);
  one[0] = true;  // m = 1: only the best config there stays choosable
  const ConfigModel pr = fit_config_model(p, one, 0.01, -1, 0.0);
  int pruned = 0;
  for (const auto& c : pr.coef) pruned += c[3] == kPrunedIntercept;
  EXPECT_EQ(pruned, 2);
}

TEST(WaveGemmTriton, TileBytesRowRepeatsAndNonNegativeFit) {
  Pool p;
  p.gpu = "h200", p.family = "gemm-triton", p.sms = 132;
  for (const char* n : {"16x64x128_s4_w4_g1", "64x128x64_s3_w4_g8", "128x256x64_s3_w8_g8"}) {
    TuneConfig c = parse_tune_config("gemm-triton", n, "t");
    c.ctas_per_sm = 1;
    p.configs.push_back(c);
  }
  // A law with every term (tile bytes, row repeats) and non-negative coefficients, over M from 1 (wrapped rows).
  const ConfigCoef truth[3] = {{0.30, 1.0, 0.01, 4, 0.5, 0.05, 0.02}, {0.50, 2.0, 0.02, 6, 0.4, 0.1, 0.05},
                               {0.90, 3.0, 0.03, 9, 0.3, 0.2, 0.08}};
  for (int64_t m : {1, 2, 8, 24, 96, 512, 2048})
    for (int64_t nk : {1024, 4096}) {
      const TuneShape s = shape_of("gemm m=" + std::to_string(m) + " n=" + std::to_string(nk * 3) + " k=" +
                                   std::to_string(nk) + " impl=triton");
      std::vector<double> us;
      for (size_t i = 0; i < 3; ++i) {
        const ConfigCoef f = config_features(s, p.configs[i], p.sms, BytesFeature::tiles);
        double v = 0;
        for (int j = 0; j < kConfigFeatures; ++j) v += truth[i][size_t(j)] * f[size_t(j)];
        us.push_back(v);
      }
      p.shapes.push_back(s), p.keys.push_back(tune_spec(s)), p.us.push_back(us);
    }
  const std::vector<bool> all(p.shapes.size(), true);
  TuneTables t = build_tables(p, all, default_config("gemm-triton"));
  t.config_model = fit_config_model(p, all, 0.0, -1, 1e9, BytesFeature::tiles, true);
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < size_t(kConfigFeatures); ++j)
      EXPECT_NEAR(t.config_model.coef[i][j], truth[i][j], 1e-6 * (1 + truth[i][j])) << i << " " << j;
  // Saved and read back: the bytes feature and the constraint survive; decisions are the true argmin, through the
  // per-pair bytes and row-repeat lanes.
  const TuneTables back = tables_from_json(nlohmann::json::parse(tables_to_json(t).dump()), "t");
  EXPECT_EQ(back.config_model.bytes, BytesFeature::tiles);
  EXPECT_TRUE(back.config_model.nonneg);
  const CompiledTables ct = compile_tables(back);
  for (size_t s = 0; s < p.shapes.size(); ++s) {
    size_t arg = 0;
    for (size_t i = 1; i < 3; ++i)
      if (p.us[s][i] < p.us[s][arg]) arg = i;
    EXPECT_EQ(decide(ct, p.shapes[s]).config, int(arg)) << p.keys[s];
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(predict_config(ct, i, p.shapes[s]), p.us[s][i], 1e-6 * p.us[s][i]);
  }
  // A law with a negative intercept: the constrained fit keeps every coefficient >= 0, the free one does not.
  for (auto& row : p.us)
    for (double& v : row) v -= 3.0;
  const ConfigModel free_fit = fit_config_model(p, all, 0.0);
  const ConfigModel nonneg_fit = fit_config_model(p, all, 0.0, -1, 1e9, BytesFeature::weights, true);
  bool negative = false;
  for (const auto& c : free_fit.coef) negative = negative || *std::min_element(c.begin(), c.end()) < 0;
  EXPECT_TRUE(negative);
  for (const auto& c : nonneg_fit.coef) EXPECT_GE(*std::min_element(c.begin(), c.end()), 0.0);
  // Tables saved before the row-repeat feature (6 numbers a config) still load, with its coefficient 0.
  nlohmann::json j = tables_to_json(t);
  for (auto& row : j["config_model"]["coef"]) row.erase(row.size() - 1);
  const TuneTables old = tables_from_json(j, "t");
  EXPECT_EQ(old.config_model.coef[0][6], 0.0);
  EXPECT_EQ(old.config_model.coef[0][5], t.config_model.coef[0][5]);
  j["config_model"]["bytes"] = "flops";
  EXPECT_THROW(tables_from_json(j, "t"), InputError);
}

TEST(WaveGemmTriton, MacroPriorShrinksTowardsTheMacroFit) {
  Pool p;
  p.gpu = "h200", p.family = "gemm-triton", p.sms = 132;
  // Three configs of one macro (64x128x64) sharing a law, and one of another macro.
  for (const char* n : {"64x128x64_s3_w4_g8", "64x128x64_s4_w4_g8", "64x128x64_s3_w8_g1", "16x64x128_s4_w4_g1"}) {
    TuneConfig c = parse_tune_config("gemm-triton", n, "t");
    c.ctas_per_sm = 1;
    p.configs.push_back(c);
  }
  const ConfigCoef law[2] = {{0.50, 2.0, 0.02, 6, 0.4, 0.1, 0.05}, {0.30, 1.0, 0.01, 4, 0.5, 0.05, 0.02}};
  for (int64_t m : {1, 8, 96, 512, 2048})
    for (int64_t n : {1024, 6144})
    for (int64_t k : {512, 4096}) {
      const TuneShape s = shape_of("gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" +
                                   std::to_string(k) + " impl=triton");
      std::vector<double> us;
      for (size_t i = 0; i < 4; ++i) {
        const ConfigCoef f = config_features(s, p.configs[i], p.sms);
        double v = 0;
        for (int j = 0; j < kConfigFeatures; ++j) v += law[i < 3 ? 0 : 1][size_t(j)] * f[size_t(j)];
        us.push_back(v);
      }
      p.shapes.push_back(s), p.keys.push_back(tune_spec(s)), p.us.push_back(us);
    }
  const std::vector<bool> all(p.shapes.size(), true);
  auto rel_rms = [&](const ConfigModel& m, size_t i) {
    double sum = 0;
    for (size_t s = 0; s < p.shapes.size(); ++s) {
      const ConfigCoef f = config_features(p.shapes[s], p.configs[i], p.sms);
      double v = 0;
      for (int j = 0; j < kConfigFeatures; ++j) v += m.coef[i][size_t(j)] * f[size_t(j)];
      sum += std::pow(v / p.us[s][i] - 1, 2);
    }
    return std::sqrt(sum / double(p.shapes.size()));
  };
  // Without ridge the prior changes nothing: the fit reproduces the law's latencies.
  const ConfigModel exact = fit_config_model(p, all, 0.0, -1, 1e9, BytesFeature::weights, true, 0, true);
  EXPECT_TRUE(exact.macro_prior);
  for (size_t i = 0; i < 4; ++i) EXPECT_LT(rel_rms(exact, i), 1e-6) << i;
  // Strong ridge: shrunk towards the macro's fit (itself shrunk towards zero), a config stays closer to its data than
  // shrunk towards zero.
  const ConfigModel zero = fit_config_model(p, all, 1.0, -1, 1e9, BytesFeature::weights, true, 0, false);
  const ConfigModel macro = fit_config_model(p, all, 1.0, -1, 1e9, BytesFeature::weights, true, 0, true);
  for (size_t i = 0; i < 3; ++i) EXPECT_LT(rel_rms(macro, i), rel_rms(zero, i)) << i;
  // The flag is saved with the tables; the CV takes its value from the grid.
  TuneTables t = build_tables(p, all, default_config("gemm-triton"));
  t.config_model = macro;
  EXPECT_TRUE(tables_from_json(nlohmann::json::parse(tables_to_json(t).dump()), "t").config_model.macro_prior);
  t.config_model = zero;
  EXPECT_FALSE(tables_from_json(nlohmann::json::parse(tables_to_json(t).dump()), "t").config_model.macro_prior);
  const ConfigParams cp = choose_config_params(p, all, {1.0}, {-1}, {1e9}, {BytesFeature::weights}, {true}, {0.0},
                                               {false, true});
  EXPECT_EQ(cp.lambda, 1.0);
}

}  // namespace
}  // namespace loom::wave
