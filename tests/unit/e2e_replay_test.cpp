// Trace replay: kernels re-timed for another GPU by the prediction ratio, idle time kept, identity on the same GPU.
#include <gtest/gtest.h>

#include "analytical/analysis.h"
#include "e2e/replay.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"

namespace loom {
namespace {

const std::string kSample = std::string(LOOM_TEST_DATA) + "/trace/torch_profile_sample.json";

TEST(E2eReplay, SameGpuIsIdentity) {
  const Catalog c = Catalog::load();
  const GpuSpec h200 = c.get("h200");
  const ChromeTrace t = read_chrome_trace(kSample);
  const ReplayResult r = replay_trace(t, h200, h200);
  ASSERT_EQ(r.kernels.size(), t.kernels.size());
  EXPECT_GT(r.mapped, 0);
  for (const auto& k : r.kernels) EXPECT_NEAR(k.target_us, k.measured_us, 1e-9 * k.measured_us) << k.name;
  EXPECT_NEAR(r.target_span_us, r.measured_span_us, 1e-6);
}

TEST(E2eReplay, RatioToAnotherGpu) {
  const Catalog c = Catalog::load();
  const GpuSpec h200 = c.get("h200"), a100 = c.get("a100-sxm4-80gb");
  const ChromeTrace t = read_chrome_trace(kSample);
  const ReplayResult r = replay_trace(t, h200, a100);
  double sum = 0;
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const auto& k = r.kernels[i];
    sum += k.target_us;
    if (k.method == "ratio") {
      const KernelSpec spec = parse_kernel_spec(k.spec);
      EXPECT_NEAR(k.target_us, k.measured_us * analyze(a100, spec).latency_us / analyze(h200, spec).latency_us, 1e-9);
    } else {
      EXPECT_EQ(k.method, "dram-scaled");
      EXPECT_NEAR(k.target_us, k.measured_us * h200.dram_bytes_per_s / a100.dram_bytes_per_s, 1e-9);
    }
  }
  EXPECT_NEAR(r.target_gpu_us, sum, 1e-9);
  EXPECT_GT(r.target_gpu_us, r.measured_gpu_us);  // an A100 is slower than an H200
  EXPECT_NEAR(r.target_span_us - r.target_gpu_us, r.idle_us, 1e-9);
  // Unknown source: specs predicted outright, the rest unchanged.
  const ReplayResult u = replay_trace(t, std::nullopt, a100);
  for (const auto& k : u.kernels) EXPECT_TRUE(k.method == "predicted" || k.method == "unchanged") << k.method;
}

}  // namespace
}  // namespace loom
