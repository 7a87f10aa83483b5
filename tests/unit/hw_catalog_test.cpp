// The GPU catalogue: every file loads and passes sanity checks; datasheet peaks come back out of the per-clock rates;
// extends, --set overrides, describe() and data_dir().
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "core/error.h"
#include "hw/catalog.h"

namespace loom {
namespace {

const Catalog& catalog() {
  static const Catalog c = Catalog::load();
  return c;
}

double tflops(const std::string& gpu, Dtype d) { return catalog().get(gpu).tensor_flops_per_s(d) / 1e12; }

TEST(Catalog, HasEveryListedGpu) {
  const std::set<std::string> want = {"a10",  "a100-sxm4-80gb", "a40",  "b200",       "h100-sxm",
                                      "h20",  "h200",           "h800", "l20",        "l4",
                                      "l40",  "rtx-4090",       "rtx-6000-ada",      "rtx-a6000",
                                      "rtx-pro-6000-blackwell-server", "t4", "v100",
                                      // GPUs of the imported public measurements (traces/public, NeuSight)
                                      "a100-pcie-40gb", "a100-pcie-80gb", "p100-pcie-16gb", "p4", "v100-pcie-32gb"};
  const auto names = catalog().names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), want);
}

TEST(Catalog, EveryGpuIsSane) {
  const std::set<std::string> fp64_tensor = {"a100-sxm4-80gb", "a100-pcie-40gb", "a100-pcie-80gb", "h100-sxm",
                                             "h200", "h800", "h20", "b200"};
  for (const auto& n : catalog().names()) {
    SCOPED_TRACE(n);
    const GpuSpec g = catalog().get(n);
    EXPECT_EQ(g.name, n);
    EXPECT_FALSE(g.full_name.empty());
    EXPECT_GT(g.sms, 0);
    EXPECT_LE(g.sustained_clock_mhz, g.boost_clock_mhz);
    EXPECT_GE(g.sustained_clock_mhz, 1000);
    EXPECT_EQ(g.max_warps_per_sm, g.max_threads_per_sm / 32);
    EXPECT_TRUE(g.fp32_flops_per_clk_per_sm == 128 || g.fp32_flops_per_clk_per_sm == 256);
    EXPECT_GT(g.dram_bytes, int64_t(7) << 30);  // Tesla P4: 8 GB
    EXPECT_GT(g.dram_bytes_per_s, 150e9);       // Tesla P4: 192 GB/s
    EXPECT_GT(g.l2_bytes_per_s, g.dram_bytes_per_s);  // L2 outruns DRAM on every part
    EXPECT_LE(g.smem_per_block_bytes, g.smem_per_sm_bytes);
    EXPECT_GE(g.launch_overhead_us, 3);
    EXPECT_LE(g.launch_overhead_us, 5);
    const bool pascal = g.architecture == "pascal";  // no tensor cores
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::fp16) > 0, !pascal);
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::fp32), 0);  // no FP32 tensor path anywhere (TF32 is its own dtype)
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::fp64) > 0, fp64_tensor.count(n) == 1);
    const bool fp8 = g.architecture == "ada" || g.architecture == "hopper" || g.architecture == "blackwell";
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::fp8) > 0, fp8);
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::fp4) > 0, g.architecture == "blackwell");
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::int8) > 0, g.architecture != "volta" && !pascal);
    EXPECT_EQ(g.tensor_flops_per_clk(Dtype::bf16) > 0,
              g.architecture != "volta" && g.architecture != "turing" && !pascal);
    // Every entry has its own `price:` line (a sourced USD/h or `none`), never its `extends:` parent's.
    EXPECT_NE(g.key_sources.at("price").find("gpus/" + n + ".yaml:"), std::string::npos);
    // Every field has a recorded origin with a FILE:LINE, and every catalogue value carries a source comment
    // (its own, or its group's).
    for (const auto& [key, src] : g.key_sources) {
      if (src == "default") continue;
      EXPECT_NE(src.find(".yaml:"), std::string::npos) << key;
      if (key != "name" && key != "architecture" && key != "dram.type" && key.rfind("sm_limits.", 0) != 0)
        EXPECT_NE(src.find('#'), std::string::npos) << key << " has no source comment";
    }
  }
}

// Datasheet dense peaks, reproduced from per-clock rates x SMs x the sustained clock (the clock each vendor figure
// implies); 1% tolerance unless noted.
TEST(Catalog, DatasheetPeaks) {
  EXPECT_NEAR(tflops("h100-sxm", Dtype::bf16), 989.4, 989.4 * 0.01);
  EXPECT_NEAR(tflops("h100-sxm", Dtype::fp8), 1978.9, 1978.9 * 0.01);
  EXPECT_NEAR(tflops("h200", Dtype::bf16), 989.4, 989.4 * 0.01);
  EXPECT_NEAR(tflops("a100-sxm4-80gb", Dtype::bf16), 312, 312 * 0.01);
  EXPECT_NEAR(tflops("a100-sxm4-80gb", Dtype::tf32), 156, 156 * 0.01);
  EXPECT_NEAR(tflops("v100", Dtype::fp16), 125, 125 * 0.01);
  EXPECT_NEAR(tflops("t4", Dtype::fp16), 65, 65 * 0.01);
  EXPECT_NEAR(tflops("a10", Dtype::bf16), 125, 125 * 0.01);
  EXPECT_NEAR(tflops("a40", Dtype::bf16), 149.7, 149.7 * 0.01);
  EXPECT_NEAR(tflops("rtx-a6000", Dtype::fp16), 154.8, 154.8 * 0.01);
  // Not the whitepaper's 364.2: the same AD102 die and 300 W cap as the L40 (rtx-6000-ada.yaml says why).
  EXPECT_NEAR(tflops("rtx-6000-ada", Dtype::fp16), 182.1, 182.1 * 0.01);
  EXPECT_NEAR(tflops("rtx-4090", Dtype::fp16), 165.2, 165.2 * 0.01);  // FP32 accumulate
  EXPECT_NEAR(tflops("l40", Dtype::bf16), 181, 181 * 0.01);
  EXPECT_NEAR(tflops("l20", Dtype::bf16), 119.5, 119.5 * 0.02);
  EXPECT_NEAR(tflops("h20", Dtype::bf16), 148, 148 * 0.02);
  EXPECT_NEAR(tflops("b200", Dtype::bf16), 2250, 2250 * 0.01);
  EXPECT_NEAR(tflops("b200", Dtype::fp4), 9000, 9000 * 0.01);
  // NVIDIA's 2000 dense FP4 TFLOPS implies the workstation card's 2617 MHz; the server card reports 2340 MHz
  // (PipeWeave's device table), so its catalogue peak is 188 x 4096 x 2.34 GHz.
  EXPECT_NEAR(tflops("rtx-pro-6000-blackwell-server", Dtype::fp4), 1802, 1802 * 0.01);
  EXPECT_NEAR(tflops("v100-pcie-32gb", Dtype::fp16), 112, 112 * 0.01);
  EXPECT_NEAR(tflops("a100-pcie-40gb", Dtype::bf16), 312, 312 * 0.01);
  const GpuSpec p100 = catalog().get("p100-pcie-16gb"), p4 = catalog().get("p4");
  EXPECT_NEAR(p100.fp32_flops_per_clk_per_sm * p100.sms * p100.boost_clock_mhz * 1e6 / 1e12, 9.3, 0.1);
  EXPECT_NEAR(p4.fp32_flops_per_clk_per_sm * p4.sms * p4.boost_clock_mhz * 1e6 / 1e12, 5.5, 0.2);
  // FP32 figures are quoted at the boost clock.
  const GpuSpec h100 = catalog().get("h100-sxm");
  EXPECT_NEAR(h100.fp32_flops_per_clk_per_sm * h100.sms * h100.boost_clock_mhz * 1e6 / 1e12, 66.9, 0.7);
  // At the 1980 MHz boost clock the same tensor rate is 8% above the 989 TFLOPS datasheet figure.
  EXPECT_NEAR(h100.tensor_flops_per_clk(Dtype::bf16) * h100.sms * h100.boost_clock_mhz * 1e6 / 1e12, 1070.5, 1);
}

TEST(Catalog, MemoryFacts) {
  EXPECT_DOUBLE_EQ(catalog().get("h200").dram_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(catalog().get("h100-sxm").dram_bytes_per_s, 3.35e12);
  EXPECT_EQ(catalog().get("h100-sxm").l2_bytes, 52428800);  // driver-reported (GPU-NOTES.md)
  EXPECT_EQ(catalog().get("h200").l2_bytes, 62914560);      // driver-reported (GPU-NOTES.md)
  EXPECT_EQ(catalog().get("a100-sxm4-80gb").smem_per_sm_bytes, 164 * 1024);
  EXPECT_EQ(catalog().get("t4").max_warps_per_sm, 32);
}

TEST(Catalog, InBandEccCostsGddrBandwidthAndCapacity) {
  const GpuSpec a40 = catalog().get("a40"), a6000 = catalog().get("rtx-a6000"), h200 = catalog().get("h200");
  EXPECT_TRUE(a40.inline_ecc());  // data-centre GDDR6 part: ECC on by default, in band
  EXPECT_NEAR(a40.effective_dram_bytes_per_s(), 696e9 / 1.15, 1e6);
  EXPECT_NEAR(a40.usable_dram_bytes(), 48.0 * 1073741824 * 15 / 16, 1);
  EXPECT_FALSE(a6000.inline_ecc());  // workstation part: off by default
  EXPECT_DOUBLE_EQ(a6000.effective_dram_bytes_per_s(), a6000.dram_bytes_per_s);
  EXPECT_FALSE(h200.inline_ecc());  // HBM: side-band ECC, no bandwidth cost
  EXPECT_DOUBLE_EQ(h200.effective_dram_bytes_per_s(), h200.dram_bytes_per_s);
  const GpuSpec off = catalog().get("a40", {"dram.ecc=off"});
  EXPECT_DOUBLE_EQ(off.effective_dram_bytes_per_s(), off.dram_bytes_per_s);
}

TEST(Catalog, ExtendsOverridesOnlyWhatDiffers) {
  const GpuSpec h100 = catalog().get("h100-sxm"), h200 = catalog().get("h200"), h800 = catalog().get("h800");
  EXPECT_EQ(h200.sms, h100.sms);
  EXPECT_EQ(h200.fp32_flops_per_clk_per_sm, h100.fp32_flops_per_clk_per_sm);
  EXPECT_EQ(h200.dram_type, "HBM3e");
  EXPECT_FALSE(h800.price_per_hour_usd.has_value());  // `price: none` clears the inherited example price
  EXPECT_TRUE(h100.price_per_hour_usd.has_value());
  EXPECT_NE(*h200.price_per_hour_usd, *h100.price_per_hour_usd);  // its own sourced price
  // A PCIe part never inherits its SXM parent's price: it carries its own sourced one, or `price: none`.
  const GpuSpec a100_pcie = catalog().get("a100-pcie-80gb"), a100_sxm = catalog().get("a100-sxm4-80gb");
  ASSERT_TRUE(a100_pcie.price_per_hour_usd.has_value());
  EXPECT_NE(*a100_pcie.price_per_hour_usd, *a100_sxm.price_per_hour_usd);
  EXPECT_NE(a100_pcie.key_sources.at("price").find("gpus/a100-pcie-80gb.yaml:"), std::string::npos);
  EXPECT_TRUE(catalog().get("v100").price_per_hour_usd.has_value());
  EXPECT_FALSE(catalog().get("v100-pcie-32gb").price_per_hour_usd.has_value());
  EXPECT_NE(h200.key_sources.at("sms").find("gpus/h100-sxm.yaml:"), std::string::npos);
  EXPECT_NE(h200.key_sources.at("dram.bandwidth").find("gpus/h200.yaml:"), std::string::npos);
  EXPECT_DOUBLE_EQ(h800.nvlink_bytes_per_s, 200e9);
  EXPECT_DOUBLE_EQ(h800.dram_bytes_per_s, h100.dram_bytes_per_s);
  EXPECT_LT(h800.fp64_flops_per_clk_per_sm, 4);
}

TEST(Catalog, OverridesApplyInOrder) {
  const GpuSpec g =
      catalog().get("h100-sxm", {"dram.bandwidth=4.8TB/s", "sms=64", "l2.size=60MiB", "tensor.bf16=2048FLOP/clk",
                                 "sms=66", "clock.sustained=1.5 GHz", "interconnect.nvlink=0 GB/s",
                                 "interconnect.topology=pcie", "price=none"});
  EXPECT_DOUBLE_EQ(g.dram_bytes_per_s, 4.8e12);
  EXPECT_EQ(g.sms, 66);
  EXPECT_EQ(g.l2_bytes, 60 << 20);
  EXPECT_EQ(g.tensor_flops_per_clk(Dtype::bf16), 2048);
  EXPECT_EQ(g.sustained_clock_mhz, 1500);
  EXPECT_EQ(g.nvlink_bytes_per_s, 0);
  EXPECT_FALSE(g.price_per_hour_usd.has_value());
  EXPECT_EQ(g.key_sources.at("sms"), "--set sms");
}

void expect_set_error(const std::string& o, const std::string& needle) {
  try {
    catalog().get("h100-sxm", {o});
    ADD_FAILURE() << "no error for --set " << o;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().rfind("--set", 0), 0u) << e.where();  // "--set" or "--set <key>"
    EXPECT_NE(e.detail().find(needle), std::string::npos) << e.detail();
  }
}

TEST(Catalog, BadOverrides) {
  expect_set_error("dram.nonsense=1", "unknown key 'dram.nonsense'");
  expect_set_error("dram.nonsense=1", "dram.bandwidth");  // lists the valid keys
  expect_set_error("dram=1", "unknown key 'dram'");        // a group, not a value
  expect_set_error("dram.bandwidth=4.8GHz", "frequency");
  expect_set_error("sms=-3", "negative");
  expect_set_error("sms", "key=value");
  expect_set_error("sms=12.5", "whole number");
  expect_set_error("clock.sustained=2500MHz", "is above clock.boost");
  expect_set_error("tdp=none", "required");
  expect_set_error("dram.ecc=maybe", "write on or off");
}

TEST(Catalog, UnknownGpu) {
  try {
    catalog().get("nosuchgpu");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(e.detail().find("nosuchgpu"), std::string::npos);
    EXPECT_NE(e.detail().find("h100-sxm"), std::string::npos);
  }
  EXPECT_THROW(catalog().get("no/such/file.yaml"), InputError);
}

TEST(Catalog, KeysAndDescribe) {
  const auto keys = gpu_spec_keys();
  EXPECT_EQ(keys.front(), "name");
  EXPECT_NE(std::find(keys.begin(), keys.end(), "l2.per_sm"), keys.end());
  EXPECT_EQ(gpu_spec_children("clock"), (std::vector<std::string>{"boost", "sustained", "tensor_load"}));
  const auto rows = describe(catalog().get("h100-sxm"));
  auto row = [&](const std::string& k) {
    for (const auto& r : rows)
      if (r.key == k) return r;
    ADD_FAILURE() << "no row " << k;
    return SpecField{};
  };
  EXPECT_EQ(row("dram.bandwidth").value, "3.35");
  EXPECT_EQ(row("dram.bandwidth").unit, "TB/s");
  EXPECT_EQ(row("l2.size").value + " " + row("l2.size").unit, "50 MiB");
  EXPECT_NE(row("sms").source.find("gpus/h100-sxm.yaml:"), std::string::npos);
  EXPECT_NEAR(std::stod(row("peak.tensor.bf16").value), 989.4, 1);
  EXPECT_EQ(row("sm_limits.max_warps").value, "64");
}

// describe() output fed back through --set reproduces the same GPU, for every key of every catalogue entry.
TEST(Catalog, DescribeRoundTripsThroughOverrides) {
  for (const auto& n : catalog().names()) {
    SCOPED_TRACE(n);
    const auto rows = describe(catalog().get(n));
    std::vector<std::string> sets;
    for (const auto& r : rows)
      if (is_gpu_spec_leaf(r.key)) sets.push_back(r.key + "=" + r.value + r.unit);
    const auto again = describe(catalog().get(n, sets));
    ASSERT_EQ(again.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(again[i].value, rows[i].value) << rows[i].key;
  }
}

TEST(Catalog, DataDirFollowsLoomHome) {
  const char* old = std::getenv("LOOM_HOME");
  setenv("LOOM_HOME", "/tmp/somewhere", 1);
  EXPECT_EQ(data_dir(), "/tmp/somewhere");
  unsetenv("LOOM_HOME");
  EXPECT_EQ(data_dir(), LOOM_SOURCE_DIR);
  if (old) setenv("LOOM_HOME", old, 1);
}

}  // namespace
}  // namespace loom
