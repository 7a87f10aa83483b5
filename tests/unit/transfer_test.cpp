// Transfer weights for unseen architectures (learned/transfer.h): the choice per family, the leave-one-out
// rewrite of the arch: splits, and the file's round trip and refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "input_error_util.h"
#include "learned/transfer.h"
#include "scratch_dir.h"

namespace loom {
namespace {

ValidationReport::Point point(const std::string& arch, const std::string& family, double measured, double learned,
                              double analytical) {
  return {"arch:" + arch, family + " x=1", family, arch + "-gpu", 100, measured, learned, analytical, measured};
}

// gemm: the learned model is 2x off on every held-out architecture, the analytical one exact; moe: the reverse.
ValidationReport report() {
  ValidationReport r;
  for (const std::string a : {"ampere", "ada", "hopper"}) {
    r.splits.push_back({"arch:" + a, "", {}, {}, {}, ""});
    r.groups.push_back({"arch:" + a, "gemm", a + "-gpu", 100, {}, {}, {}});
    r.groups.push_back({"arch:" + a, "moe", a + "-gpu", 100, {}, {}, {}});
    for (int i = 0; i < 4; ++i) {
      r.points.push_back(point(a, "gemm", 10, 20, 10));
      r.points.push_back(point(a, "moe", 10, 10, 30));
    }
  }
  r.points.push_back({"shapes", "gemm x=1", "gemm", "h200", 132, 10, 20, 10, 10});  // not an arch: split
  return r;
}

TEST(Transfer, ChoosesPerFamilyTheWeightThatTransfers) {
  const auto w = choose_transfer_weights(report());
  EXPECT_EQ(w.at("gemm"), 0.0);
  EXPECT_EQ(w.at("moe"), 1.0);
}

TEST(Transfer, ArchSplitsAreBlendedWithWeightsChosenWithoutThem) {
  ValidationReport r = report();
  // ampere alone disagrees: its own gemm points favour the learned model, but its weight comes from the others.
  for (auto& p : r.points)
    if (p.split == "arch:ampere" && p.family == "gemm") p.learned_us = 10, p.analytical_us = 11;
  const auto all = blend_unseen_architectures(r);
  EXPECT_EQ(all.at("gemm"), 0.0);  // 2 of 3 architectures
  for (const auto& p : r.points) {
    if (p.split == "arch:ampere" && p.family == "gemm") EXPECT_DOUBLE_EQ(p.learned_us, 11);  // analytical, 10% off
    if (p.split == "arch:ada" && p.family == "gemm") EXPECT_DOUBLE_EQ(p.learned_us, 10);
    if (p.split == "shapes") EXPECT_DOUBLE_EQ(p.learned_us, 20);  // untouched
  }
  for (const auto& s : r.splits) {
    EXPECT_EQ(s.learned.n, 8u) << s.split;
    EXPECT_NEAR(s.learned.mape, s.split == "arch:ampere" ? 5.0 : 0.0, 1e-9) << s.split;
  }
  for (const auto& g : r.groups) EXPECT_EQ(g.learned.n, 4u);
  EXPECT_EQ(r.worst.size(), 24u);
}

TEST(Transfer, WeightAppliesOnlyWhereTheArchitectureWasNotMeasured) {
  TransferWeights t;
  t.weight["gemm"] = 0.25;
  t.architectures["gemm"] = {"ampere", "hopper"};
  EXPECT_EQ(t.weight_for("gemm", "hopper"), 1.0);
  EXPECT_EQ(t.weight_for("gemm", "blackwell"), 0.25);
  EXPECT_EQ(t.weight_for("moe", "blackwell"), 1.0);
}

TEST(Transfer, Sm100TensorFamiliesAreTheirOwnArchitectureWithAPriorWhereNothingChoseAWeight) {
  TransferWeights t;
  t.weight["attention_prefill"] = 1.0, t.architectures["attention_prefill"] = {"hopper"};
  t.weight["moe"] = 1.0, t.architectures["moe"] = {"hopper", "blackwell"};
  EXPECT_EQ(t.weight_or_prior("attention_prefill", "hopper"), 1.0);
  EXPECT_EQ(t.weight_or_prior("attention_prefill", "blackwell-tcgen05"), 0.5);  // one architecture: no choice made
  EXPECT_EQ(t.weight_or_prior("moe", "blackwell-tcgen05"), 1.0);                // chosen over held-out architectures
  GpuSpec b200, rtx;
  b200.architecture = rtx.architecture = "blackwell";
  b200.compute_capability = 100, rtx.compute_capability = 120;
  EXPECT_EQ(measured_architecture("moe", b200), "blackwell-tcgen05");  // RTX PRO 6000's rows are sm_120 mma.sync
  EXPECT_EQ(measured_architecture("moe", rtx), "blackwell");
  EXPECT_EQ(measured_architecture("rms_norm", b200), "blackwell");  // no tensor cores: the architecture is the key
}

TEST(Transfer, TheSm100KeyReadsBack) {
  // Training files B200 tensor-core rows under "blackwell-tcgen05" (measured_architecture); the file must take it.
  const TransferWeights t = TransferWeights::from_text(
      R"({"schema": "loom-transfer 1", "families": {"gemm": {"architectures": ["blackwell-tcgen05"], "weight": 0}}})",
      "transfer.json");
  EXPECT_EQ(t.weight_for("gemm", "blackwell-tcgen05"), 1.0);
  EXPECT_EQ(t.weight_for("gemm", "blackwell"), 0.0);
}

TEST(Transfer, FileRoundTripsAndIsOptional) {
  const test::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  EXPECT_TRUE(TransferWeights::load(dir.string()).weight.empty());  // no file: every weight 1
  TransferWeights t;
  t.weight["gemm"] = 0.5;
  t.architectures["gemm"] = {"ampere"};
  t.architectures["moe"] = {"ampere", "ada"};
  t.save(dir.string());
  const TransferWeights back = TransferWeights::load(dir.string());
  EXPECT_EQ(back.weight, t.weight);
  EXPECT_EQ(back.architectures, t.architectures);
  for (const std::string bad :
       {"{", "[]", R"({"schema": "loom-transfer 1"})",
        R"({"schema": "loom-transfer 1", "families": {"gemm": {"weight": 2, "architectures": []}}})",
        R"({"schema": "loom-transfer 1", "families": {"gemm": {"weight": "x", "architectures": []}}})",
        R"({"schema": "loom-transfer 1", "families": {"gemm": {"architectures": []}}})"}) {
    std::ofstream(dir / "transfer.json") << bad;
    EXPECT_IN(error_of([&] { TransferWeights::load(dir.string()); }).what(), "transfer.json");
  }
}

// Found by scripts/probe_cases_r7.py: a non-string schema was an internal error (exit 3), a folder too, a named pipe
// hung, and typos (an unknown family or key, a family given twice) were ignored without a word.
TEST(Transfer, MalformedFilesAreRefusedSayingWhat) {
  const test::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  const std::string head = R"({"schema": "loom-transfer 1", "families": )";
  const std::string ok = R"({"architectures": ["hopper"], "weight": 0.5})";
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {R"({"schema": 5, "families": {}})", "schema"},
           {R"({"schema": "loom-transfer 1", "families": {}, "famlies": {}})", "famlies"},
           {head + R"({"gemmm": )" + ok + "}}", "gemmm"},
           {head + R"({"gemm": {"architectures": [], "weight": 0.5, "wieght": 1}}})", "wieght"},
           {head + R"({"gemm": {"architectures": [], "weight": true}}})", "weight"},
           {head + R"({"gemm": {"architectures": "hopper", "weight": 0.5}}})", "architectures"},
           {head + R"({"gemm": 5}})", "gemm"},
           {head + R"({"gemm": {"architectures": ["hoper-tcgen05"], "weight": 0.5}}})", "hoper-tcgen05"},
           {head + R"({"gemm": {"architectures": ["-tcgen05"], "weight": 0.5}}})", "-tcgen05"},
           {head + "{\n\"gemm\": " + ok + ",\n\"gemm\": " + ok + "}}", "transfer.json:3"},
           {"{\n\n!", "transfer.json:3"}}) {
    std::ofstream(dir / "transfer.json") << bad;
    const std::string what = error_of([&] { TransferWeights::load(dir.string()); }).what();
    EXPECT_IN(what, "transfer.json");
    EXPECT_IN(what, says);
  }
  std::filesystem::remove(dir / "transfer.json");
  std::filesystem::create_directory(dir / "transfer.json");
  EXPECT_IN(error_of([&] { TransferWeights::load(dir.string()); }).what(), "transfer.json");
  std::filesystem::remove(dir / "transfer.json");
  ASSERT_EQ(mkfifo((dir / "transfer.json").c_str(), 0600), 0);
  EXPECT_IN(error_of([&] { TransferWeights::load(dir.string()); }).what(), "transfer.json");
}

}  // namespace
}  // namespace loom
