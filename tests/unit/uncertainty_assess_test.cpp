// Intervals and extrapolation flags of one prediction (learned/uncertainty.h assess).
#include <gtest/gtest.h>

#include <cmath>

#include "learned/uncertainty.h"

namespace loom {
namespace {

Coverage coverage() {
  Coverage c;
  FamilyCoverage& g = c.families["gemm"];
  g.architectures = {"ampere", "hopper"}, g.gpus = {"a100", "h100-sxm"}, g.impls = {"torch"};
  g.shapes = {100, std::log(0.95), std::log(1.05)};
  g.unseen_arch = {50, std::log(0.7), std::log(1.6)};
  FamilyCoverage& a = c.families["attention_decode"];
  a.architectures = {"hopper"}, a.gpus = {"h100-sxm"}, a.impls = {"torch"};
  a.shapes = {100, std::log(0.97), std::log(1.03)};
  a.unseen_arch = {50, std::log(0.9), std::log(8.0)};  // its arch:hopper split had no attention kernel to train on
  return c;
}

TEST(Uncertainty, UnseenArchitectureWidensToTheHeldOutArchitecturesBand) {
  const Uncertainty u = assess(coverage(), "gemm", "ada", "l40", "torch", 100);
  EXPECT_TRUE(u.extrapolated);
  EXPECT_NEAR(u.lo_us, 70, 1e-9);
  EXPECT_NEAR(u.hi_us, 160, 1e-9);
  const Uncertainty seen = assess(coverage(), "gemm", "hopper", "h100-sxm", "torch", 100);
  EXPECT_FALSE(seen.extrapolated);
  EXPECT_NEAR(seen.hi_us, 105, 1e-9);
}

TEST(Uncertainty, AFamilyOfOneArchitectureTakesTheNoDataBandElsewhere) {
  // Not the x8 of an arch: split that held out every kernel of the family: x0.5-x2, as for a family never measured.
  const Uncertainty u = assess(coverage(), "attention_decode", "ada", "l40", "torch", 100);
  EXPECT_TRUE(u.extrapolated);
  EXPECT_NEAR(u.lo_us, 50, 1e-9);
  EXPECT_NEAR(u.hi_us, 200, 1e-9);
  const Uncertainty none = assess(coverage(), "rotary", "ada", "l40", "torch", 100);
  EXPECT_NEAR(none.lo_us, 50, 1e-9);
  EXPECT_NEAR(none.hi_us, 200, 1e-9);
}

}  // namespace
}  // namespace loom
