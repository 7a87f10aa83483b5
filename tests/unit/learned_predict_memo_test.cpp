// PredictMemo (learned/predict_memo.h): predict_many serves rows it predicted in earlier calls from its memo, and
// what it serves is exactly what predict() gives: for the same GPU values through another object, not for a GPU
// that differs in one field, after a generation has filled up, under a clock mode, and a bad row still throws.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "hw/catalog.h"
#include "learned/predict_memo.h"
#include "learned/predictor.h"

namespace {

using loom::GpuSpec;
using loom::KernelSpec;
using loom::Prediction;

std::vector<KernelSpec> mixed() {
  std::vector<KernelSpec> out;
  for (const char* t :
       {"gemm m=4096 n=4096 k=4096 dtype=bf16", "gemm m=17 n=14336 k=4096 dtype=bf16 impl=torch",
        "rms_norm rows=4096 cols=8192 dtype=bf16", "elementwise op=silu_mul rows=300 cols=14336 dtype=bf16",
        "attention_decode batch=64 heads=32 kv_heads=8 seq_kv=4000 head_dim=128 dtype=bf16",
        "attention_prefill batch=2 heads=32 kv_heads=8 seq=1500 head_dim=128 causal=1 dtype=bf16",
        "rotary tokens=2048 heads=32 head_dim=128 dtype=bf16", "softmax rows=512 cols=32768 dtype=fp32",
        "layer_norm rows=999 cols=4096 dtype=bf16",
        "moe tokens=256 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 stage=w2",
        "all_reduce bytes=33554432 gpus=8"})
    out.push_back(loom::parse_kernel_spec(t));
  return out;
}

void expect_same(const Prediction& one, const Prediction& many, const std::string& what) {
  EXPECT_EQ(one.latency_us, many.latency_us) << what;
  EXPECT_EQ(one.model, many.model) << what;
  EXPECT_EQ(one.at_ceiling, many.at_ceiling) << what;
  EXPECT_EQ(one.clock_factor, many.clock_factor) << what;
  EXPECT_EQ(one.achievable_us.has_value(), many.achievable_us.has_value()) << what;
  if (one.achievable_us && many.achievable_us) EXPECT_EQ(*one.achievable_us, *many.achievable_us) << what;
  EXPECT_EQ(one.collective.has_value(), many.collective.has_value()) << what;
  const loom::Analysis &a = *one.analysis, &b = *many.analysis;
  EXPECT_EQ(a.gpu, b.gpu) << what;
  EXPECT_EQ(a.kernel, b.kernel) << what;
  EXPECT_EQ(a.config, b.config) << what;
  EXPECT_EQ(a.config_reason, b.config_reason) << what;
  EXPECT_EQ(a.ceiling_us, b.ceiling_us) << what;
  EXPECT_EQ(a.bottleneck, b.bottleneck) << what;
  EXPECT_EQ(a.notes, b.notes) << what;
  EXPECT_EQ(one.ceiling_us(), many.ceiling_us()) << what;
  EXPECT_EQ(one.bottleneck(), many.bottleneck()) << what;
  EXPECT_EQ(one.shown_analysis()->notes, many.shown_analysis()->notes) << what;
  EXPECT_EQ(a.pipes.size(), b.pipes.size()) << what;
  EXPECT_EQ(a.launch.ctas, b.launch.ctas) << what;
}

/// predict_many of `specs` on `gpu` (every row) equals predict() row by row.
void check_batch(const loom::Predictor& p, const GpuSpec& gpu, const std::vector<KernelSpec>& specs, bool ach,
                 const std::string& what) {
  std::vector<const GpuSpec*> gpus(specs.size(), &gpu);
  std::vector<Prediction> many;
  p.predict_many(gpus, specs, ach, many);
  ASSERT_EQ(many.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i)
    expect_same(p.predict(gpu, specs[i], ach), many[i], what + " " + specs[i].family);
}

TEST(PredictMemo, ServesExactlyWhatPredictGives) {
  const loom::Catalog catalog = loom::Catalog::load();
  const GpuSpec h200 = catalog.get("h200");
  const loom::Predictor p("learned");
  ASSERT_TRUE(p.learned());
  const std::vector<KernelSpec> specs = mixed();
  for (bool ach : {false, true}) {
    check_batch(p, h200, specs, ach, "fresh");
    check_batch(p, h200, specs, ach, "seen twice: kept");
    check_batch(p, h200, specs, ach, "from the memo");
  }
  const GpuSpec same = h200;  // another object with the same values: served from the memo, the same predictions
  check_batch(p, same, specs, false, "equal GPU");
  GpuSpec fewer = h200;       // same name, one field changed: its own predictions, not h200's
  fewer.sms -= 12;
  check_batch(p, fewer, specs, false, "edited GPU");
  std::vector<const GpuSpec*> g1(specs.size(), &h200), g2(specs.size(), &fewer);
  std::vector<Prediction> a, b;
  p.predict_many(g1, specs, false, a);
  p.predict_many(g2, specs, false, b);
  EXPECT_NE(a[0].latency_us, b[0].latency_us);  // the 4096^3 GEMM is compute-bound: fewer SMs, slower
  // A copy of the predictor shares the memo; its clock mode applies on top of the memo's cool predictions.
  loom::Predictor sustained = p;
  sustained.set_clock(loom::ClockMode::sustained);
  check_batch(sustained, h200, specs, true, "sustained clock");
}

TEST(PredictMemo, GenerationsAndErrors) {
  const GpuSpec gpu = loom::Catalog::load().get("a100-sxm4-80gb");
  const loom::Predictor p("learned");
  std::vector<KernelSpec> specs;  // more distinct rows than a generation holds: the oldest are dropped, none is stale
  for (size_t m = 1; m <= loom::PredictMemo::kEntries + 1500; ++m)
    specs.push_back(loom::parse_kernel_spec("rms_norm rows=" + std::to_string(m) + " cols=4096 dtype=bf16"));
  std::vector<const GpuSpec*> gpus(specs.size(), &gpu);
  std::vector<Prediction> first, again;
  p.predict_many(gpus, specs, false, first);
  for (int k = 0; k < 3; ++k) p.predict_many(gpus, specs, false, again);
  for (size_t i = 0; i < specs.size(); i += 97) expect_same(p.predict(gpu, specs[i], false), first[i], "first");
  for (size_t i = 0; i < specs.size(); ++i) ASSERT_EQ(first[i].latency_us, again[i].latency_us) << i;
  // A bad row behind remembered ones still stops the batch with its error.
  std::vector<KernelSpec> bad(specs.begin(), specs.begin() + 10);
  bad.push_back(loom::parse_kernel_spec("rms_norm rows=0 cols=4096 dtype=bf16", "b.csv:12"));
  std::vector<const GpuSpec*> g(bad.size(), &gpu);
  EXPECT_THROW(p.predict_many(g, bad, false, again), loom::InputError);
}

TEST(PredictMemo, KeepsRowsSeenTwiceByEveryInput) {
  loom::PredictMemo memo;
  const GpuSpec gpu = loom::Catalog::load().get("h200");
  GpuSpec other = gpu;
  other.dram_type = "GDDR6";
  const uint32_t id = memo.gpu_id(gpu), copy_id = memo.gpu_id(GpuSpec(gpu)), other_id = memo.gpu_id(other);
  EXPECT_EQ(id, copy_id);
  EXPECT_NE(id, other_id);
  const KernelSpec spec = loom::parse_kernel_spec("rms_norm rows=7 cols=4096 dtype=bf16");
  Prediction p, got;
  p.latency_us = 12.5;
  loom::Analysis analysis;
  analysis.kernel = spec.to_string();
  p.analysis = std::make_shared<const loom::Analysis>(analysis);
  const uint64_t h = loom::PredictMemo::row_hash(id, false, spec);
  const uint8_t fresh = 1;
  memo.keep(1, &h, &id, false, &spec, &p, &fresh);
  EXPECT_FALSE(memo.find(h, id, false, spec, got));  // offered once: only noted
  memo.keep(1, &h, &id, false, &spec, &p, &fresh);
  ASSERT_TRUE(memo.find(h, id, false, spec, got));
  EXPECT_EQ(got.latency_us, 12.5);
  EXPECT_EQ(got.analysis->kernel, p.analysis->kernel);
  // Every input is compared, not only the hash.
  EXPECT_FALSE(memo.find(h, other_id, false, spec, got));
  EXPECT_FALSE(memo.find(h, id, true, spec, got));
  KernelSpec wider = spec;
  wider.params["cols"] = "8192";
  EXPECT_FALSE(memo.find(h, id, false, wider, got));
  // Two generations: after 2 x kEntries other rows it is gone.
  for (size_t i = 0; i < 2 * loom::PredictMemo::kEntries + 1; ++i) {
    KernelSpec s = spec;
    s.params["rows"] = std::to_string(100 + i);
    const uint64_t hs = loom::PredictMemo::row_hash(id, false, s);
    memo.keep(1, &hs, &id, false, &s, &p, &fresh);
    memo.keep(1, &hs, &id, false, &s, &p, &fresh);
    if (i == loom::PredictMemo::kEntries) EXPECT_TRUE(memo.find(h, id, false, spec, got));  // in the older one
  }
  EXPECT_FALSE(memo.find(h, id, false, spec, got));
}

}  // namespace

// Served rows share the remembered analysis (no copy of its strings), and the feature buffer predict_many keeps
// between calls (never cleared) gives fresh rows mixed with served ones exactly predict()'s values.
TEST(PredictMemo, ServedRowsShareTheAnalysisAndFreshRowsAmongThemAreExact) {
  const GpuSpec gpu = loom::Catalog::load().get("h200");
  const loom::Predictor p("learned");
  const std::vector<KernelSpec> specs = mixed();
  std::vector<const GpuSpec*> gpus(specs.size(), &gpu);
  std::vector<Prediction> a, b;
  for (int k = 0; k < 3; ++k) p.predict_many(gpus, specs, false, a);  // kept on the second call, served on the third
  p.predict_many(gpus, specs, false, b);
  for (size_t i = 0; i < specs.size(); ++i) {
    ASSERT_TRUE(a[i].analysis && b[i].analysis);
    EXPECT_EQ(a[i].analysis.get(), b[i].analysis.get()) << specs[i].family;
  }
  std::vector<KernelSpec> mix = specs;  // served rows with fresh ones between them, twice (the buffer is reused)
  for (int rows : {5, 6}) {
    for (const KernelSpec& s : specs) mix.push_back(s);
    mix.push_back(loom::parse_kernel_spec("rms_norm rows=" + std::to_string(rows * 1001) + " cols=5120 dtype=bf16"));
    mix.push_back(loom::parse_kernel_spec("gemm m=" + std::to_string(rows * 77) + " n=5120 k=2048 dtype=bf16"));
    check_batch(p, gpu, mix, false, "fresh among served");
  }
}

// Without text (CSV output): every value equals predict()'s, the text is empty, and rows with and without text never
// serve each other from the memo (fresh, kept, served; then the other way round on a fresh predictor).
TEST(PredictMemo, RowsWithoutTextKeepEveryValue) {
  const loom::Catalog catalog = loom::Catalog::load();
  const GpuSpec h200 = catalog.get("h200"), l40 = catalog.get("l40");
  for (bool text_first : {false, true}) {
    const loom::Predictor p("learned");
    ASSERT_TRUE(p.learned());
    std::vector<KernelSpec> specs = mixed();
    specs.push_back(loom::parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16 config=64x64x64_s4_w4"));
    specs.push_back(loom::parse_kernel_spec("attention_decode batch=4 heads=32 kv_heads=8 seq_kv=9000 head_dim=128 "
                                            "dtype=bf16 impl=paged block=16"));
    specs.push_back(loom::parse_kernel_spec("gemm m=8192 n=8192 k=1024 dtype=bf16 l2=warm"));
    specs.push_back(loom::parse_kernel_spec("rms_norm rows=4096 cols=8192 dtype=bf16 l2=warm"));
    for (const GpuSpec* gpu : {&h200, &l40}) {
      std::vector<const GpuSpec*> gpus(specs.size(), gpu);
      for (int round = 0; round < 6; ++round) {
        const bool text = (round < 3) == text_first;
        std::vector<Prediction> many;
        p.predict_many(gpus, specs, false, many, 1, text);
        for (size_t i = 0; i < specs.size(); ++i) {
          const Prediction one = p.predict(*gpu, specs[i], false);
          const loom::Analysis &a = *one.analysis, &b = *many[i].analysis;
          const std::string what = gpu->name + " " + specs[i].to_string() + (text ? " text" : " no text");
          EXPECT_EQ(one.latency_us, many[i].latency_us) << what;
          EXPECT_EQ(one.model, many[i].model) << what;
          EXPECT_EQ(one.at_ceiling, many[i].at_ceiling) << what;
          EXPECT_EQ(a.config, b.config) << what;
          EXPECT_EQ(a.ceiling_us, b.ceiling_us) << what;
          EXPECT_EQ(a.latency_us, b.latency_us) << what;
          EXPECT_EQ(a.bottleneck, b.bottleneck) << what;
          EXPECT_EQ(one.ceiling_us(), many[i].ceiling_us()) << what;
          EXPECT_EQ(one.bottleneck(), many[i].bottleneck()) << what;
          EXPECT_EQ(a.launch.occupancy_limit, b.launch.occupancy_limit) << what;
          EXPECT_EQ(a.min_dram_bytes, b.min_dram_bytes) << what;
          ASSERT_EQ(a.pipes.size(), b.pipes.size()) << what;
          for (size_t k = 0; k < a.pipes.size(); ++k) EXPECT_EQ(a.pipes[k].time_us, b.pipes[k].time_us) << what;
          if (text) {
            EXPECT_EQ(a.kernel, b.kernel) << what;
            EXPECT_EQ(a.config_reason, b.config_reason) << what;
            EXPECT_EQ(a.notes, b.notes) << what;
          } else {
            EXPECT_TRUE(b.kernel.empty() && b.config_reason.empty() && b.notes.empty()) << what;
          }
        }
      }
    }
  }
}
