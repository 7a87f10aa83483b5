// Hardening, round 4 (issue 17): measured event times in case lists and corpora are range-checked, unused but
// nonsensical config.json fields are refused, control characters made by YAML escapes are refused, and duplicate
// JSON keys in Chrome traces and tune tables are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/strict_yaml.h"
#include "e2e/model_config.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "scratch_dir.h"
#include "trace/chrome_trace.h"
#include "trace/text_io.h"
#include "trace/trace.h"
#include "wave/tables.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

const std::string kCaseHead =
    "#loom-bench 1\n#gpu=NVIDIA H200\ncase_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n";

TEST(StrictCases, EventTimesAreFinitePlausibleAndOrdered) {
  EXPECT_EQ(parse_case_list(kCaseHead + "1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,7,2,1,3\n", "ok.csv").cases.size(),
            1u);
  // Empty = not recorded: accepted, read as NaN.
  EXPECT_TRUE(std::isnan(parse_case_list(kCaseHead + "1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,7,,,\n", "e.csv")
                             .cases[0].event_median_us));
  for (const auto& [row, what] : {std::pair{"7,nan,1,3", "event_median_us 'nan' is not a number"},
                                  std::pair{"7,inf,1,3", "event_median_us 'inf' is not a number"},
                                  std::pair{"7,-5,1,3", "not a plausible duration"},
                                  std::pair{"7,0,1,3", "not a plausible duration"},
                                  std::pair{"7,1e300,1,3", "not a plausible duration"},
                                  std::pair{"7,2,nan,3", "event_p10_us"},
                                  std::pair{"7,2,5,3", "event_p10_us <= event_median_us <= event_p90_us"},
                                  std::pair{"7,2,1,1.5", "event_p10_us <= event_median_us <= event_p90_us"},
                                  std::pair{"0,2,1,3", "reps 0 must be >= 1"}}) {
    const InputError e =
        error_of([&] {
          parse_case_list(kCaseHead + "1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom," + row + "\n", "c.csv");
        });
    EXPECT_EQ(e.where(), "c.csv:4") << row;
    EXPECT_IN(e.detail(), what);
  }
}

TEST(StrictCases, CorpusSpreadIsOrdered) {
  const std::string head =
      "#loom-corpus 1\ncase_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,"
      "spread_pct,event_median_us\n";
  const std::string good = "1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,k,1:1:1,128:1:1,32,0,5,2,1,3,10,2\n";
  EXPECT_EQ(parse_corpus(head + good, "ok.csv").rows.size(), 1u);
  for (const auto& [row, what] :
       {std::pair{"1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,k,1:1:1,128:1:1,32,0,5,2,3,4,10,2", "p10_us <= median_us"},
        std::pair{"1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,k,1:1:1,128:1:1,32,0,5,2,1,3,-1,2", "spread_pct"},
        std::pair{"1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,k,1:1:1,128:1:1,-32,0,5,2,1,3,10,2", "regs"},
        std::pair{"1,gemm,gemm m=8 n=8 k=8 dtype=bf16,loom,k,1:1:1,128:1:1,32,0,5,2,1,3,10,nan", "event_median_us"}}) {
    const InputError e = error_of([&] { parse_corpus(head + row + "\n", "c.csv"); });
    EXPECT_EQ(e.where(), "c.csv:3") << row;
    EXPECT_IN(e.detail(), what);
  }
}

const std::string kConfig = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
  "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 1000)";

TEST(StrictModelConfig, UnusedFieldsMustMakeSense) {
  EXPECT_EQ(parse_model_config(kConfig + R"(, "hidden_act": "gelu_pytorch_tanh", "rope_theta": 500000.0,
      "rms_norm_eps": 1e-5, "rope_scaling": null, "sliding_window": null, "attention_dropout": 0.0})", "c.json").layers,
            2);
  for (const auto& [extra, key] : {std::pair{R"("hidden_act": "swishy")", "hidden_act"},
                                   std::pair{R"("hidden_act": 3)", "hidden_act"},
                                   std::pair{R"("rope_theta": 0)", "rope_theta"},
                                   std::pair{R"("rope_theta": -10000.0)", "rope_theta"},
                                   std::pair{R"("rope_theta": "1e4")", "rope_theta"},
                                   std::pair{R"("rms_norm_eps": 0)", "rms_norm_eps"},
                                   std::pair{R"("rms_norm_eps": 2)", "rms_norm_eps"},
                                   std::pair{R"("rope_scaling": 8)", "rope_scaling"},
                                   std::pair{R"("sliding_window": 0)", "sliding_window"},
                                   std::pair{R"("attention_dropout": 1.5)", "attention_dropout"}}) {
    const InputError e = error_of([&] { parse_model_config(kConfig + ",\n  " + extra + "}", "c.json"); });
    EXPECT_EQ(e.where(), "c.json:3") << extra;
    EXPECT_IN(e.detail(), key);
  }
}

TEST(StrictYaml, EscapedControlCharactersAreRefused) {
  EXPECT_EQ(load_one_yaml("name: \"tab\\there\"\n", "f.yaml")["name"].as<std::string>(), "tab\there");
  for (const char* text : {"a: 1\nname: \"ab\\x1b[31m\"\n", "a: 1\nname: \"two\\nlines\"\n", "a: 1\nname: \"c\\0\"\n",
                           "a: 1\n\"k\\x07\": 2\n"}) {
    const InputError e = error_of([&] { load_one_yaml(text, "f.yaml"); });
    EXPECT_EQ(e.where(), "f.yaml:2") << text;
    EXPECT_IN(e.detail(), "control character");
  }
}

TEST(StrictJson, DuplicateKeysInChromeTracesAndTuneTables) {
  const std::string ok = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 3}]})";
  EXPECT_EQ(parse_chrome_trace(ok, "t.json").kernels.size(), 1u);
  // The same key in two different objects is fine; twice in one object is not.
  EXPECT_EQ(parse_chrome_trace(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "ts": 0, "dur": 3},
    {"ph": "X", "cat": "kernel", "name": "b", "ts": 5, "dur": 3}]})", "t.json").kernels.size(), 2u);
  InputError e = error_of([&] {
    parse_chrome_trace("{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 0, "
                       "\"dur\": 3, \"dur\": 5}]}", "t.json");
  });
  EXPECT_EQ(e.where(), "t.json:2");
  EXPECT_IN(e.detail(), "duplicate key 'dur'");
  const loom::test::ScratchDir scratch;
  const std::string path = scratch.file("dup_tables.json");
  std::ofstream(path) << "{\"gpu\": \"h200\",\n \"gpu\": \"h100-sxm\"}\n";
  e = error_of([&] { wave::load_tables(path, "h200", "gemm"); });
  EXPECT_EQ(e.where(), path + ":2");
  EXPECT_IN(e.detail(), "duplicate key 'gpu'");
}

TEST(StrictOutputs, NoWriterTruncatesAFileReadAsInput) {
  const loom::test::ScratchDir scratch;
  const fs::path& dir = scratch.path();
  const std::string in = (dir / "in.json").string(), other = (dir / "out.json").string();
  std::ofstream(in) << "{}\n";
  fs::create_symlink(in, dir / "link.json");
  track_input_files(true);  // as the CLI's main does
  write_file(in, "{}\n");   // not read yet: an output like any other
  check_input_file(in);      // now an input of this process
  for (const std::string& path : {in, (dir / "link.json").string(), (dir / "." / "in.json").string()}) {
    const InputError e = error_of([&] { write_file(path, "x"); });
    EXPECT_EQ(e.where(), path);
    EXPECT_IN(e.detail(), "is also an input of this command");
    EXPECT_IN(error_of([&] { trace_io::write_text(path, "x"); }).detail(), "is also an input");
    EXPECT_IN(error_of([&] { check_output_file(path); }).detail(), "is also an input");
  }
  std::ifstream back(in);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(back), {}), "{}\n");  // untouched
  write_file(other, "ok\n");  // any other file is written
  EXPECT_TRUE(fs::exists(other));
  track_input_files(false);  // off (the library default): the same write goes through
  EXPECT_NO_THROW(write_file(in, "{}\n"));
}

TEST(StrictCatalog, KeysTheCommandLineCannotNameAreRefused) {
  const loom::test::ScratchDir scratch;
  const fs::path dir = scratch.path() / "gpus";
  for (const char* name : {"all", "a,b", "x:y", "k=v", "-dash", "sp ace"}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "ok-1.yaml") << "name: ok\n";
    std::ofstream(dir / (std::string(name) + ".yaml")) << "name: bad\n";
    const InputError e = error_of([&] { Catalog::load(dir.string()); });
    EXPECT_EQ(e.where(), (dir / (std::string(name) + ".yaml")).string());
    EXPECT_IN(e.detail(), "cannot be a catalogue key");
  }
}

}  // namespace
}  // namespace loom
