// Kernel time under sustained load (analytical/sustained_load.h): the roofline factor, the onset weight, and the
// predictor applying them. Checked against the measured H200/H100 runs (traces/checks/clock/).
#include <gtest/gtest.h>

#include "analytical/sustained_load.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "learned/predictor.h"

namespace loom {
namespace {

Analysis with_pipes(double compute_us, double dram_us) {
  Analysis a;
  a.pipes.push_back({"tensor", "FLOP", 1, 1, compute_us});
  a.pipes.push_back({"dram", "bytes", 1, 1, dram_us});
  return a;
}

TEST(SustainedLoad, RooflineFactor) {
  GpuSpec g;
  g.tensor_load_slowdown = 1.16;
  EXPECT_DOUBLE_EQ(sustained_load_factor(g, with_pipes(100, 10)), 1.16);   // compute-bound: all of it
  EXPECT_DOUBLE_EQ(sustained_load_factor(g, with_pipes(10, 100)), 1.0);    // DRAM-bound with room to spare
  EXPECT_NEAR(sustained_load_factor(g, with_pipes(95, 100)), 0.95 * 1.16, 1e-12);  // becomes compute-bound
  g.tensor_load_slowdown = 0;  // not measured
  EXPECT_DOUBLE_EQ(sustained_load_factor(g, with_pipes(100, 10)), 1.0);
}

TEST(SustainedLoad, OnsetWeight) {
  GpuSpec g;
  g.tensor_load_onset_s = 0.15;
  EXPECT_EQ(sustained_load_weight(g, 100e3, ClockMode::automatic), 0);  // 0.1 s: over before the clock drops
  EXPECT_NEAR(sustained_load_weight(g, 600e3, ClockMode::automatic), 0.75, 1e-12);
  EXPECT_EQ(sustained_load_weight(g, 1, ClockMode::sustained), 1);
  EXPECT_EQ(sustained_load_weight(g, 1e9, ClockMode::boost), 0);
  EXPECT_EQ(parse_clock_mode("auto"), ClockMode::automatic);
  EXPECT_THROW(parse_clock_mode("turbo"), InputError);
}

TEST(SustainedLoad, PredictorMatchesTheMeasuredSlowdowns) {
  // Measured (scripts/clock_summary.py traces/checks/clock/h200): an 8192^3 bf16 GEMM 1.159x slower once throttled,
  // a 2 GiB copy and a 32x8192x8192 GEMM (H100) 1.00x.
  const GpuSpec h200 = Catalog::load().get("h200");
  Predictor boost("analytical"), sustained("analytical");
  sustained.set_clock(ClockMode::sustained);
  const KernelSpec gemm = parse_kernel_spec("gemm m=8192 n=8192 k=8192 dtype=bf16");
  const KernelSpec copy = parse_kernel_spec("elementwise op=copy rows=32768 cols=32768 dtype=bf16");
  const KernelSpec gemv = parse_kernel_spec("gemm m=32 n=8192 k=8192 dtype=bf16");
  EXPECT_NEAR(sustained.latency_us(h200, gemm) / boost.latency_us(h200, gemm), 1.16, 0.01);
  EXPECT_DOUBLE_EQ(sustained.latency_us(h200, copy), boost.latency_us(h200, copy));
  EXPECT_DOUBLE_EQ(sustained.latency_us(h200, gemv), boost.latency_us(h200, gemv));
  EXPECT_NEAR(sustained.predict(h200, gemm).clock_factor, 1.16, 0.01);
  // A GPU without the measurement is left alone.
  const GpuSpec h20 = Catalog::load().get("h20");
  EXPECT_DOUBLE_EQ(sustained.latency_us(h20, gemm), boost.latency_us(h20, gemm));
}

}  // namespace
}  // namespace loom
