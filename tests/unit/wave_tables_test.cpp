// Unit tests of the wave model's dual tables: decisions on synthetic data, JSON round trip, C-header export structure,
// the pool/fit path on a synthetic corpus, and errors for missing tables or bad families.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/error.h"
#include "hw/catalog.h"
#include "wave/decide.h"
#include "wave/export.h"
#include "wave/fit.h"
#include "scratch_dir.h"

namespace loom::wave {
namespace {

// Synthetic truth: 64x64x32 costs 0.02*G*L + 2 us, 128x128x32 costs 0.07*G*L + 6 us (4x the work per CTA, a bit
// cheaper per unit of work but a larger fixed cost); micro configs s3_w4 / s4_w8 of 128x128x32 win at short / long L.
double truth_us(const std::string& cfg, int64_t g, int64_t l) {
  if (cfg == "64x64x32_s3_w4") return 0.02 * double(g * l) + 2;
  const double base = 0.07 * double(g * l) + 6;
  if (cfg == "128x128x32_s3_w4") return base * (l < 64 ? 1.0 : 1.1);
  return base * (l < 64 ? 1.1 : 1.0);  // 128x128x32_s4_w8
}

Pool synthetic_pool() {
  Pool p;
  p.gpu = "h200", p.family = "gemm", p.sms = 132;
  for (const char* n : {"64x64x32_s3_w4", "128x128x32_s3_w4", "128x128x32_s4_w8"}) {
    TuneConfig c = parse_tune_config("gemm", n, "test");
    c.ctas_per_sm = 4;
    p.configs.push_back(c);
  }
  for (int64_t m : {64, 256, 1024, 2048})
    for (int64_t n : {1024, 4096})
      for (int64_t k : {512, 1024, 4096, 8192}) {
        TuneShape s;
        s.family = "gemm", s.m = m, s.n = n, s.k = k;
        std::vector<double> us;
        for (const auto& c : p.configs) {
          GridMap g = map_grid(s, c.bm, c.bn, c.bk);
          us.push_back(truth_us(c.name, g.ctas, g.loop_iters));
        }
        p.shapes.push_back(s), p.keys.push_back(tune_spec(s)), p.us.push_back(us);
      }
  return p;
}

TEST(WaveTables, DecisionPicksSyntheticOptimum) {
  Pool pool = synthetic_pool();
  std::vector<bool> all(pool.shapes.size(), true);
  TuneTables t = build_tables(pool, all, "128x128x32_s3_w4");
  ASSERT_EQ(t.macros.size(), 2u);
  CompiledTables ct = compile_tables(t);
  for (size_t s = 0; s < pool.shapes.size(); ++s) {
    const Choice c = decide(ct, pool.shapes[s]);
    const auto best = std::min_element(pool.us[s].begin(), pool.us[s].end()) - pool.us[s].begin();
    EXPECT_EQ(ct.configs[size_t(c.config)], pool.configs[size_t(best)].name) << pool.keys[s];
    EXPECT_NEAR(c.predicted_us, pool.us[s][size_t(best)], 1e-6 * pool.us[s][size_t(best)] + 1e-6) << pool.keys[s];
  }
}

TEST(WaveTables, UnsampledBucketsAreExtrapolated) {
  Pool pool = synthetic_pool();
  std::vector<bool> sampled(pool.shapes.size());
  for (size_t s = 0; s < pool.shapes.size(); ++s) sampled[s] = pool.shapes[s].m <= 256;  // small grids only
  TuneTables t = build_tables(pool, sampled, "128x128x32_s3_w4");
  TuneShape big;
  big.family = "gemm", big.m = 16384, big.n = 16384, big.k = 4096;  // far more waves than any sample
  for (Extrapolation mode : {Extrapolation::ratio, Extrapolation::linear}) {
    const Choice c = decide(compile_tables(t, mode), big);
    EXPECT_TRUE(c.borrowed);
    EXPECT_GT(c.waves, 10);
    // Truth is linear in G*L here, so both modes stay within 25% of it.
    const GridMap g = map_grid(big, 64, 64, 32);
    const double truth = truth_us("64x64x32_s3_w4", g.ctas, g.loop_iters);
    EXPECT_NEAR(c.predicted_us, truth, 0.25 * truth);
  }
}

TEST(WaveTables, JsonRoundTrip) {
  Pool pool = synthetic_pool();
  std::vector<bool> all(pool.shapes.size(), true);
  TuneTables t = build_tables(pool, all, "128x128x32_s3_w4");
  const test::ScratchDir scratch;
  const std::string path = scratch.file("wave_round_trip.json");
  save_tables(t, path);
  TuneTables back = load_tables(path);
  EXPECT_EQ(tables_to_json(back).dump(), tables_to_json(t).dump());
  for (size_t s = 0; s < pool.shapes.size(); ++s)
    EXPECT_EQ(decide(compile_tables(back), pool.shapes[s]).config, decide(compile_tables(t), pool.shapes[s]).config);
}

TEST(WaveTables, MissingAndBadTablesNameTheFix) {
  try {
    load_tables("/nonexistent/h200-gemm.json", "h200", "gemm");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("loom tune --fit --traces traces/ --gpu h200 --family gemm"),
              std::string::npos);
  }
  const test::ScratchDir scratch;
  const std::string path = scratch.file("wave_bad.json");
  std::ofstream(path) << R"({"loom_tune_tables": 1, "wave_bucket_edges": [1], "gpu": "h200"})";
  EXPECT_THROW(load_tables(path), InputError);
  std::ofstream(path) << "{not json";
  EXPECT_THROW(load_tables(path), InputError);
  EXPECT_THROW(check_tune_family("attention_prefill", "--family"), InputError);
}

TEST(WaveExport, HeaderStructure) {
  Pool pool = synthetic_pool();
  std::vector<bool> all(pool.shapes.size(), true);
  const CompiledTables ct = compile_tables(build_tables(pool, all, "128x128x32_s3_w4"));
  const std::string h = export_header(ct);
  const std::string p = "loom_tune_h200_gemm";
  EXPECT_EQ(export_prefix("h100-sxm", "moe"), "loom_tune_h100_sxm_moe");
  for (const std::string& want :
       std::vector<std::string>{"#ifndef LOOM_TUNE_H200_GEMM_H", "#define LOOM_TUNE_H200_GEMM_MACROS 2",
                                "#define LOOM_TUNE_H200_GEMM_CONFIGS 3",
                                "static const char* const " + p + "_configs[LOOM_TUNE_H200_GEMM_CONFIGS]",
                                "static const double " + p + "_coef[", "static const uint8_t " + p + "_micro[",
                                "static inline int " + p + "_pick(int64_t m, int64_t n, int64_t k)", "#endif"})
    EXPECT_NE(h.find(want), std::string::npos) << want;
  // Balanced braces and parentheses, and one row per macro in the coefficient table.
  EXPECT_EQ(std::count(h.begin(), h.end(), '{'), std::count(h.begin(), h.end(), '}'));
  EXPECT_EQ(std::count(h.begin(), h.end(), '('), std::count(h.begin(), h.end(), ')'));
  const std::regex cell(R"(\{[-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+, [-0-9.e+]+\})");
  const auto cells = std::distance(std::sregex_iterator(h.begin(), h.end(), cell), std::sregex_iterator());
  EXPECT_EQ(cells, long(ct.macros.size()) * ct.buckets);
  for (const auto& c : ct.configs) EXPECT_NE(h.find('"' + c + '"'), std::string::npos);
}

TEST(WavePool, CorpusRowsBecomeAPool) {
  Corpus c;
  c.gpu_key = "h200", c.sms = 132, c.path = "synthetic";
  int id = 0;
  for (const char* cfg : {"64x64x32_s3_w4", "128x128x32_s3_w4"})
    for (const char* shape : {"gemm m=64 n=1024 k=512 dtype=bf16", "gemm m=128 n=2048 k=1024 dtype=bf16"}) {
      CorpusRow r;
      r.case_id = id++, r.family = "gemm", r.impl = "loom", r.regs = 96, r.median_us = 10 + id;
      r.spec = std::string(shape) + " config=" + cfg;
      c.rows.push_back(r);
    }
  CorpusRow partial = c.rows[0];
  partial.spec = "gemm m=1 n=1024 k=512 dtype=bf16 config=64x64x32_s3_w4";
  c.rows.push_back(partial);
  Pool p = load_pool({c}, Catalog::load().get("h200"), "h200", "gemm", "traces");
  EXPECT_EQ(p.configs.size(), 2u);
  EXPECT_EQ(p.shapes.size(), 2u);
  EXPECT_EQ(p.incomplete_shapes, 1);
  EXPECT_EQ(p.configs[0].regs_per_thread, 96);
  EXPECT_GT(p.configs[0].ctas_per_sm, 0);
  EXPECT_THROW(load_pool({c}, Catalog::load().get("h200"), "h100-sxm", "gemm", "traces"), InputError);
  EXPECT_THROW(load_pool({c}, Catalog::load().get("h200"), "h200", "softmax", "traces"), InputError);
}

}  // namespace
}  // namespace loom::wave
