// Hardening, round 11 (issue 17): the metadata `trace import` carries into a corpus. A case list's or a collector
// trace's `#sms=` / `#clock_mhz=` is checked as the corpus's is, a .lct's key may not repeat, and the case lists of one
// import must agree on the clock and timing resolution and may not read one trace's case twice.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "e2e/memory.h"
#include "e2e/model_config.h"
#include "e2e/op_graph.h"
#include "e2e/profile.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "trace/gpu_names.h"
#include "trace/import.h"
#include "trace/trace.h"

namespace loom {
namespace {

std::string lct_with(const std::string& meta) {
  return "#loom-cupti 1\n#gpu=NVIDIA H200\n" + meta + "#end records=0 dropped=0\n";
}

std::string cases_with(const std::string& meta) {
  return "#loom-bench 1\n#gpu=NVIDIA H200\n" + meta +
         "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n"
         "7,gemm,gemm m=64 n=64 k=64 dtype=bf16,cublaslt,3,1.3,1.2,1.5\n";
}

TEST(LctMeta, SmsAndClockAreCheckedAsInACorpus) {
  for (const char* bad :
       {"#sms=abc\n", "#sms=-0\n", "#sms=-3\n", "#sms=1e9\n", "#sms=5000\n", "#sms=16.5\n", "#sms=\n"})
    expect_error([&] { parse_lct(lct_with(bad), "t.lct"); }, "t.lct:3", "is not an SM count");
  for (const char* bad : {"#clock_mhz=nan\n", "#clock_mhz=0.5\n", "#clock_mhz=-1\n", "#clock_mhz=99999\n",
                          "#clock_mhz=inf\n", "#clock_mhz=fast\n"})
    expect_error([&] { parse_lct(lct_with(bad), "t.lct"); }, "t.lct:3", "is not a clock in MHz");
  const LctTrace ok = parse_lct(lct_with("#sms=16\n#clock_mhz=1500\n#cc=90\n"), "t.lct");
  EXPECT_EQ(ok.meta.at("sms"), "16");
  EXPECT_EQ(ok.meta.at("clock_mhz"), "1500");
  // 0 is what the collector writes when its device query failed: not recorded
  EXPECT_EQ(parse_lct(lct_with("#sms=0\n#clock_mhz=0\n"), "t.lct").meta.at("sms"), "0");
}

TEST(LctMeta, KeyTwiceIsRefusedNamingBothLines) {
  expect_error([] { parse_lct(lct_with("#sms=132\n#pid=1\n#sms=16\n"), "t.lct"); }, "t.lct:5",
               "metadata '#sms=' is given twice (first at t.lct:3)");
  expect_error([] { parse_lct(lct_with("#gpu=NVIDIA H200\n"), "t.lct"); }, "t.lct:3", "'#gpu=' is given twice");
  expect_error([] { parse_lct(lct_with("#pid=1\n#pid=1\n"), "t.lct"); }, "t.lct:4", "given twice");  // one value too
  // a lenient read skips bad records, not bad metadata
  ReadOptions lenient;
  lenient.lenient = true;
  EXPECT_THROW(parse_lct(lct_with("#command=a\n#command=b\n"), "t.lct", lenient), InputError);
}

TEST(CaseListMeta, SmsClockAndResolutionAreChecked) {
  expect_error([] { parse_case_list(cases_with("#sms=abc\n"), "a.csv"); }, "a.csv:3", "is not an SM count");
  expect_error([] { parse_case_list(cases_with("#sms=4097\n"), "a.csv"); }, "a.csv:3", "is not an SM count");
  expect_error([] { parse_case_list(cases_with("#clock_mhz=nan\n"), "a.csv"); }, "a.csv:3", "is not a clock in MHz");
  expect_error([] { parse_case_list(cases_with("#resolution_us=0\n"), "a.csv"); }, "a.csv:3", "timing resolution");
  EXPECT_EQ(parse_case_list(cases_with("#sms=16\n#clock_mhz=1980\n#sms_total=132\n"), "a.csv").cases.size(), 1u);
}

// One trace whose case 7 has one rep of one kernel; two case lists joined to it.
const std::string kBody = "R\t1000\t100000\t1\tloom.case=7\nR\t2000\t10000\t1\tloom.rep\n"
                          "K\t2100\t3100\t0\t1\t7\t99\t0\t66\t1\t1\t384\t1\t1\t168\t1024\t200000\tk\n";

Corpus join_two(const std::string& meta_a, const std::string& meta_b,
                const std::string& lct_meta = "#clock_mhz=1980\n") {
  GpuNameTable gpus;
  gpus.add("NVIDIA H200", "h200");
  JoinStats st;
  const LctTrace t = parse_lct("#loom-cupti 1\n#gpu=NVIDIA H200\n#sms=132\n" + lct_meta + kBody +
                                   "#end records=3 dropped=0\n",
                               "t.lct");
  std::vector<CaseList> lists = {parse_case_list(cases_with(meta_a), "a.csv")};
  if (meta_b != "-") lists.push_back(parse_case_list(cases_with(meta_b), "b.csv"));
  return join_traces({t}, lists, gpus, st);
}

TEST(JoinMeta, CaseListsOfOneImportAgreeAndReadEachCaseOnce) {
  EXPECT_EQ(join_two("", "-").rows.size(), 1u);
  EXPECT_EQ(join_two("", "-").clock_mhz, 1980);  // the trace's clock where the list has none
  expect_error([] { join_two("", ""); }, "b.csv", "case 7 is also in a.csv, and both read it from t.lct");
  expect_error([] { join_two("", "#clock_mhz=1500\n"); }, "b.csv", "#clock_mhz=1500 differs from a.csv (1980)");
  expect_error([] { join_two("", "#resolution_us=1\n"); }, "b.csv", "#resolution_us=1 differs from a.csv (none)");
  expect_error([] { join_two("#resolution_us=1\n", ""); }, "b.csv", "#resolution_us=none differs from a.csv (1)");
}

TEST(JoinMeta, ZeroIsNotRecordedAndNeverWritten) {
  EXPECT_EQ(join_two("#clock_mhz=0\n", "-").clock_mhz, 1980);  // the trace's clock, not the list's 0
  const Corpus co = join_two("#clock_mhz=0\n#sms=0\n", "-", "#clock_mhz=0\n");
  EXPECT_EQ(co.clock_mhz, 0);
  EXPECT_EQ(co.sms, 132);
  const std::string text = format_corpus(co, 2);
  EXPECT_EQ(text.find("#clock_mhz="), std::string::npos);
  EXPECT_EQ(parse_corpus(text, "c.csv").rows.size(), 1u);  // what import writes reads back
}

// A TP degree beyond an (edited) node was refused by the first all-reduce's shape check, naming the model file.
TEST(NodeTp, DegreeBeyondTheNodeIsABadTp) {
  GpuSpec gpu = Catalog::load().get("h200");
  gpu.gpus_per_node = 4;
  const ModelConfig m = load_model("llama-3-8b");
  const ServingProfile p = load_profile("vllm");
  expect_error([&] { memory_fit(gpu, m, p, decode_workload(8, {1024}, 8)); }, "--tp",
               "tensor-parallel degree 8 exceeds the 4 GPUs of one 'h200' node");
  EXPECT_TRUE(memory_fit(gpu, m, p, decode_workload(8, {1024}, 4)).fits);
}

}  // namespace
}  // namespace loom
