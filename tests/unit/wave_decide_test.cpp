// The per-config decision loop (wave/lanes.h: lanes grouped by tile, vector argmin) must choose exactly what the plain
// per-config loop (decide_reference) chooses: on the committed tables over random shapes, and on ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "wave/config_model.h"
#include "wave/decide.h"
#include "wave/tables.h"

namespace loom::wave {
namespace {

TuneShape random_shape(std::mt19937_64& rng, bool gemm, const std::string& dtype) {
  auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  auto log_uniform = [&](double hi) { return int64_t(std::exp2(std::uniform_real_distribution<double>(0, hi)(rng))); };
  TuneShape s;
  s.impl = "triton", s.dtype = dtype;
  if (gemm) {
    s.family = "gemm", s.m = log_uniform(13);
    s.n = pick({128, 512, 1024, 2048, 3072, 4096, 5120, 6144, 8192, 14336, 28672}) + pick({0, 0, 16, 100});
    s.k = pick({256, 1024, 2048, 4096, 5120, 7168, 14336}) + pick({0, 0, 8, 72});
  } else {
    s.family = "moe", s.experts = pick({8, 16, 60, 64, 128, 256}),
    s.topk = std::min<int64_t>(s.experts, pick({1, 2, 4, 8}));
    s.tokens = log_uniform(13), s.hidden = pick({1024, 2048, 3584, 4096, 7168});
    s.inter = pick({128, 384, 768, 1408, 2048, 4096, 14336}), s.stage = pick({13, 2});
  }
  return s;
}

struct Target {
  const char* gpu;
  const char* family;
};
constexpr Target kTargets[] = {{"h100-sxm", "moe-triton"}, {"h200", "moe-triton"},  {"h100-sxm", "moe-triton-fp8"},
                               {"h200", "moe-triton-fp8"}, {"h100-sxm", "gemm-triton"}, {"h200", "gemm-triton"}};

TEST(WaveDecide, LanesChooseWhatThePlainLoopChoosesOnTheCommittedTables) {
  int checked = 0;
  for (const Target& tg : kTargets) {
    const std::string path = tables_path(tg.gpu, tg.family);
    if (!std::filesystem::exists(path)) continue;
    const CompiledTables t = compile_tables(load_tables(path, tg.gpu, tg.family));
    ASSERT_FALSE(t.per_config.empty()) << path;
    std::mt19937_64 rng(7);
    const bool gemm = base_family(tg.family) == "gemm";
    for (int i = 0; i < 3000; ++i) {
      const TuneShape s = random_shape(rng, gemm, target_dtype(tg.family));
      const Choice c = decide(t, s);
      ASSERT_EQ(c.config, decide_reference(t, s)) << tg.gpu << " " << tg.family << " " << tune_spec(s);
      // G, L and waves of the choice as map_grid counts them.
      const auto& pc = t.per_config[size_t(c.config)];
      const GridMap g = map_grid(s, pc.bm, pc.bn, pc.bk);
      ASSERT_EQ(c.ctas, g.ctas);
      ASSERT_EQ(c.loop_iters, g.loop_iters);
      ASSERT_EQ(c.bucket, wave_bucket(c.waves));
      ASSERT_DOUBLE_EQ(c.predicted_us, predict_config(t, size_t(c.config), s));
      ++checked;
    }
  }
  EXPECT_GE(checked, 3000);  // at least one target's tables are committed
}

// Equal latencies: the lowest config index wins, whichever tile group (and lane) it sits in.
TEST(WaveDecide, TiesGoToTheLowestConfigIndexAcrossTileGroups) {
  const std::string path = tables_path("h200", "moe-triton");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no committed h200 moe-triton tables";
  TuneTables tt = load_tables(path, "h200", "moe-triton");
  const size_t n = tt.config_model.coef.size();
  TuneShape s;
  s.family = "moe", s.impl = "triton", s.tokens = 64, s.experts = 64, s.topk = 8, s.hidden = 2048, s.inter = 768;
  // Every config 5 us (intercept only) except a few cheaper ones tied at 2 us, in different groups and lane positions.
  for (auto& w : tt.config_model.coef) w = {0, 0, 0, 5.0, 0, 0, 0};
  for (size_t tied : {n - 1, n / 2 + 3, size_t(9)}) tt.config_model.coef[tied] = {0, 0, 0, 2.0, 0, 0, 0};
  CompiledTables t = compile_tables(tt);
  EXPECT_EQ(decide(t, s).config, 9);
  EXPECT_EQ(decide_reference(t, s), 9);
  // ... and with the lowest one pruned (no lane), the next lowest.
  tt.config_model.coef[9] = {0, 0, 0, kPrunedIntercept, 0, 0, 0};
  t = compile_tables(tt);
  EXPECT_EQ(decide(t, s).config, int(n / 2 + 3));
  EXPECT_EQ(decide_reference(t, s), int(n / 2 + 3));
  // Every group's lanes are padded to whole vectors; padding never wins, even over a latency at the 0.1 us floor.
  for (auto& w : tt.config_model.coef) w = {0, 0, 0, -1.0, 0, 0, 0};
  t = compile_tables(tt);
  EXPECT_EQ(t.lanes.real, n);
  EXPECT_EQ(decide(t, s).config, 0);
}

}  // namespace
}  // namespace loom::wave
