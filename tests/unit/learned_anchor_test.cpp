// A GPU changed by --set is predicted from the GPU as measured, the change priced by the analytical model
// (GpuSpec::anchor, Predictor::predict_anchored): more of a resource never makes a kernel slower.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analytical/analysis.h"
#include "hw/catalog.h"
#include "learned/predictor.h"

namespace loom {
namespace {

const Catalog& catalog() {
  static const Catalog c = Catalog::load();
  return c;
}

TEST(LearnedAnchor, OnlyHardwareChangesKeepAnAnchor) {
  EXPECT_EQ(catalog().get("h200").anchor, nullptr);
  EXPECT_EQ(catalog().get("h200", {"sms=64"}).anchor, nullptr);  // partitions are measured: no anchor
  EXPECT_EQ(catalog().get("h200", {"price=3USD/h"}).anchor, nullptr);
  const GpuSpec g = catalog().get("h200", {"clock.sustained=1900MHz"});
  ASSERT_NE(g.anchor, nullptr);
  EXPECT_EQ(g.anchor->sustained_clock_mhz, catalog().get("h200").sustained_clock_mhz);
  EXPECT_EQ(g.sustained_clock_mhz, 1900);
  // The anchor keeps the changed SM count (partitions are measured), and a GPU file that extends a catalogue
  // entry with other hardware values is anchored at that entry.
  const GpuSpec part = catalog().get("h200", {"sms=64", "clock.sustained=1500MHz"});
  ASSERT_NE(part.anchor, nullptr);
  EXPECT_EQ(part.anchor->sms, 64);
  EXPECT_EQ(part.anchor->sustained_clock_mhz, catalog().get("h200").sustained_clock_mhz);
  const GpuSpec file = catalog().get(std::string(LOOM_TEST_DATA) + "/../../examples/edited-h100.yaml");
  ASSERT_NE(file.anchor, nullptr);
  EXPECT_EQ(file.anchor->name, "h100-sxm");
  EXPECT_EQ(file.anchor->dram_bytes_per_s, catalog().get("h100-sxm").dram_bytes_per_s);
}

// Found by scripts/probe_cases_r7.py: --set sms=64 --set clock.sustained=1830MHz (the H200's own clock) was
// anchored at the whole GPU, so the partition was priced analytically: 44.2 -> 45.7 us for a 512x4096x4096 GEMM.
TEST(LearnedAnchor, RestatingAValueOnAPartitionChangesNothing) {
  const Predictor p;
  ASSERT_TRUE(p.learned());
  const std::string clock = "clock.sustained=" + std::to_string(int(catalog().get("h200").sustained_clock_mhz)) + "MHz";
  for (const std::string k : {"gemm m=512 n=4096 k=4096 dtype=bf16", "gemm m=8192 n=8192 k=8192 dtype=fp8"}) {
    const KernelSpec spec = parse_kernel_spec(k);
    EXPECT_NEAR(p.predict(catalog().get("h200", {"sms=64", clock}), spec).latency_us,
                p.predict(catalog().get("h200", {"sms=64"}), spec).latency_us, 1e-9)
        << k;
  }
}

TEST(LearnedAnchor, MoreOfAResourceIsNeverSlower) {
  const Predictor p;  // the committed learned model
  ASSERT_TRUE(p.learned());
  const std::vector<std::string> kernels = {
      "gemm m=512 n=4096 k=4096 dtype=bf16", "gemm m=4096 n=4096 k=4096 dtype=bf16",
      "gemm m=8 n=8192 k=8192 dtype=bf16", "rms_norm rows=4096 cols=8192 dtype=bf16",
      "attention_prefill batch=1 heads=32 kv_heads=8 seq=2048 head_dim=128 causal=1 dtype=bf16"};
  const std::vector<std::vector<std::string>> steps = {
      {"clock.sustained=1500MHz", "clock.sustained=1700MHz", "clock.sustained=1900MHz"},
      {"dram.bandwidth=4.8TB/s", "dram.bandwidth=6TB/s", "dram.bandwidth=8TB/s"},
      {"l2.bandwidth=8.7TB/s", "l2.bandwidth=11TB/s", "l2.bandwidth=14TB/s"}};
  for (const auto& k : kernels) {
    const KernelSpec spec = parse_kernel_spec(k);
    for (const auto& ladder : steps) {
      double last = 1e300;
      for (const auto& set : ladder) {
        const GpuSpec g = catalog().get("h200", {set});
        const Prediction pr = p.predict(g, spec);
        EXPECT_LE(pr.latency_us, last * (1 + 1e-9)) << k << " with " << set;
        EXPECT_GE(pr.latency_us, pr.analysis->ceiling_us * (1 - 1e-9)) << k << " with " << set;
        last = pr.latency_us;
      }
    }
    // An edit to the value the GPU already has changes nothing.
    const GpuSpec same = catalog().get(
        "h200", {"clock.sustained=" + std::to_string(int(catalog().get("h200").sustained_clock_mhz)) + "MHz"});
    EXPECT_NEAR(p.predict(same, spec).latency_us, p.predict(catalog().get("h200"), spec).latency_us, 1e-9) << k;
  }
}

}  // namespace
}  // namespace loom
