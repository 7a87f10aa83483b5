// Hardening, round 13 (issue 17): loom's own JSON without `schema` is refused by `loom report`; a GPU file with a
// catalogue entry's values keeps its own name; public rows whose shapes loom cannot take are refused at import; a
// mode that takes no flags says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/args.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "hw/gpu_values.h"
#include "input_error_util.h"
#include "report/loom_json.h"
#include "report/report.h"
#include "trace/import_public.h"

namespace loom {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(ReportSchema, LoomOutputWithoutSchemaIsRefusedNamingTheKey) {
  report::Report r;
  const json e2e = {
      {"gpu", "h200"}, {"model", "m"}, {"phase", "decode"}, {"mode", "graph"}, {"kernels", json::array()}};
  expect_error([&] { report::add_e2e(r, e2e, "e.json"); }, "e.json",
               "$.schema: required key missing: loom's outputs carry \"schema\": \"loom.e2e/1\"");
  expect_error(
      [&] {
        report::add_whatif(r, json{{"ranked", json::array()}}, "w.json");
      },
      "w.json", "\"loom.whatif/1\"; rerun `loom whatif");
  expect_error(
      [&] {
        report::add_simulate(r, json{{"per_request", json::array()}}, "s.json");
      },
      "s.json", "\"loom.simulate/1\"");
  expect_error(
      [&] {
        report::validation_from_json(json{{"points", json::array()}}, "v.json");
      },
      "v.json", "\"loom.validate/1\"");
  // With the key, the same object is read (an older loom's file of this shape takes the key by hand).
  json tagged = e2e;
  tagged["schema"] = "loom.e2e/1";
  EXPECT_NO_THROW(report::add_e2e(r, tagged, "e.json"));
  // null or another command's schema: refused as before
  tagged["schema"] = nullptr;
  expect_error([&] { report::add_e2e(r, tagged, "e.json"); }, "e.json", "is not loom.e2e output");
}

TEST(GpuEntryByPath, AFileWithAnEntrysValuesKeepsItsOwnName) {
  const Catalog cat = Catalog::load();
  const fs::path dir = fs::path(::testing::TempDir()) / "loom_r13_name";
  fs::create_directories(dir);
  const fs::path file = dir / "lab.yaml";
  std::ofstream(file) << "extends: h200\nname: My Lab H200\n";
  const GpuSpec entry = cat.get("h200"), lab = cat.get(file.string());
  EXPECT_EQ(lab.name, "h200");  // the entry: same key, anchor and predictions
  EXPECT_EQ(lab.anchor, nullptr);
  EXPECT_EQ(gpu_hardware_values(lab, false), gpu_hardware_values(entry, false));
  EXPECT_EQ(lab.full_name, "My Lab H200");  // was "NVIDIA H200 SXM 141GB"
  EXPECT_IN(lab.key_sources.at("name"), "lab.yaml");
  // --set name= wins over the file's, as over the entry's
  EXPECT_EQ(cat.get(file.string(), {"name=Other"}).full_name, "Other");
  // a file with the entry's own name is the entry as before
  const std::string h200_file = data_dir() + "/gpus/h200.yaml";
  EXPECT_EQ(cat.get(h200_file).full_name, entry.full_name);
}

TEST(PublicImport, RowsWhoseShapeLoomCannotTakeAreRefusedAtTheirLine) {
  const std::string header = "M,N,K,avg_duration,hardware\n";
  const std::string huge = header + "64,4096,4096,12,NVIDIA H100\n1000000000,1000000000,1000000000,12.5,NVIDIA H100\n";
  const InputError e = error_of([&] { import_public_text("pipeweave", huge, "d/gemm_fp8_test.csv", {}); });
  EXPECT_EQ(e.where(), "d/gemm_fp8_test.csv:3");
  EXPECT_IN(e.what(), "gemm m=1000000000 n=1000000000 k=1000000000");
  EXPECT_IN(e.what(), "sanity limit");
  // a large shape within the limits is imported
  const PublicImport ok =
      import_public_text("pipeweave", header + "65536,65536,65536,300000,NVIDIA H100\n", "d/gemm_fp8_test.csv", {});
  ASSERT_EQ(ok.by_gpu.at("h100-sxm").rows.size(), 1u);
}

TEST(Args, AModeWithoutFlagsSaysSo) {
  const cli::Args a({"--format", "json"}, {"--format"});
  expect_error([&] { a.only("`loom trace diff`", {}); }, "--format",
               "not used by `loom trace diff` (it takes no flags)");
  expect_error([&] { a.only("`loom trace paths`", {"-o"}); }, "--format", "(it reads -o)");
}

}  // namespace
}  // namespace loom
