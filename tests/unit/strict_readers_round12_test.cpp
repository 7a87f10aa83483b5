// Hardening, round 12 (issue 17): a GPU file with a catalogue entry's values is that entry; "-" is stdout for output
// files and control bytes are refused in output paths; a folder of unimported sweeps is summarised; a collective of
// one GPU is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analytical/analysis.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "hw/catalog.h"
#include "hw/gpu_values.h"
#include "input_error_util.h"
#include "kernels/kernel_spec.h"
#include "trace/gpu_names.h"
#include "trace/summary.h"
#include "scratch_dir.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) { return loom::test::read_text(path); }

/// A fresh folder under the test's temporary directory.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(::testing::TempDir()) / ("loom_r12_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(GpuEntryByPath, CatalogueFileAndCopyAreTheEntry) {
  const Catalog cat = Catalog::load();
  const std::string file = data_dir() + "/gpus/h200.yaml";
  const GpuSpec entry = cat.get("h200"), by_path = cat.get(file);
  EXPECT_EQ(by_path.name, "h200");
  EXPECT_EQ(by_path.anchor, nullptr);  // it was anchored to h100-sxm (h200.yaml extends it)
  EXPECT_EQ(gpu_hardware_values(by_path, false), gpu_hardware_values(entry, false));
  const fs::path copy = scratch("copy") / "mine.yaml";
  std::ofstream(copy) << slurp(file);
  EXPECT_EQ(cat.get(copy.string()).name, "h200");
  // two names for it are one GPU (whatif refuses ranking it twice)
  EXPECT_EQ(cat.file_of(copy.string()), cat.file_of("h200"));
  EXPECT_EQ(cat.file_of(file), cat.file_of("h200"));
  // overrides apply as they do to the entry
  EXPECT_EQ(gpu_hardware_values(cat.get(file, {"sms=66"}), false),
            gpu_hardware_values(cat.get("h200", {"sms=66"}), false));
}

TEST(GpuEntryByPath, ACopyWithAnotherPriceIsAnchoredToTheEntry) {
  const Catalog cat = Catalog::load();
  const fs::path copy = scratch("price") / "dear.yaml";
  std::string text = slurp(data_dir() + "/gpus/h200.yaml");
  const size_t at = text.find("price: 4.00 USD/h");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(copy) << text.replace(at, 17, "price: 9.00 USD/h");
  const GpuSpec g = cat.get(copy.string());
  EXPECT_NE(g.name, "h200");  // not the entry: its price differs
  ASSERT_NE(g.anchor, nullptr);
  EXPECT_EQ(g.anchor->name, "h200");  // its timing is h200's, not h100-sxm's (which h200.yaml extends)
  EXPECT_NE(cat.file_of(copy.string()), cat.file_of("h200"));
}

TEST(GpuHardwareValues, TimingOnlyLeavesOutSmsPriceAndTopology) {
  const Catalog cat = Catalog::load();
  const GpuSpec a = cat.get("h200"), b = cat.get("h200", {"sms=66"});
  EXPECT_NE(gpu_hardware_values(a, false), gpu_hardware_values(b, false));
  EXPECT_EQ(gpu_hardware_values(a, true), gpu_hardware_values(b, true));
  EXPECT_NE(gpu_hardware_values(a, true), gpu_hardware_values(cat.get("h100-sxm"), true));
}

TEST(OutputPath, DashIsStdoutAndControlBytesAreRefused) {
  EXPECT_TRUE(is_stdout_path("-"));
  EXPECT_FALSE(is_stdout_path("./-"));
  EXPECT_NO_THROW(check_output_file("-"));
  for (const std::string bad : std::vector<std::string>{"a\nb.html", "a\tb", "x\x1b[2J", "p\x7f", "c\r"}) {
    expect_error([&] { check_output_file(bad); }, bad, "control character");
    expect_error([&] { write_file(bad, "x"); }, bad, "control character");
  }
  expect_error([] { refuse_stdout_output("--out", "-", "cannot hold a folder"); }, "--out",
               "'-' is stdout, which cannot");
  EXPECT_NO_THROW(refuse_stdout_output("--out", "a.json", "cannot hold a folder"));
}

TEST(TraceSummary, AFolderOfACaseListAndItsLctIsSummarised) {
  const fs::path d = scratch("pair");
  fs::copy_file(data_dir() + "/traces/e2e/h200/graph_decode.lct.gz", d / "run.lct.gz");
  fs::copy_file(data_dir() + "/traces/e2e/h200/graph_decode.cases.csv", d / "run.cases.csv");
  const TraceSummary s = summarize_dir(d.string(), GpuNameTable::load_default(), {});
  EXPECT_EQ(s.files, 1);
  ASSERT_FALSE(s.counts.empty());
  EXPECT_EQ(s.counts.front().gpu_key, "h200");
  // a case list without its trace is still nothing to summarise
  fs::remove(d / "run.lct.gz");
  EXPECT_EQ(summarize_dir(d.string(), GpuNameTable::load_default(), {}).files, 0);
}

TEST(Collectives, OneGpuIsRefusedNamingGpus) {
  const GpuSpec gpu = Catalog::load().get("h200");
  for (const char* spec : {"all_reduce bytes=1048576 gpus=1", "all_gather bytes=64 gpus=1",
                           "reduce_scatter bytes=64 gpus=1"})
    EXPECT_NE(error_of([&] { analyze(gpu, parse_kernel_spec(spec)); }).detail().find("gpus=1"), std::string::npos)
        << spec;
  EXPECT_GT(analyze(gpu, parse_kernel_spec("all_reduce bytes=1048576 gpus=2")).latency_us, 0.0);
}

}  // namespace
}  // namespace loom
