// No prediction beats its own speed-of-light ceiling: random shapes of every family on every catalogue GPU, with
// the committed learned model (a cold-L2 kernel's latency is at least the slowest pipe's time at peak).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "hw/catalog.h"
#include "learned/predictor.h"

namespace loom {
namespace {

std::string random_spec(std::mt19937& rng, int family) {
  auto pick = [&](std::vector<int64_t> v) { return std::to_string(v[rng() % v.size()]); };
  auto log_int = [&](int lo, int hi) {
    return std::to_string(int64_t(1) << (lo + int(rng() % unsigned(hi - lo + 1))) | int64_t(rng() % 7));
  };
  switch (family) {
    case 0: return "gemm m=" + log_int(0, 13) + " n=" + log_int(6, 14) + " k=" + log_int(6, 14) + " dtype=" +
                   std::vector<std::string>{"bf16", "fp16", "fp32", "fp8"}[rng() % 4];
    case 1: return "moe tokens=" + log_int(0, 12) + " experts=8 topk=2 hidden=4096 inter=" + pick({1024, 14336}) +
                   " dtype=bf16";
    case 2: return "attention_prefill batch=" + pick({1, 4}) + " heads=32 kv_heads=8 seq=" + log_int(6, 13) +
                   " head_dim=128 causal=" + pick({0, 1}) + " dtype=bf16";
    case 3: return "attention_decode batch=" + log_int(0, 6) + " heads=32 kv_heads=8 seq_kv=" + log_int(6, 15) +
                   " head_dim=128 dtype=bf16";
    case 4: return "rms_norm rows=" + log_int(0, 14) + " cols=" + pick({2048, 4096, 8192}) + " dtype=bf16";
    case 5: return "layer_norm rows=" + log_int(0, 14) + " cols=" + pick({1024, 4096}) + " dtype=fp16";
    case 6: return "softmax rows=" + log_int(0, 14) + " cols=" + log_int(6, 15) + " dtype=fp32";
    case 7: return "elementwise op=" + std::vector<std::string>{"add", "mul", "silu_mul", "gelu"}[rng() % 4] +
                   " rows=" + log_int(0, 14) + " cols=" + pick({4096, 14336}) + " dtype=bf16";
    default: return "rotary tokens=" + log_int(0, 14) + " heads=" + pick({40, 48}) + " head_dim=128 dtype=bf16";
  }
}

TEST(LearnedCeiling, NoPredictionBelowItsCeiling) {
  const Catalog catalog = Catalog::load();
  const Predictor predictor("learned");
  ASSERT_TRUE(predictor.learned());
  std::mt19937 rng(7);
  int checked = 0;
  for (const auto& name : catalog.names()) {
    const GpuSpec gpu = catalog.get(name);
    for (int family = 0; family < 9; ++family)
      for (int i = 0; i < 12; ++i) {
        const std::string text = random_spec(rng, family) + (i % 2 ? " l2=warm" : "");
        Prediction p;
        try {
          p = predictor.predict(gpu, parse_kernel_spec(text, "test"));
        } catch (const InputError&) {
          continue;  // a shape or dtype this GPU cannot run
        }
        ++checked;
        EXPECT_GE(p.latency_us, p.ceiling_us() * (1 - 1e-12)) << name << ": " << text;
      }
  }
  EXPECT_GT(checked, 1000);
}

TEST(LearnedCeiling, ClampsBelowCeilingExceptWarm) {
  Analysis cold;
  cold.ceiling_us = 10;
  Prediction p;
  p.analysis = std::make_shared<const Analysis>(cold);
  Predictor::apply_learned(p, -0.5, -0.7);  // the forest says 0.61x the ceiling
  EXPECT_DOUBLE_EQ(p.latency_us, 10);
  EXPECT_TRUE(p.at_ceiling);
  EXPECT_DOUBLE_EQ(*p.achievable_us, 10);
  Analysis warm = cold;
  warm.l2_warm = true;  // inputs in L2: the cold (DRAM) ceiling is no bound
  Prediction w;
  w.analysis = std::make_shared<const Analysis>(warm);
  Predictor::apply_learned(w, -0.5, std::nullopt);
  EXPECT_NEAR(w.latency_us, 10 * std::exp(-0.5), 1e-12);
  EXPECT_FALSE(w.at_ceiling);
  Prediction a;
  a.analysis = p.analysis;
  Predictor::apply_learned(a, 0.3, 0.1);
  EXPECT_NEAR(a.latency_us, 10 * std::exp(0.3), 1e-12);
  EXPECT_FALSE(a.at_ceiling);
}

TEST(LearnedCeiling, WarmKernelsKeepEveryNonDramBound) {
  Prediction w;  // DRAM-bound when cold; from L2 the l2 pipe (4 us) is the bound
  auto wa = std::make_shared<Analysis>();
  wa->l2_warm = true;
  wa->ceiling_us = 10;
  wa->pipes = {{"dram", "bytes", 0, 0, 10}, {"l2", "bytes", 0, 0, 4}};
  w.analysis = wa;
  Predictor::apply_learned(w, -0.5, -2.0);
  EXPECT_NEAR(w.latency_us, 10 * std::exp(-0.5), 1e-12);
  EXPECT_DOUBLE_EQ(w.ceiling_us(), 4);
  EXPECT_EQ(w.bottleneck(), "l2");
  EXPECT_EQ(w.analysis, wa);  // the shared analysis is neither copied nor changed under another row
  EXPECT_DOUBLE_EQ(wa->ceiling_us, 10);
  EXPECT_TRUE(wa->notes.empty());
  const std::shared_ptr<const Analysis> shown = w.shown_analysis();  // as printed: the warm ceiling and why
  EXPECT_DOUBLE_EQ(shown->ceiling_us, 4);
  EXPECT_EQ(shown->bottleneck, "l2");
  ASSERT_EQ(shown->notes.size(), 1u);
  EXPECT_NE(shown->notes[0].find("l2=warm"), std::string::npos);
  EXPECT_DOUBLE_EQ(*w.achievable_us, 4);  // 10 e^-2 = 1.35 would be below the warm ceiling
  Prediction s;  // bound by shared memory: warm L2 does not lift that bound (b200 l2=warm GEMMs were 4% below it)
  auto sa = std::make_shared<Analysis>();
  sa->l2_warm = true;
  sa->ceiling_us = 10;
  sa->pipes = {{"smem", "bytes", 0, 0, 10}, {"dram", "bytes", 0, 0, 2}};
  s.analysis = sa;
  Predictor::apply_learned(s, -0.05, std::nullopt);
  EXPECT_DOUBLE_EQ(s.latency_us, 10);
  EXPECT_TRUE(s.at_ceiling);
}

}  // namespace
}  // namespace loom
