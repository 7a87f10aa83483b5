// Did-you-mean suggestions: typos get the closest name, unrelated words none.
#include <gtest/gtest.h>

#include "core/suggest.h"

namespace loom {
namespace {

TEST(Suggest, ClosestWithinTypoDistance) {
  const std::vector<std::string> gpus = {"h100-sxm", "h200", "h20", "a100-sxm4-80gb", "rtx-4090"};
  EXPECT_EQ(closest_match("h2000", gpus), "h200");
  EXPECT_EQ(closest_match("H100-SXM", gpus), "");  // exact up to case: distance 0 is not a typo to suggest
  EXPECT_EQ(closest_match("h100sxm", gpus), "h100-sxm");
  EXPECT_EQ(closest_match("rtx4090", gpus), "rtx-4090");
  EXPECT_EQ(closest_match("zzzzzz", gpus), "");
  EXPECT_EQ(closest_match("", gpus), "");
  EXPECT_EQ(did_you_mean("--gpuu", {"--gpu", "--set"}), " (did you mean '--gpu'?)");
  EXPECT_EQ(did_you_mean("--frobnicate", {"--gpu", "--set"}), "");
}

}  // namespace
}  // namespace loom
