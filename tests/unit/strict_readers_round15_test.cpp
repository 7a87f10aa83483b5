// Hardening, round 15 (issue 17): a switch given twice is refused; a serving profile's
// new_kv_length_host_fixed_share needs the cost it is a share of; host probes (calibrate's host_cost, validate --e2e's
// loom.host_probe ranges) implying a host speed outside the catalogue's 0.05-20 are refused, not clamped; a
// validate --e2e run where every case was skipped is refused, not an empty table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "core/error.h"
#include "e2e/profile.h"
#include "e2e/validate_e2e.h"
#include "hw/calibration.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "scratch_dir.h"
#include "trace/trace.h"

namespace loom {
namespace {

using loom::test::read_text;

TEST(Args, ASwitchGivenTwiceIsRefusedAsAValueFlagIs) {
  auto args = [](std::vector<std::string> argv) { return cli::Args(argv, {"--gpu"}, {"--lenient", "--interval"}); };
  expect_error([&] { args({"--lenient", "--lenient"}); }, "--lenient", "given twice; give it once");
  expect_error([&] { args({"--interval", "--gpu", "h200", "--interval"}); }, "--interval", "given twice");
  EXPECT_TRUE(args({"--lenient", "--interval"}).has("--interval"));  // two switches once each
  expect_error([&] { args({"--gpu", "a", "--gpu", "a"}).get("--gpu"); }, "--gpu", "given twice");  // as before
}

const char* kProfile = "name: p\nnew_kv_length_host_us: 37000\nnew_kv_length_host_fixed_share: 0.28\n";

TEST(Profile, FixedShareNeedsTheCostItIsAShareOf) {
  EXPECT_DOUBLE_EQ(parse_profile(kProfile, "p.yaml").new_kv_length_host_fixed_share, 0.28);
  expect_error([] { parse_profile("name: p\nnew_kv_length_host_fixed_share: 0.28\n", "p.yaml"); }, "p.yaml:2",
               "a share of new_kv_length_host_us");
  expect_error([] { parse_profile("new_kv_length_host_us: 0\nnew_kv_length_host_fixed_share: 0.1\n", "p.yaml"); },
               "p.yaml:2", "give new_kv_length_host_us or drop the share");
  // the range and the type are read as before
  for (const char* v : {"1", "-0.1", "0.9500001", "most", "28%", "[0.28]"})
    EXPECT_THROW(parse_profile(std::string("new_kv_length_host_us: 1\nnew_kv_length_host_fixed_share: ") + v + "\n",
                               "p.yaml"),
                 InputError)
        << v;
  EXPECT_NO_THROW(parse_profile("new_kv_length_host_us: 1\nnew_kv_length_host_fixed_share: 0.95\n", "p.yaml"));
}

std::string with_host_cost(const nlohmann::json& host_cost) {
  nlohmann::json j = nlohmann::json::parse(read_text(std::string(LOOM_TEST_DATA) + "/calibrate/good.json"));
  j["host_cost"] = host_cost;
  return j.dump();
}

TEST(Calibration, HostCostOutsideTheCatalogueSpeedsIsRefusedNotClamped) {
  const Catalog cat = Catalog::load();
  auto overlay = [&](const std::string& text) {
    return calibration_overlay(text, "r.json", "h100-sxm", cat.get("h100-sxm"), cat.get("h200")).yaml;
  };
  auto refusal = [&](const std::string& text) { return std::string(error_of([&] { overlay(text); }).what()); };
  EXPECT_IN(overlay(with_host_cost({{"us_per_launch", 25.44}, {"launches", 231}})), "cpu_speed: 0.5 ");
  EXPECT_IN(overlay(with_host_cost({{"us_per_launch", 0.64}})), "cpu_speed: 19.9");  // just inside speed 20
  // 0.2 us was speed 20 and 5,000 us speed 0.05, clamped without a word
  EXPECT_IN(refusal(with_host_cost({{"us_per_launch", 0.2}})), "'host_cost.us_per_launch' = 0.2 is outside 0.636");
  EXPECT_IN(refusal(with_host_cost({{"us_per_launch", 5000}})), "'host_cost.us_per_launch' = 5000 is outside");
  EXPECT_IN(refusal(with_host_cost({{"us_per_launch", 14}, {"launches", 0}})), "'host_cost.launches' = 0");
  EXPECT_IN(refusal(with_host_cost({{"us_per_launch", 14}, {"launches", "many"}})), "'host_cost.launches'");
}

std::string kernel(int64_t start_ns, int64_t end_ns) {
  std::ostringstream s;
  s << "K\t" << start_ns << "\t" << end_ns << "\t0\t1\t7\t1\t0\t1\t1\t1\t128\t1\t1\t32\t0\t0\t"
    << "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT\n";
  return s.str();
}

std::string range(int64_t start_ns, int64_t end_ns, const std::string& name) {
  std::ostringstream s;
  s << "R\t" << start_ns << "\t" << end_ns << "\t1\t" << name << "\n";
  return s.str();
}

const char* kCases =
    "#loom-bench 1\n#gpu=NVIDIA H200\n#sms=132\n"
    "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n"
    "1,e2e_decode,e2e_decode model=llama-3.2-1b batch=2 context=64 dtype=bf16 mode=eager,torch_hf,1,80,50,100\n";

/// One case, one rep of one kernel, and a host probe of `launches` kernels over `probe_ns`.
std::string probed(int64_t probe_ns, int launches) {
  std::string rec = range(0, 10'000'000, "loom.case=1") + range(100'000, 200'000, "loom.rep") +
                    range(110'000, 190'000, "loom.phase=decode") + kernel(120'000, 150'000) +
                    range(300'000, 300'000 + probe_ns, "loom.host_probe");
  for (int i = 0; i < launches; ++i) rec += kernel(300'000 + i, 300'000 + i + 1);
  int n = 0;
  for (char c : rec) n += c == '\n';
  return "#loom-cupti 1\n#gpu=NVIDIA H200\n#sms=132\n" + rec + "#end records=" + std::to_string(n) + " dropped=0\n";
}

TEST(E2eValidate, HostProbesOutsideTheCatalogueSpeedsAreRefusedNotClamped) {
  const CaseList cases = parse_case_list(kCases, "syn.cases.csv");
  std::vector<std::string> skipped;
  auto steps = [&](const std::string& lct) { return measure_e2e_steps(parse_lct(lct, "syn.lct"), cases, skipped); };
  EXPECT_NEAR(steps(probed(40'000, 2)).at(0).host_us_per_launch, 20.0, 1e-9);  // 20 us a launch: read as before
  // 1 ns a launch (speed 10,000 after the collector's cost) and 9 ms for one launch (speed 0.0017)
  expect_error([&] { steps(probed(1'000, 1'000)); }, "syn.lct: case 1", "outside host.cpu_speed 0.05-20");
  expect_error([&] { steps(probed(9'000'000, 1)); }, "syn.lct: case 1", "loom.host_probe ranges take 9e+03 us");
  EXPECT_EQ(steps(probed(0, 0)).at(0).host_probes, 0);  // a probe with no kernels is no reading, as before
}

TEST(E2eValidate, EveryCaseSkippedIsRefusedNotAnEmptyTable) {
  namespace fs = std::filesystem;
  const loom::test::ScratchDir scratch;
  std::string other = kCases;
  other.replace(other.rfind("\n1,"), 3, "\n7,");  // case 7: the trace has only loom.case=1
  std::ofstream(scratch.path() / "syn.cases.csv") << other;
  std::ofstream(scratch.path() / "syn.lct") << probed(40'000, 2);
  E2eOptions opt;
  opt.traces_dir = scratch.path().string();
  expect_error([&] { validate_e2e(opt); }, "--traces " + opt.traces_dir, "case 7: no loom.case range");
}

}  // namespace
}  // namespace loom
