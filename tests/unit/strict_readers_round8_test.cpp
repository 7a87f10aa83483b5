// Hardening, round 8 (issue 17): the model directory's index (model.json), coverage.json and models/collectives.json
// read strictly, named pipes and folders in the model and run readers, transfer.json's architecture names, impl= only
// on the families that have it, and an anchored (--set) collective never below the changed GPU's ceiling.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"
#include "learned/collectives.h"
#include "learned/model.h"
#include "learned/model_index.h"
#include "learned/predictor.h"
#include "learned/transfer.h"
#include "learned/uncertainty.h"
#include "serving/measured.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

std::string committed_index() {
  std::ifstream in(data_dir() + "/models/efficiency/model.json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("loom-r8-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(ModelIndex, CommittedIndexReads) {
  const ModelIndex m = parse_model_index(committed_index(), "model.json");
  EXPECT_GT(m.features.size(), 10u);
  EXPECT_GT(m.models.size(), 10u);
}

TEST(ModelIndex, DamagedIndexIsRefusedSayingWhat) {
  const std::string head = R"({"features": ["a", "b"], "models": )";
  const std::string ok = R"({"file": "gemm.xgb.json.gz", "hash": "0123456789abcdef"})";
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"{\n\"features\": ]", "model.json:2"},
           {"{\n\"features\": [\"a\"],\n\"features\": [\"a\"], \"models\": {}}", "model.json:3"},
           {head + "{\"gemm\": " + ok + "}, \"modles\": 1}", "modles"},
           {R"({"features": [], "models": {"gemm": )" + ok + "}}", "features"},
           {R"({"features": ["a", "a"], "models": {"gemm": )" + ok + "}}", "'a' is listed twice"},
           {head + "{}}", "at least one forest"},
           {head + "[]}", "models"},
           {head + "{\"gemmm\": " + ok + "}}", "gemmm"},
           {head + "{\"gemm@triton.q\": " + ok + "}}", "gemm@triton.q"},
           {head + R"({"gemm": {"file": "../x.gz", "hash": "0123456789abcdef"}}})", "file"},
           {head + R"({"gemm": {"file": "g.gz", "hash": "xyz"}}})", "hash"},
           {head + R"({"gemm": {"file": "g.gz"}}})", "hash"},
           {head + R"({"gemm": {"file": "g.gz", "hash": "0123456789abcdef", "size": 1}}})", "size"},
           {R"({"schema": "loom-efficiency-model 2", "features": ["a"], "models": {"gemm": )" + ok + "}}", "schema"}}) {
    const InputError e = error_of([&] { parse_model_index(bad, "model.json"); });
    EXPECT_IN(e.where(), "model.json");
    EXPECT_IN(e.what(), says);
  }
  EXPECT_NO_THROW(parse_model_index(head + "{\"_all.q\": " + ok + ", \"rotary@fused\": " + ok + "}}", "model.json"));
}

TEST(ModelDir, NamedPipesAndFoldersAreRefusedNotWaitedOn) {
  const fs::path d = scratch("modeldir");
  ASSERT_EQ(::mkfifo((d / "model.json").c_str(), 0600), 0);
  EXPECT_IN(error_of([&] { EfficiencyModel::load(d.string()); }).what(), "named pipe");
  fs::remove(d / "model.json");
  fs::create_directory(d / "model.json");
  EXPECT_IN(error_of([&] { EfficiencyModel::load(d.string()); }).what(), "is a directory");
  fs::remove_all(d);
}

TEST(MeasuredRun, NamedPipeOrFolderInARunIsRefused) {
  const fs::path d = scratch("run");
  const std::string src = data_dir() + "/traces/serving/engine/h100-sxm/static16/";
  for (const char* f : {"requests.csv", "per_request.csv", "iterations.csv"}) fs::copy_file(src + f, d / f);
  EXPECT_NO_THROW(serving::read_measured_run(d.string()));
  for (const char* f : {"per_request.csv", "iterations.csv"}) {
    fs::rename(d / f, d / "keep.csv");
    ASSERT_EQ(::mkfifo((d / f).c_str(), 0600), 0);
    const InputError e = error_of([&] { serving::read_measured_run(d.string()); });
    EXPECT_IN(e.what(), "named pipe");
    EXPECT_IN(e.where(), f);
    fs::remove(d / f);
    fs::create_directory(d / f);
    EXPECT_IN(error_of([&] { serving::read_measured_run(d.string()); }).what(), "is a directory");
    fs::remove(d / f);
    fs::rename(d / "keep.csv", d / f);
  }
  fs::remove_all(d);
}

TEST(CollectiveFits, DamagedFitsAreRefusedSayingWhat) {
  const std::string committed = data_dir() + "/models/collectives.json";
  EXPECT_FALSE(CollectiveModel::load(committed).fits.empty());
  const fs::path d = scratch("coll");
  const std::string fit = R"({"op": "all_reduce", "impl": "nccl", "gpu": "h200", "architecture": "hopper",
    "topology": "nvswitch", "gpus": 8, "link": "nvlink", "link_GBps": 450, "break_bytes": 1048576,
    "small": {"alpha_us": 10, "busbw_GBps": 50}, "large": {"alpha_us": 20, "busbw_GBps": 300}, "points": 9,
    "fit_mape_small_pct": 5, "fit_mape_large_pct": 3})";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string f = fit;
    f.replace(f.find(from), from.size(), to);
    return f;
  };
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"{\"fits\": [" + fit + ", " + fit + "]}", "a second fit"},
           {"{\"fits\": [" + fit + "], \"fitz\": 1}", "fitz"},
           {"{\"fits\": [" + with("\"points\"", "\"bw\": 1, \"points\"") + "]}", "'bw'"},
           {"{\"fits\": [" + with("\"busbw_GBps\": 300", "\"busbw_GBps\": 0") + "]}", "busbw_GBps"},
           {"{\"fits\": [" + with("\"gpus\": 8", "\"gpus\": 2.5") + "]}", "gpus"},
           {"{\"about\": \"x\",\n\"about\": \"y\", \"fits\": []}", "collectives.json:2"}}) {
    std::ofstream(d / "collectives.json") << text;
    const InputError e = error_of([&] { CollectiveModel::load((d / "collectives.json").string()); });
    EXPECT_IN(e.where(), "collectives.json");
    EXPECT_IN(e.what(), says);
  }
  std::ofstream(d / "collectives.json") << "{\"fits\": [" + fit + "]}";
  EXPECT_EQ(CollectiveModel::load((d / "collectives.json").string()).fits.size(), 1u);
  fs::remove_all(d);
}

TEST(CoverageFile, DamagedCoverageIsRefusedSayingWhat) {
  EXPECT_FALSE(Coverage::load(data_dir() + "/models/efficiency").families.empty());
  const fs::path d = scratch("cov");
  const std::string band = R"({"n": 5, "log_lo": -0.1, "log_hi": 0.1})";
  const std::string fam = R"({"architectures": ["hopper"], "gpus": ["h200"], "impls": ["torch"], "kernels": 5, )"
                          R"("shapes": )" + band + R"(, "unseen_architecture": )" + band + "}";
  auto file = [&](const std::string& families) {
    return R"({"schema": "loom-coverage 1", "families": {)" + families + "}}";
  };
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {file("\"gemmm\": " + fam), "gemmm"},
           {file("\"gemm\":\n" + fam + ",\n\"gemm\": " + fam), "coverage.json:3"},
           {file("\"gemm\": " + fam.substr(0, fam.find("\"shapes\"")) + "\"shapes\": {\"n\": 5, \"log_lo\": 1, "
                 "\"log_hi\": -1}, \"unseen_architecture\": " + band + "}"), "shapes"},
           {"nope", "coverage.json"}}) {
    std::ofstream(d / "coverage.json") << text;
    const InputError e = error_of([&] { Coverage::load(d.string()); });
    EXPECT_IN(e.where(), "coverage.json");
    EXPECT_IN(e.what(), says);
  }
  std::ofstream(d / "coverage.json") << file("\"gemm\": " + fam);
  EXPECT_EQ(Coverage::load(d.string()).families.size(), 1u);
  fs::remove_all(d);
}

TEST(Transfer, ArchitectureNamesAreChecked) {
  const std::string head = R"({"schema": "loom-transfer 1", "families": {"gemm": {"weight": 0.5, "architectures": )";
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {head + R"(["hoper"]}}})", "unknown architecture 'hoper'"},
           {head + R"(["hopper", "ada", "hopper"]}}})", "'hopper' is listed twice"},
           {head + R"(["Hopper"]}}})", "Hopper"},
           {R"({"schema": "loom-transfer 1", "rule": 5, "families": {}})", "rule"}}) {
    const InputError e = error_of([&] { TransferWeights::from_text(bad, "transfer.json"); });
    EXPECT_IN(e.where(), "transfer.json");
    EXPECT_IN(e.what(), says);
  }
  const TransferWeights t = TransferWeights::from_text(head + R"(["hopper", "blackwell"]}}})", "transfer.json");
  EXPECT_EQ(t.weight_for("gemm", "blackwell"), 1.0);
  EXPECT_EQ(t.weight_for("gemm", "ada"), 0.5);
}

TEST(KernelImpl, OnlyFamiliesThatHaveTheImplementationTakeIt) {
  const GpuSpec g = Catalog::load().get("h200");
  auto shape = [&](const std::string& spec) { return parse_shape(parse_kernel_spec(spec, "--kernel"), g); };
  for (const auto& [spec, says] : std::vector<std::pair<std::string, std::string>>{
           {"softmax rows=64 cols=64 dtype=bf16 impl=cutlass", "impl=cutlass exists for gemm"},
           {"moe tokens=64 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16 impl=cutlass", "impl=cutlass"},
           {"all_reduce bytes=1048576 gpus=8 impl=torch", "impl=torch is not a collective implementation"},
           {"all_gather bytes=1048576 gpus=8 impl=library", "all_gather takes impl=nccl"},
           {"send_recv bytes=1048576 impl=loom", "send_recv takes impl=nccl"}})
    EXPECT_IN(error_of([&] { shape(spec); }).what(), says);
  EXPECT_NO_THROW(shape("all_reduce bytes=1048576 gpus=8 impl=custom"));
  EXPECT_NO_THROW(shape("reduce_scatter bytes=1048576 gpus=8 impl=nccl"));
  EXPECT_NO_THROW(shape("gemm m=64 n=64 k=64 dtype=fp8 impl=cutlass"));
  EXPECT_NO_THROW(shape("softmax rows=64 cols=64 dtype=bf16 impl=loom"));
}

TEST(LearnedAnchor, ACollectiveOnAChangedGpuStaysAtOrAboveItsCeiling) {
  // A b200 collective sits at its link's speed of light (a fit carried from another GPU, clamped); the analytical
  // ratio of a slower clock or DRAM moved it 0.3-3% below the changed GPU's ceiling.
  const Catalog c = Catalog::load();
  const Predictor p("learned");
  for (const char* set : {"clock.sustained=1200MHz", "dram.bandwidth=1TB/s"})
    for (const char* spec : {"all_reduce bytes=146519824 gpus=8", "reduce_scatter bytes=172401763 gpus=2",
                             "all_gather bytes=247737416 gpus=2"}) {
      const Prediction r = p.predict(c.get("b200", {set}), parse_kernel_spec(spec, "--kernel"));
      EXPECT_GE(r.latency_us, r.ceiling_us() * (1 - 1e-12)) << set << " " << spec;
    }
}

}  // namespace
}  // namespace loom
