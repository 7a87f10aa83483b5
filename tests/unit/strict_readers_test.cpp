// Hardening of the data readers (issue 17): one YAML document, no duplicate keys (YAML and JSON), finite numbers,
// bounded model sizes, bounded `extends:` chains, a capped gzip inflation, UTF-8 BOMs and duplicate CSV columns.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/strict_yaml.h"
#include "e2e/model_config.h"
#include "e2e/profile.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "scratch_dir.h"
#include "hw/gpu_yaml.h"
#include "trace/text_io.h"
#include "trace/trace.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

const char* kLlama = R"({
  "model_type": "llama",
  "hidden_size": 4096,
  "num_hidden_layers": 32,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "intermediate_size": 14336,
  "vocab_size": 128256
})";

TEST(StrictYaml, OneDocumentAndUniqueKeysAtEveryDepth) {
  EXPECT_EQ(load_one_yaml("a: 1\nb: {c: 2}\n", "f.yaml")["b"]["c"].as<int>(), 2);
  InputError e = error_of([] { load_one_yaml("a: 1\n---\na: 2\n", "f.yaml"); });
  EXPECT_EQ(e.where(), "f.yaml:2");
  EXPECT_IN(e.detail(), "second YAML document");
  e = error_of([] { load_one_yaml("a: 1\nb:\n  - x: 1\n    y: 2\n    x: 3\n", "f.yaml"); });
  EXPECT_EQ(e.where(), "f.yaml:5");
  EXPECT_IN(e.detail(), "duplicate key 'x' (first at line 3)");
  // yaml-cpp 0.7's LoadAll loops forever on this stream (jbeder/yaml-cpp#1319); load_one_yaml must return.
  EXPECT_THROW(load_one_yaml("\n,\n", "f.yaml"), InputError);
  EXPECT_THROW(load_one_yaml("a: 1\n---\n", "f.yaml"), InputError);
  e = error_of([] { load_one_yaml("a: [1, 2\n", "f.yaml"); });
  EXPECT_IN(e.detail(), "malformed YAML");
}

TEST(StrictYaml, AliasBombCostsItsSizeNotItsExpansion) {
  // 10^12 leaves once expanded; each collection is scanned once, so this returns at once.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 12; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_TRUE(load_one_yaml(text, "laughs.yaml").IsMap());
  EXPECT_IN(error_of([&] { load_one_yaml(text + "a3: 1\n", "laughs.yaml"); }).detail(), "duplicate key 'a3'");
}

TEST(StrictYaml, GpuExtendsChainIsBounded) {
  const loom::test::ScratchDir scratch;
  const fs::path& dir = scratch.path();
  // g0 extends the catalogue; gN extends g(N-1): a chain of N+1 files plus h100-sxm.
  auto write_chain = [&](int n) {
    write_file((dir / "g0.yaml").string(), "extends: h100-sxm\n");
    for (int i = 1; i <= n; ++i)
      write_file((dir / ("g" + std::to_string(i) + ".yaml")).string(),
                 "extends: g" + std::to_string(i - 1) + ".yaml\n");
    return (dir / ("g" + std::to_string(n) + ".yaml")).string();
  };
  const std::string cat = data_dir() + "/gpus";
  EXPECT_NO_THROW(read_gpu_file(write_chain(14), "ok.yaml", cat));  // 16 files with h100-sxm
  const InputError e = error_of([&] { read_gpu_file(write_chain(20), "deep.yaml", cat); });
  EXPECT_IN(e.detail(), "extends chain deeper than 16 files");
}

TEST(StrictYaml, ProfileRefusesNanInfAndNonScalars) {
  for (const char* v : {".nan", ".inf", "-.inf"}) {
    const InputError e = error_of([&] { parse_profile(std::string("memory_utilization: ") + v + "\n", "p.yaml"); });
    EXPECT_EQ(e.where(), "p.yaml:1");
    EXPECT_IN(e.detail(), "finite number in [0.05, 1]");
  }
  EXPECT_IN(error_of([] { parse_profile("qkv: [fused]\n", "p.yaml"); }).detail(), "single value");
  EXPECT_IN(error_of([] { parse_profile("name: {a: 1}\n", "p.yaml"); }).detail(), "single value");
  EXPECT_IN(error_of([] { parse_profile("? [a]\n: 1\n", "p.yaml"); }).detail(), "plain names");
  EXPECT_IN(error_of([] { parse_profile("scheduler: {block_size: .nan}\n", "p.yaml"); }).detail(), "block_size");
  EXPECT_EQ(parse_profile("memory_utilization: 0.5\n", "p.yaml").memory_utilization, 0.5);
}

TEST(StrictJson, ModelConfigDuplicateKeysAndSizeBounds) {
  EXPECT_EQ(parse_model_config(kLlama, "c.json").layers, 32);
  std::string dup = kLlama;
  dup.insert(dup.rfind('}'), ", \"hidden_size\": 8192\n");
  InputError e = error_of([&] { parse_model_config(dup, "c.json"); });
  EXPECT_EQ(e.where(), "c.json:9");
  EXPECT_IN(e.detail(), "duplicate key 'hidden_size'");
  for (const auto& [key, value, bound] : {std::tuple{"num_hidden_layers", "32", "1024"},
                                          std::tuple{"hidden_size", "4096", "1048576"},
                                          std::tuple{"vocab_size", "128256", "4194304"}}) {
    std::string huge = kLlama;
    const std::string from = std::string("\"") + key + "\": " + value;
    huge.replace(huge.find(from), from.size(), std::string("\"") + key + "\": 1000000000");
    e = error_of([&] { parse_model_config(huge, "c.json"); });
    EXPECT_IN(e.detail(), std::string("above loom's bound of ") + bound);
  }
}

TEST(StrictCsv, BomIsDroppedAndDuplicateColumnsRefused) {
  const std::string text = "\xEF\xBB\xBF#loom-bench 1\n#gpu=NVIDIA H200\ncase_id,family,spec,impl,reps,event_median_us,"
                           "event_p10_us,event_p90_us\n1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,7,1,1,1\n";
  EXPECT_EQ(parse_case_list(text, "bom.csv").cases.size(), 1u);
  std::string dup = text;
  dup.replace(dup.find("impl,reps"), 9, "impl,spec");
  const InputError e = error_of([&] { parse_case_list(dup, "dup.csv"); });
  EXPECT_EQ(e.where(), "dup.csv:3");
  EXPECT_IN(e.detail(), "duplicate column 'spec'");
}

TEST(GzipCap, InflationBeyondTheCapIsRefused) {
  // 8 MiB of newlines compress to a few KB; with a 1 MiB cap both readers refuse them.
  const loom::test::ScratchDir scratch;
  const std::string path = scratch.file("bomb.gz");
  trace_io::write_text(path, std::string(size_t(8) << 20, '\n'));
  ASSERT_LT(fs::file_size(path), size_t(1) << 20);
  InputError e = error_of([&] { trace_io::read_all(path, size_t(1) << 20); });
  EXPECT_IN(e.detail(), "after gzip decompression");
  e = error_of([&] {
    auto r = trace_io::LineReader::open_file(path, size_t(1) << 20);
    for (std::string line; r.next(line);) {
    }
  });
  EXPECT_IN(e.detail(), "more than 1048576 bytes (after gzip decompression)");
  EXPECT_EQ(trace_io::read_all(path).size(), size_t(8) << 20);  // the default 2 GiB cap lets it through
}

TEST(WriteFile, FullDeviceAndMissingFolderAreInputErrors) {
  if (fs::exists("/dev/full")) EXPECT_IN(error_of([] { write_file("/dev/full", "x"); }).detail(), "write failed");
  const InputError e = error_of([] { write_file("/nonexistent-loom-dir/x.txt", "x"); });
  EXPECT_EQ(e.where(), "/nonexistent-loom-dir/x.txt");
  EXPECT_IN(e.detail(), "write failed: No such file or directory");
}

}  // namespace
}  // namespace loom
