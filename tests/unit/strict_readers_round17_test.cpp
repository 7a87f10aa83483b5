// Hardening, round 17 (issue 17): the engines' default-config corpora (`moe_sweep.py --configs`) read beside a tuning
// pool or a held-out grid are checked: one measured at another SM count than the pool's is refused (it was taken as
// the full chip's reference), a misspelt config name is refused (it was skipped as "not a default"), and a shape
// measured twice is their mean (the last row won), as the pool's rows are.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "input_error_util.h"
#include "trace/trace.h"
#include "wave/validate.h"

namespace loom {
namespace {

using wave::engine_default_latencies;

// The decode grid's shape at tokens 12 (<= experts 16: vLLM's default is 16x32x64 G1).
const std::string kShape = "moe tokens=12 experts=16 topk=4 hidden=6144 inter=2688 dtype=fp8 stage=w13";

CorpusRow row(const std::string& config, double us) {
  CorpusRow r;
  r.case_id = 1, r.family = "moe", r.impl = "triton", r.spec = kShape + " config=" + config, r.median_us = us;
  return r;
}

Corpus defaults(std::vector<CorpusRow> rows, int64_t sms = 132) {
  Corpus c;
  c.path = "d.corpus.csv.gz", c.gpu = "NVIDIA H200", c.gpu_key = "h200", c.sms = sms;
  c.meta["tool"] = "moe_sweep.py --configs";
  c.rows = std::move(rows);
  return c;
}

TEST(EngineDefaults, TheShapesDefaultConfigOnly) {
  const auto ref = engine_default_latencies(
      {defaults({row("16x32x64_s3_w4_g1", 194.4), row("64x64x32_s3_w4_g8", 255.6)})}, "h200", "moe-triton-fp8", 132);
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_DOUBLE_EQ(ref.begin()->second, 194.4);
  // Another GPU's corpus and a bf16 target are not this reference (nothing read, nothing refused).
  EXPECT_TRUE(engine_default_latencies({defaults({row("16x32x64_s3_w4_g1", 1)})}, "h100-sxm", "moe-triton-fp8", 132)
                  .empty());
  EXPECT_TRUE(engine_default_latencies({defaults({row("16x32x64_s3_w4_g1", 1)})}, "h200", "moe-triton", 132).empty());
}

TEST(EngineDefaults, AShapeMeasuredTwiceIsTheMean) {
  const auto ref = engine_default_latencies(
      {defaults({row("16x32x64_s3_w4_g1", 100), row("16x32x64_s3_w4_g1", 200)})}, "h200", "moe-triton-fp8", 132);
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_DOUBLE_EQ(ref.begin()->second, 150);
}

TEST(EngineDefaults, AnotherSmCountIsRefused) {
  expect_error([] { engine_default_latencies({defaults({row("16x32x64_s3_w4_g1", 1)}, 66)}, "h200", "moe-triton-fp8",
                                             132); },
               "d.corpus.csv.gz", "measured at #sms=66, the fit's pool at #sms=132");
}

TEST(EngineDefaults, AMisspeltConfigIsRefused) {
  const std::string what = error_of([] {
                             engine_default_latencies({defaults({row("x16x32x64_s3_w4_g1", 1)})}, "h200",
                                                      "moe-triton-fp8", 132);
                           }).what();
  EXPECT_IN(what, "x16x32x64_s3_w4_g1");
}

}  // namespace
}  // namespace loom
