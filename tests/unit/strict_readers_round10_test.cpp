// Hardening, round 10 (issue 17): a single-valued flag given twice is refused even with one value, and the near-miss
// match that `loom calibrate` uses to refuse a misspelt device name (2 edits at most, not a third of the name).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/args.h"
#include "core/error.h"
#include "core/suggest.h"
#include "input_error_util.h"
#include "trace/gpu_names.h"
#include "trace/trace.h"

namespace loom {
namespace {

cli::Args args_of(const std::vector<std::string>& argv) {
  return cli::Args(argv, {"--requests", "--set", "--gpu", "-o", "--out"}, {"--interval"});
}

TEST(Args, SingleValuedFlagTwiceIsRefusedEvenWithOneValue) {
  const auto same = args_of({"--requests", "a.csv", "--requests", "a.csv"});
  expect_error([&] { same.get("--requests"); }, "--requests", "given twice (each 'a.csv'); give it once");
  const auto differ = args_of({"--gpu", "h200", "--gpu=b200"});
  expect_error([&] { differ.get("--gpu"); }, "--gpu", "given twice with different values ('h200', 'b200')");
  const auto thrice = args_of({"--gpu", "h200", "--gpu", "h200", "--gpu", "h200"});
  expect_error([&] { thrice.require("--gpu"); }, "--gpu", "given 3 times");
  const auto o = args_of({"-o", "x", "-o", "x"});
  expect_error([&] { o.output(); }, "-o", "given twice");
}

// Round 15: a switch given twice is refused (strict_readers_round15_test.cpp); repeatable flags still repeat.
TEST(Args, RepeatableFlagsStillRepeat) {
  const auto a = args_of({"--set", "sms=1", "--set", "sms=1", "--interval", "--gpu", "h200"});
  EXPECT_EQ(a.all("--set").size(), 2u);
  EXPECT_TRUE(a.has("--interval"));
  EXPECT_EQ(a.get("--gpu"), "h200");
  EXPECT_EQ(a.get("--requests", "none"), "none");
}

TEST(GpuNames, NearMissWithinTwoEdits) {
  const GpuNameTable t = GpuNameTable::load_default();
  const std::vector<std::string> names = t.names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(closest_match("NVIDIA H100 80GB HBM", names, 2), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(closest_match("NVIDIA H2O", names, 2), "NVIDIA H20");
  // A new SKU's name three or more edits from every known one is no near miss (a third of its length would be).
  EXPECT_EQ(closest_match("NVIDIA GB300 Superchip", names, 2), "");
  EXPECT_EQ(closest_match("NVIDIA H100 NVL", names, 2), "");
  EXPECT_EQ(closest_match("NVIDIA H200", names, 2), "");  // exact: no suggestion (the caller matched it already)
}

const char* kCols =
    "case_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,spread_pct,"
    "event_median_us\n7,gemm,gemm m=1 n=1 k=1 dtype=bf16,cublaslt,@1,1:1:1,1:1:1,1,1,3,1.2,1.12,1.36,20,1.3\n";

std::string corpus_with(const std::string& meta) { return "#loom-corpus 2\n" + meta + "#kernel.1=k\n" + kCols; }

TEST(CorpusMeta, KeyTwiceIsRefusedNamingBothLines) {
  expect_error([] { parse_corpus(corpus_with("#gpu_key=h200\n#sms=16\n#gpu_key=h100-sxm\n"), "c.csv"); }, "c.csv:4",
               "metadata '#gpu_key=' is given twice (first at c.csv:2)");
  expect_error([] { parse_corpus(corpus_with("#gpu_key=h200\n#gpu_key=h200\n"), "c.csv"); }, "c.csv:3", "given twice");
  // a version 1 file's `#kernel.` lines are metadata like any other
  expect_error([] { parse_corpus("#loom-corpus 1\n#kernel.1=a\n#kernel.1=b\n" + std::string(kCols), "c.csv"); },
               "c.csv:3", "'#kernel.1=' is given twice");
}

TEST(CorpusMeta, SmsAndClockAreCheckedWherePresent) {
  for (const char* bad : {"#sms=sixteen\n", "#sms=0\n", "#sms=-16\n", "#sms=99999999999\n", "#sms=16.5\n"})
    expect_error([&] { parse_corpus(corpus_with(bad), "c.csv"); }, "c.csv:2", "is not an SM count");
  for (const char* bad :
       {"#clock_mhz=nan\n", "#clock_mhz=0\n", "#clock_mhz=0.5\n", "#clock_mhz=1e5\n", "#clock_mhz=x\n"})
    expect_error([&] { parse_corpus(corpus_with(bad), "c.csv"); }, "c.csv:2", "is not a clock in MHz");
  const Corpus ok = parse_corpus(corpus_with("#sms=16\n#clock_mhz=1980\n"), "c.csv");
  EXPECT_EQ(ok.sms, 16);
  EXPECT_EQ(ok.clock_mhz, 1980);
  EXPECT_EQ(parse_corpus(corpus_with(""), "c.csv").sms, 0);  // absent: not given (a whole GPU, as before)
}

}  // namespace
}  // namespace loom
