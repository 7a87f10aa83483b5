// Collective ceilings (issue 17): on an NVSwitch Hopper/Blackwell node the all_reduce's link bound is NVLS's (the
// switch reduces: 1x the buffer each way per GPU), below the ring's 2(g-1)/g; a PCIe node, a 2-way NVLink bridge or
// 2 GPUs keep the ring's. The model prices the ring either way, and no prediction falls below the ceiling.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "analytical/analysis.h"
#include "hw/catalog.h"
#include "learned/predictor.h"

namespace loom {
namespace {

constexpr double kGiB = 1073741824.0;

const PipeLoad& link_pipe(const Analysis& a) {
  for (const auto& p : a.pipes)
    if (p.pipe == "link") return p;
  throw std::runtime_error("no link pipe");
}

Analysis run(const GpuSpec& gpu, const std::string& spec) { return analyze(gpu, parse_kernel_spec(spec, "test")); }

TEST(CollectiveCeiling, NvlsNodeAllReduceHasTheNvlsBound) {
  const Catalog cat = Catalog::load();
  const GpuSpec h800 = cat.get("h800");  // 200 GB/s NVLink per direction, NVSwitch, Hopper
  const Analysis a = run(h800, "all_reduce bytes=1073741824 gpus=8");
  const double ring = 2.0 * 7 / 8 * kGiB / 200e9 * 1e6 + 14 * 1.0, nvls = kGiB / 200e9 * 1e6 + 2 * 1.0;
  EXPECT_NEAR(a.ceiling_us, nvls, 1e-6);
  EXPECT_LT(a.ceiling_us, ring);
  EXPECT_EQ(a.bottleneck, "link");
  EXPECT_DOUBLE_EQ(link_pipe(a).total, kGiB);
  // The analytical latency still prices the ring (at the link efficiency), as before.
  EXPECT_GT(a.latency_us, ring);
  // Only all_reduce gains: a reduce_scatter still sends, an all_gather still receives, (g-1)/g of the buffer.
  const Analysis rs = run(h800, "reduce_scatter bytes=1073741824 gpus=8");
  EXPECT_NEAR(rs.ceiling_us, 7.0 / 8 * kGiB / 200e9 * 1e6 + 7, 1e-6);
}

TEST(CollectiveCeiling, H800MeasuredAllReduceIsAtOrAboveItsCeiling) {
  const Catalog cat = Catalog::load();
  const Predictor predictor("learned");
  const GpuSpec h800 = cat.get("h800");
  for (const char* bytes : {"268435456", "536870912", "1073741824"}) {
    const Prediction p =
        predictor.predict(h800, parse_kernel_spec(std::string("all_reduce bytes=") + bytes + " gpus=8", "test"));
    ASSERT_EQ(p.model, "collective-fit") << bytes;
    ASSERT_TRUE(p.collective && p.collective->extrapolation.empty()) << bytes;  // H800's own measured 8-GPU fit
    EXPECT_GE(p.latency_us, p.ceiling_us()) << bytes;
    EXPECT_FALSE(p.at_ceiling) << bytes;  // the measurement itself clears NVLS's bound: no clamp needed
  }
}

TEST(CollectiveCeiling, RingNodesKeepTheRingBound) {
  const Catalog cat = Catalog::load();
  const double b = 67108864;
  // PCIe only (no NVLink): the ring over PCIe.
  const GpuSpec pcie = cat.get("a100-pcie-80gb");
  const Analysis p = run(pcie, "all_reduce bytes=67108864 gpus=8");
  EXPECT_NEAR(p.ceiling_us, 2.0 * 7 / 8 * b / pcie.pcie_bytes_per_s * 1e6 + 14 * 2.0, 1e-6);
  // A 2-way NVLink bridge (a40): the pair rides the bridge as a ring.
  const GpuSpec a40 = cat.get("a40");
  EXPECT_NEAR(run(a40, "all_reduce bytes=67108864 gpus=2").ceiling_us, b / a40.nvlink_bytes_per_s * 1e6 + 2, 1e-6);
  // A Hopper GPU with a 2-way bridge (an H100 NVL-like edit): no switch, so no NVLS, at 2 GPUs and past the pair.
  GpuSpec bridged = cat.get("h100-sxm");
  bridged.nvlink_gpus = 2;
  EXPECT_NEAR(run(bridged, "all_reduce bytes=67108864 gpus=2").ceiling_us, b / bridged.nvlink_bytes_per_s * 1e6 + 2,
              1e-6);
  EXPECT_NEAR(run(bridged, "all_reduce bytes=67108864 gpus=4").ceiling_us,
              2.0 * 3 / 4 * b / bridged.pcie_bytes_per_s * 1e6 + 6 * 2.0, 1e-6);
  // NVSwitch Hopper at 2 GPUs: NCCL runs no NVLS there, the ring (one step each way) is the bound.
  const GpuSpec h100 = cat.get("h100-sxm");
  EXPECT_NEAR(run(h100, "all_reduce bytes=67108864 gpus=2").ceiling_us, b / h100.nvlink_bytes_per_s * 1e6 + 2, 1e-6);
  // An NVLink board before Hopper (a100-sxm4, v100): no reduction in the switch.
  const GpuSpec a100 = cat.get("a100-sxm4-80gb");
  EXPECT_NEAR(run(a100, "all_reduce bytes=67108864 gpus=8").ceiling_us,
              2.0 * 7 / 8 * b / a100.nvlink_bytes_per_s * 1e6 + 14, 1e-6);
}

}  // namespace
}  // namespace loom
