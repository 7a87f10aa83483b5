// Hardening, round 18 (issue 17): an output path is checked before any work by creating it (a folder that reports
// itself writable to root, /proc or /sys, held no new file, and `tune --validate --per-shape /proc/x` was refused
// only when written, after the fit), and stdout under another name (/dev/stdout) is refused where '-' is.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <sys/stat.h>

#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "input_error_util.h"

namespace loom {
namespace {

TEST(OutputPaths, AFolderThatCannotHoldTheFileIsRefusedUpFront) {
  if (std::filesystem::is_directory("/proc")) {
    expect_error([] { check_output_file("/proc/loom-round18.csv"); }, "/proc/loom-round18.csv", "cannot be written");
    EXPECT_FALSE(std::filesystem::exists("/proc/loom-round18.csv"));
  }
  if (std::filesystem::is_directory("/sys"))
    expect_error([] { check_output_file("/sys/loom-round18.csv"); }, "/sys/loom-round18.csv", "cannot be written");
}

TEST(OutputPaths, TheCheckLeavesNoFileBehindAndKeepsAnExistingOne) {
  const std::string dir = testing::TempDir();
  const std::string fresh = dir + "/loom_round18_fresh.csv", kept = dir + "/loom_round18_kept.csv";
  std::remove(fresh.c_str());
  check_output_file(fresh);
  EXPECT_FALSE(std::filesystem::exists(fresh));  // created to find out, then removed
  {
    std::FILE* f = std::fopen(kept.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("old\n", f);
    std::fclose(f);
  }
  check_output_file(kept);
  EXPECT_EQ(std::filesystem::file_size(kept), 4u);  // opened without truncation
  std::remove(kept.c_str());
  check_output_file("/dev/null");  // a device passes
}

TEST(OutputPaths, StdoutUnderAnotherNameIsStdout) {
  expect_error([] { refuse_stdout_output("--per-shape", "-", "would mix"); }, "--per-shape", "'-' is stdout");
  // /dev/stdout is this process's stdout whatever it is (a pipe under ctest, a file, a terminal) but /dev/null.
  if (std::filesystem::exists("/dev/stdout")) {
    struct stat out {}, null {};
    const bool to_null = ::fstat(1, &out) == 0 && ::stat("/dev/null", &null) == 0 && out.st_rdev == null.st_rdev &&
                         S_ISCHR(out.st_mode);
    if (!to_null)
      expect_error([] { refuse_stdout_output("--per-shape", "/dev/stdout", "would mix"); }, "--per-shape",
                   "'/dev/stdout' is stdout");
  }
  refuse_stdout_output("--per-shape", "/dev/null", "would mix");
  refuse_stdout_output("--per-shape", testing::TempDir() + "/loom_round18_other.csv", "would mix");
}

}  // namespace
}  // namespace loom
