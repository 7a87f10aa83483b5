// Hardening, round 19 (issue 17): /dev/full as an output is refused before any work; a forest read from its XGBoost
// JSON and loom's numbers inside a host program that set a comma-decimal locale are the C locale's; the packed
// directory's list of checked YAML texts skips lines that are not hashes instead of ending the process.
#include <gtest/gtest.h>

#include <clocale>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/c_locale.h"
#include "core/error.h"
#include "core/file_io.h"
#include "input_error_util.h"
#include "learned/forest.h"

namespace loom {
namespace {

TEST(OutputPaths, DevFullIsRefusedUpFront) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  expect_error([] { check_output_file("/dev/full"); }, "/dev/full", "No space left");
  const std::string link = testing::TempDir() + "/loom_round19_full_link";
  std::filesystem::remove(link);
  std::filesystem::create_symlink("/dev/full", link);
  expect_error([&] { check_output_file(link); }, link, "/dev/full");
  std::filesystem::remove(link);
  check_output_file("/dev/null");  // another device still passes
}

// One tree of one leaf (0.25) over one feature, base_score as XGBoost writes it.
std::string one_leaf_forest(const std::string& base_score) {
  return R"({"learner": {"learner_model_param": {"base_score": ")" + base_score +
         R"(", "num_feature": "1"}, "gradient_booster": {"model": {"trees": [{"left_children": [-1],
         "right_children": [-1], "split_indices": [0], "split_conditions": [0.25], "default_left": [0]}]}}}})";
}

bool comma_locale() {
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"})
    if (std::setlocale(LC_ALL, name)) return true;
  return false;
}

TEST(Locale, ForestBaseScoreIgnoresTheHostLocale) {
  const float x = 1.0f;
  EXPECT_FLOAT_EQ(Forest::from_json(one_leaf_forest("8.5E-1")).predict(&x), 1.1f);
  if (!comma_locale()) GTEST_SKIP() << "no comma-decimal locale installed";
  const float under_de = Forest::from_json(one_leaf_forest("8.5E-1")).predict(&x);
  std::setlocale(LC_ALL, "C");
  EXPECT_FLOAT_EQ(under_de, 1.1f);  // was 8.25: strtof stopped at the '.'
  EXPECT_THROW(Forest::from_json(one_leaf_forest("8.5E-1x")), std::exception);
}

TEST(Locale, CLocaleScopeFormatsWithAPoint) {
  if (!comma_locale()) GTEST_SKIP() << "no comma-decimal locale installed";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", 17.1);
  const std::string host = buf;
  {
    const CLocaleScope c;
    std::snprintf(buf, sizeof buf, "%.1f", 17.1);
  }
  const std::string scoped = buf;
  std::snprintf(buf, sizeof buf, "%.1f", 17.1);
  const std::string after = buf;
  std::setlocale(LC_ALL, "C");
  EXPECT_EQ(host, "17,1");
  EXPECT_EQ(scoped, "17.1");
  EXPECT_EQ(after, "17,1");  // the host's locale is back
}

}  // namespace
}  // namespace loom
