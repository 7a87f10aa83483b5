// Hardening, round 5 (issue 17): YAML tags, CR-only line ends, named pipes, one GPU under two names, NaN in unused
// NeuSight columns, far-future synthetic arrivals, non-negative fields' message, sliding_window, rope_scaling.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "core/strict_yaml.h"
#include "core/units.h"
#include "e2e/model_config.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "kernels/kernel_spec.h"
#include "serving/requests.h"
#include "trace/import_public.h"
#include "trace/text_io.h"
#include "scratch_dir.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

TEST(StrictYaml, TagsAreRefusedPlainValuesPass) {
  for (const char* text : {"sms: !!str 132\n", "sms: !!python/int 132\n", "sms: !mine 132\n", "d: !!map\n  a: 1\n"}) {
    const InputError e = error_of([&] { load_one_yaml(text, "t.yaml"); });
    EXPECT_IN(e.what(), "YAML tag");
    EXPECT_IN(e.where(), "t.yaml:");
  }
  EXPECT_NO_THROW(load_one_yaml("a: 1\nb: 'x'\nc: \"y\"\nd: &x {e: 2}\nf: *x\n", "ok.yaml"));
}

TEST(CrLineEnds, EveryLineReaderRefusesClassicMacFiles) {
  EXPECT_NO_THROW(refuse_cr_line_ends("a,b\r", "f:1"));  // CRLF: the reader drops the '\r'
  EXPECT_IN(error_of([] { refuse_cr_line_ends("a,b\r1,2", "f:1"); }).what(), "CR-only");
  EXPECT_IN(error_of([] { serving::parse_requests("arrival_s,prompt_tokens,output_tokens\r0,1,1\r", "r.csv", false); })
                .what(),
            "CR-only");
  auto r = trace_io::LineReader::from_text("x,y\r1,2\r", "t.csv");
  std::string line;
  EXPECT_IN(error_of([&] { r.next(line); }).what(), "t.csv:1");
}

TEST(InputFiles, NamedPipeIsRefusedNotWaitedOn) {
  const test::ScratchDir scratch;
  const std::string fifo = scratch.file("input.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_IN(error_of([&] { check_input_file(fifo); }).what(), "named pipe");
  EXPECT_IN(error_of([&] { write_file(fifo, "x"); }).what(), "named pipe");  // no reader: open() would wait too
  EXPECT_IN(error_of([&] { check_output_file(fifo); }).what(), "named pipe");
  EXPECT_IN(error_of([&] { trace_io::write_text(fifo, "x"); }).what(), "named pipe");
}

TEST(Catalog, FileOfIsOneSpellingPerGpu) {
  const Catalog c = Catalog::load();
  const std::string key = c.file_of("h200");
  EXPECT_EQ(c.file_of((fs::path(data_dir()) / "gpus" / "h200.yaml").string()), key);
  EXPECT_EQ(c.file_of((fs::path(data_dir()) / "gpus" / "." / "h200.yaml").string()), key);
  EXPECT_NE(c.file_of("h100-sxm"), key);
}

TEST(NeuSight, NonFiniteCellInAnyColumnIsRefusedByName) {
  const std::vector<std::string> hdr{"OPName", "Latency", "Warps per SM"};
  EXPECT_NO_THROW(public_io::refuse_non_finite({"ln", "0.5", "12"}, hdr, "n.csv:2"));
  for (const char* v : {"nan", "NaN", "inf", "-inf"}) {
    const InputError e = error_of([&] { public_io::refuse_non_finite({"ln", "0.5", v}, hdr, "n.csv:2"); });
    EXPECT_EQ(e.where(), "n.csv:2:Warps per SM") << v;
  }
}

TEST(Synthesize, ArrivalsBeyondTheRequestFilesLimitAreRefused) {
  const serving::LengthDist len;
  EXPECT_EQ(serving::synthesize(5, 2.0, {}, len, len, 1).size(), 5u);
  const InputError e = error_of([&] { serving::synthesize(5, 1e-300, {}, len, len, 1); });
  EXPECT_EQ(e.where(), "--rate");
  EXPECT_IN(e.detail(), "beyond 1e9 s");
}

TEST(Units, NonNegativeFieldsSayZeroIsAllowed) {
  EXPECT_IN(error_of([] { parse_quantity("-1us", UnitKind::time, "graph_gap", Sign::non_negative); }).detail(),
            ">= 0");
  EXPECT_IN(error_of([] { parse_quantity("-1us", UnitKind::time, "launch", Sign::positive); }).detail(),
            "greater than zero");
  EXPECT_EQ(parse_quantity("0us", UnitKind::time, "graph_gap", Sign::non_negative), 0.0);
}

TEST(KernelSpec, OnlyZeroOneKeysAreFlags) {
  for (const char* k : {"causal", "residual", "mask"}) EXPECT_TRUE(is_flag_key(k)) << k;
  for (const char* k : {"m", "batch", "heads", "dtype"}) EXPECT_FALSE(is_flag_key(k)) << k;
}

std::string llama_with(const std::string& extra) {
  return R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
             "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
             "max_position_embeddings": 8192)" + extra + "}";
}

TEST(ModelConfig, SlidingWindowIsNotedWhereASequencePassesIt) {
  const ModelConfig m = parse_model_config(llama_with(R"(, "sliding_window": 4096)"), "m.json");
  EXPECT_EQ(sliding_window_warning(m, 4096), "");
  EXPECT_IN(sliding_window_warning(m, 4097), "sliding_window (4096) is not modelled");
  const ModelConfig off =
      parse_model_config(llama_with(R"(, "sliding_window": 4096, "use_sliding_window": false)"), "m.json");
  EXPECT_EQ(sliding_window_warning(off, 100000), "");  // Qwen's switch: the window is not used
}

TEST(ModelConfig, RopeScalingInsidesAreChecked) {
  EXPECT_IN(error_of([] {
              parse_model_config(llama_with(R"(, "rope_scaling": {"rope_type": "llama3", "factor": null})"), "m.json");
            }).what(),
            "rope_scaling.factor");
  EXPECT_NO_THROW(
      parse_model_config(llama_with(R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8.0})"), "m.json"));
}

TEST(ModelConfig, DtypeAndTorchDtypeMustAgree) {
  EXPECT_IN(error_of([] {
              parse_model_config(llama_with(R"(, "torch_dtype": "bfloat16", "dtype": "float16")"), "m.json");
            }).what(),
            "disagree");
  EXPECT_EQ(parse_model_config(llama_with(R"(, "dtype": "float16")"), "m.json").dtype, Dtype::fp16);
  EXPECT_EQ(parse_model_config(llama_with(R"(, "torch_dtype": "float16", "dtype": "float16")"), "m.json").dtype,
            Dtype::fp16);
}

}  // namespace
}  // namespace loom
