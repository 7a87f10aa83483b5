// gemm-cublaslt target: the sweep reader (and its bad-input errors), the wave features of cuBLASLt configs
// (F.linear -> cuBLAS m = N, n = M; split-K), fit/decide on a synthetic sweep, and the exported C header.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/error.h"
#include "wave/lt_model.h"
#include "wave/lt_sweep.h"
#include "scratch_dir.h"

using namespace loom;
using namespace loom::wave;

namespace {

const std::string kSmall = std::string(LOOM_TEST_DATA) + "/cublaslt/sweep-small.csv";

const char* kHead =
    "# tool=cublaslt_sweep gpu=Test GPU sms=132 cublaslt=130000 workspace_bytes=33554432\n"
    "shape,m,n,k,source,config,algo,bm,bn,stages,splitk,reduction,cta_swizzle,custom,inner,cluster,tile_id,stages_id,"
    "cluster_id,status,us,heur_rank,heur_query_us\n";

std::string error_of(const std::string& text) {
  try {
    read_lt_sweep_text(text, "t.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LtSweep, ReadsTheSyntheticSweep) {
  const LtSweep sw = read_lt_sweep(kSmall);
  EXPECT_EQ(sw.gpu_name, "Test GPU");
  EXPECT_EQ(sw.sms, 132);
  EXPECT_EQ(sw.workspace_bytes, 33554432);
  ASSERT_EQ(sw.configs.size(), 6u);
  EXPECT_EQ(sw.shapes.size(), 37u);
  EXPECT_EQ(sw.incomplete_shapes, 1);  // the cut-off last shape
  const LtConfig& c = sw.configs[3];
  EXPECT_EQ(c.splitk, 4);
  EXPECT_EQ(c.bm, 128);
  EXPECT_EQ(c.bn, 64);
  EXPECT_EQ(c.bk, 64);  // "64xAUTO"
  EXPECT_EQ(c.tile_id, 18);
  EXPECT_EQ(sw.heur0_config[0], 0);
  // K = 512 with split-K 4 and 8 was refused: NaN, not a latency.
  for (size_t s = 0; s < sw.shapes.size(); ++s)
    if (sw.shapes[s].k == 512) {
      EXPECT_TRUE(std::isnan(sw.us[s][4]));
      EXPECT_TRUE(std::isnan(sw.us[s][3]));
      EXPECT_FALSE(std::isnan(sw.us[s][0]));
    }
}

TEST(LtSweep, BadInputNamesFileLineAndField) {
  const std::string row = "0,8,4096,4096,x,a1_t128x128,1,128,128,64x3,1,0,0,0,0,auto,20,15,0,ok,12.5,0,\n";
  EXPECT_EQ(error_of(std::string(kHead) + row), "");  // the good row reads
  std::string bad = row;
  bad.replace(bad.find("12.5"), 4, "abc");
  EXPECT_EQ(error_of(kHead + bad), "t.csv:3: field 'us': 'abc' is not a positive latency (status ok)");
  bad = row;
  bad.replace(bad.find(",8,"), 3, ",0,");
  EXPECT_NE(error_of(kHead + bad).find("t.csv:3: field 'm': '0' is not an integer"), std::string::npos);
  bad = row;
  bad.replace(bad.find(",ok,"), 4, ",maybe,");
  EXPECT_EQ(error_of(kHead + bad), "t.csv:3: field 'status': 'maybe' is not ok, invalid or failed");
  EXPECT_EQ(error_of(kHead + row + row), "t.csv:4: field 'config': a1_t128x128 listed twice for shape 0");
  std::string other = row;
  other.replace(other.find(",1,0,0,0,0,auto"), 15, ",2,2,0,0,0,auto");
  other.replace(0, 1, "1");
  EXPECT_EQ(error_of(kHead + row + other),
            "t.csv:4: field 'config': a1_t128x128 has other attributes than on an earlier row");
  EXPECT_EQ(error_of(kHead + row.substr(0, row.size() - 2) + "\n"), "t.csv:3: has 22 fields, the header 23");
  EXPECT_NE(error_of("shape,m\n").find("t.csv: no '# ... sms=N' line"), std::string::npos);
  std::string no_col = kHead;
  no_col.replace(no_col.find(",us,"), 4, ",usx,");
  EXPECT_EQ(error_of(no_col + row), "t.csv:header: missing column 'us'; is this a cublaslt_sweep CSV?");
}

TEST(LtSweep, CompactRowsInheritShapeAndConfigFields) {
  // The committed sweeps leave a shape's m/n/k/source and a config's attributes empty after their first row.
  const std::string a = "0,8,4096,4096,x,a1_t128x128,1,128,128,64x3,1,0,0,0,0,auto,20,15,0,ok,12.5,0,\n";
  const std::string b = "1,16,4096,4096,y,a1_t128x128,1,128,128,64x3,1,0,0,0,0,auto,20,15,0,ok,13.5,-1,\n";
  const std::string b_compact = "1,16,4096,4096,y,a1_t128x128,,,,,,,,,,,,,,ok,13.5,-1,\n";
  const std::string a2 = "0,8,4096,4096,x,a2_t64x64,2,64,64,64x4,2,1,0,0,0,auto,10,16,0,ok,11.0,-1,\n";
  const std::string a2_compact = "0,,,,,a2_t64x64,2,64,64,64x4,2,1,0,0,0,auto,10,16,0,ok,11.0,-1,\n";
  const LtSweep full = read_lt_sweep_text(std::string(kHead) + a + a2 + b, "t.csv");
  const LtSweep compact = read_lt_sweep_text(std::string(kHead) + a + a2_compact + b_compact, "t.csv");
  ASSERT_EQ(full.configs.size(), compact.configs.size());
  ASSERT_EQ(full.shapes.size(), compact.shapes.size());
  for (size_t i = 0; i < full.shapes.size(); ++i) {
    EXPECT_EQ(full.shapes[i].m, compact.shapes[i].m);
    EXPECT_EQ(full.shapes[i].source, compact.shapes[i].source);
  }
  // A blank first row of a shape or a config has nothing to inherit.
  EXPECT_EQ(error_of(std::string(kHead) + "0,,,,,a1_t128x128,1,128,128,64x3,1,0,0,0,0,auto,20,15,0,ok,12.5,0,\n"),
            "t.csv:3: field 'm': empty on the first row of shape 0");
  EXPECT_EQ(error_of(std::string(kHead) + "0,8,4096,4096,x,a1_t128x128,,,,,,,,,,,,,,ok,12.5,0,\n"),
            "t.csv:3: field 'algo': empty on the first row of config a1_t128x128");
}

TEST(LtModel, FeaturesMapFLinearOntoCublasTiles) {
  LtConfig c;
  c.bm = 128, c.bn = 64, c.bk = 64, c.splitk = 4;
  // F.linear M=100, N=1000, K=4096: cuBLAS m = N = 1000 -> 8 tiles of 128, n = M = 100 -> 2 tiles of 64; x4 split.
  const LtCoef f = lt_features({100, 1000, 4096, ""}, c, 32);
  EXPECT_DOUBLE_EQ(f[5], 16.0);             // L = 4096 / (4 * 64)
  EXPECT_DOUBLE_EQ(f[1], 2.0);              // W = ceil(64 / 32)
  EXPECT_DOUBLE_EQ(f[0], 32.0);             // W * L
  EXPECT_DOUBLE_EQ(f[2], 64.0 * 16 / 32);   // G * L / SMs
  EXPECT_DOUBLE_EQ(f[4], 2.0 * (1000.0 * 4096 + 100.0 * 4096 + 100.0 * 1000) / 1e8);
  EXPECT_DOUBLE_EQ(f[6], 4.0 * 100 * 1000 * 4 / 1e8);
  c.splitk = 1;
  EXPECT_DOUBLE_EQ(lt_features({100, 1000, 4096, ""}, c, 32)[6], 0.0);
}

TEST(LtModel, FitsChoosesAndRoundTrips) {
  const LtSweep sw = read_lt_sweep(kSmall);
  const std::vector<bool> sampled = lt_select(sw, 0.5);
  EXPECT_EQ(std::count(sampled.begin(), sampled.end(), true), 19);
  const double lambda = choose_lt_params(sw, sampled, {0.001, 0.01, 0.1}, {1e9}).lambda;
  const LtModel m = fit_lt_model(sw, sampled, lambda);
  // Validity rule, fitted on every shape: split-K 4 and 8 were refused at K = 512 (K/splitK 128 and 64), never others;
  // so neither is chosen at K = 512.
  const LtModel all = fit_lt_model(sw, std::vector<bool>(sw.shapes.size(), true), lambda);
  EXPECT_EQ(all.max_refused_k_per_split[3], 128.0);
  EXPECT_EQ(all.max_refused_k_per_split[4], 64.0);
  EXPECT_EQ(all.max_refused_k_per_split[0], 0.0);
  const LtCompiled ca = compile_lt(all);
  for (int64_t mm : {1, 64, 4096}) {
    const int pick = decide_lt(ca, mm, 1024, 512);
    EXPECT_TRUE(pick >= 0 && pick != 3 && pick != 4) << pick;
  }
  const LtValidation v = validate_lt(sw, sampled, m, false);
  EXPECT_EQ(v.heldout, 18);
  EXPECT_EQ(v.invalid_choices, 0);
  EXPECT_LT(v.geomean, 1.06);  // the synthetic latencies follow the wave form
  EXPECT_GE(v.max, 1.0);
  const LtModel back = lt_model_from_json(nlohmann::json::parse(lt_model_json(m).dump()), "t.json");
  const LtCompiled a = compile_lt(m), b = compile_lt(back);
  for (const auto& s : sw.shapes) EXPECT_EQ(decide_lt(a, s.m, s.n, s.k), decide_lt(b, s.m, s.n, s.k));
  auto j = nlohmann::json::parse(lt_model_json(m).dump());
  j["configs"][2]["coef"] = {1, 2};
  try {
    lt_model_from_json(j, "t.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.json: configs[2]: coef: not 7 numbers");
  }
}

// The exported header compiles as C99 and picks what decide_lt picks, for the model alone and for the hybrid with
// heuristic #0 (skipped where no C compiler is installed).
TEST(LtExport, HeaderPicksAsDecide) {
  if (std::system("cc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no C compiler";
  const LtSweep sw = read_lt_sweep(kSmall);
  const std::vector<std::pair<double, int>> variants{{-1, 0}, {0, 0}, {0.05, 0}, {0, 1}, {0, 2}};
  for (const auto& [margin, neighbours] : variants) {
    const LtModel m = fit_lt_model(sw, lt_select(sw, 0.5), 0.01, 1e9, 0, margin, neighbours);
    if (neighbours > 0) ASSERT_EQ(m.ref_shapes.size(), 19u);
    const loom::test::ScratchDir scratch;
    const std::filesystem::path& dir = scratch.path();
    const std::string paths = export_lt(m, "h200", dir.string());
    EXPECT_NE(paths.find("loom_tune_h200_gemm_cublaslt.h"), std::string::npos);
    std::ofstream(dir / "main.c") << "#include <stdio.h>\n#include \"loom_tune_h200_gemm_cublaslt.h\"\n"
                                  << "int main(void) { long m, n, k; int h;\n"
                                  << "  while (scanf(\"%ld %ld %ld %d\", &m, &n, &k, &h) == 4)\n"
                                  << "    printf(\"%d\\n\", loom_tune_h200_gemm_cublaslt_pick(m, n, k, h));\n"
                                  << "  return 0; }\n";
    std::ostringstream in, want;
    const LtCompiled c = compile_lt(m);
    int switched = 0;
    for (size_t s = 0; s < sw.shapes.size(); ++s) {
      const auto& x = sw.shapes[s];
      for (int h : {sw.heur0_config[s], 0, -1}) {
        const int pick = decide_lt(c, x.m, x.n, x.k, h);
        in << x.m << " " << x.n << " " << x.k << " " << h << "\n", want << pick << "\n";
        switched += pick >= 0;
        if (margin >= 0 && h < 0 && neighbours == 0) EXPECT_EQ(pick, -1);  // heuristic #0 unknown: it runs
      }
    }
    EXPECT_GT(switched, 0) << margin;
    std::ofstream(dir / "in.txt") << in.str();
    const std::string d = dir.string();
    ASSERT_EQ(std::system(("cc -std=c99 -Wall -Wextra -Werror -O2 -o " + d + "/pick " + d + "/main.c -lm && " + d +
                           "/pick < " + d + "/in.txt > " + d + "/out.txt").c_str()),
              0);
    std::ifstream got_f(dir / "out.txt");
    std::stringstream got;
    got << got_f.rdbuf();
    EXPECT_EQ(got.str(), want.str()) << margin << " " << neighbours;
    const LtModel back = lt_model_from_json(nlohmann::json::parse(lt_model_json(m).dump()), "t.json");
    const LtCompiled cb = compile_lt(back);
    for (size_t s = 0; s < sw.shapes.size(); ++s)
      EXPECT_EQ(decide_lt(cb, sw.shapes[s].m, sw.shapes[s].n, sw.shapes[s].k, sw.heur0_config[s]),
                decide_lt(c, sw.shapes[s].m, sw.shapes[s].n, sw.shapes[s].k, sw.heur0_config[s]));
  }
}

// Hand-checked greedy dominating set: heuristic #0 costs log 1.2 on every shape; config 0 and config 2 each cut two
// shapes to their best (tie: the lower index is added first), config 1 only trims two to 1.1; after {0, 2} every
// shape is at its best, so the set stops at two configs even when more are allowed.
TEST(LtModel, GreedyDominatingSetAndPruning) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  LtSweep sw;
  sw.path = "t.csv", sw.sms = 132;
  for (int i = 0; i < 3; ++i) sw.configs.push_back(LtConfig{"c" + std::to_string(i)});
  for (int64_t m : {64, 256, 1024}) sw.shapes.push_back({m, 4096, 4096, "t"});
  sw.us = {{10, 11, 20}, {20, 11, 10}, {10, nan, 10}};
  sw.heur0_us = {12, 12, 12}, sw.heur0_config = {-1, -1, -1}, sw.heur_query_us = {nan, nan, nan};
  const std::vector<bool> all(3, true);
  EXPECT_EQ(lt_greedy_set(sw, all, 5), (std::vector<int>{0, 2}));
  EXPECT_EQ(lt_greedy_set(sw, all, 1), (std::vector<int>{0}));
  const LtModel m = fit_lt_model(sw, all, 0.01, 1e9, 1);
  EXPECT_EQ(m.keep_configs, 1);
  EXPECT_EQ(compile_lt(m).config, (std::vector<int32_t>{0}));
  EXPECT_EQ(compile_lt(fit_lt_model(sw, all, 0.01)).config.size(), 3u);
  // Hybrid: heuristic #0 runs unless its config is in the tables and the pick is predicted clearly faster.
  const LtCompiled h = compile_lt(fit_lt_model(sw, all, 0.01, 1e9, 0, 0.5));
  EXPECT_EQ(h.switch_margin, 0.5);
  for (const auto& s : sw.shapes) EXPECT_EQ(decide_lt(h, s.m, s.n, s.k, -1), -1);
  const LtCompiled h0 = compile_lt(fit_lt_model(sw, all, 0.01, 1e9, 0, 0.0));
  for (const auto& s : sw.shapes) {
    const int alone = decide_lt(compile_lt(fit_lt_model(sw, all, 0.01)), s.m, s.n, s.k);
    EXPECT_EQ(decide_lt(h0, s.m, s.n, s.k, alone), -1);  // heuristic #0's config is the pick itself: no switch
  }
}

// Two-stage plan: every config on the full shapes, the greedy set + heuristic #0 on the partial ones; the neighbour
// gate's references hold only what the plan measured, and validation counts only those points.
TEST(LtModel, TwoStagePlanMeasuresOnlyTheSetOnPartialShapes) {
  const LtSweep sw = read_lt_sweep(kSmall);
  const LtPlan p = lt_plan_two_stage(sw, 0.25, 10, 2);
  EXPECT_EQ(std::count(p.full.begin(), p.full.end(), true), 9);
  EXPECT_EQ(std::count(p.partial.begin(), p.partial.end(), true), 10);
  EXPECT_LE(p.set.size(), 2u);
  for (size_t s = 0; s < sw.shapes.size(); ++s) EXPECT_FALSE(p.full[s] && p.partial[s]);
  const LtModel m = fit_lt_two_stage(sw, p, 0.01);
  EXPECT_GE(m.switch_neighbours, 1);
  EXPECT_GE(m.switch_margin, 0.0);
  ASSERT_EQ(m.ref_shapes.size(), 19u);
  size_t r = 0;
  for (size_t s = 0; s < sw.shapes.size(); ++s) {
    if (!p.sampled[s]) continue;
    for (size_t ci = 0; ci < sw.configs.size(); ++ci)
      if (p.partial[s] && std::find(p.set.begin(), p.set.end(), int(ci)) == p.set.end())
        EXPECT_TRUE(std::isnan(m.ref_log_ratio[r][ci]));
    ++r;
  }
  EXPECT_EQ(compile_lt(m).config.size(), p.set.size());
  const LtValidation v = validate_lt(sw, p.sampled, m, false, &p);
  EXPECT_EQ(v.heldout, 18);
  EXPECT_LT(v.sampled_points, v.points / 2);
}
