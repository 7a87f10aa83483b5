// .lct / .cases.csv / corpus readers: good files, and every bad-input case (truncated, corrupted, unknown version,
// missing header, gzip damage) must be an InputError naming FILE:LINE, or a counted skip when lenient.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>

#include "core/error.h"
#include "input_error_util.h"
#include "trace/trace.h"
#include "trace_test_util.h"

namespace loom {
namespace {

const char* kLct =
    "#loom-cupti 1\n"
    "#gpu=NVIDIA H200\n"
    "#sms=132\n"
    "#pid=42\n"
    "R\t100\t900\t1\tloom.case=3\n"
    "K\t200\t300\t0\t1\t7\t11\t0\t66\t1\t1\t384\t1\t1\t168\t1024\t200000\tnvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_"
    "NNT\n"
    "C\t400\t500\t0\t7\t12\t4096\t1\n"
    "S\t510\t520\t0\t7\t13\t64\n"
    "#end records=4 dropped=2\n";

TEST(TraceReader, LctRecordsAndMetadata) {
  LctTrace t = parse_lct(kLct, "a.lct");
  EXPECT_EQ(t.meta.at("gpu"), "NVIDIA H200");
  ASSERT_EQ(t.kernels.size(), 1u);
  const auto& k = t.kernels[0];
  EXPECT_EQ(k.start_ns, 200);
  EXPECT_EQ(k.end_ns, 300);
  EXPECT_EQ(k.correlation_id, 11);
  EXPECT_EQ(k.grid[0], 66);
  EXPECT_EQ(k.block[0], 384);
  EXPECT_EQ(k.registers_per_thread, 168);
  EXPECT_EQ(k.dynamic_smem_bytes, 200000);
  EXPECT_DOUBLE_EQ(k.duration_us(), 0.1);
  ASSERT_EQ(t.memops.size(), 2u);
  EXPECT_FALSE(t.memops[0].is_memset);
  EXPECT_EQ(t.memops[0].bytes, 4096);
  EXPECT_TRUE(t.memops[1].is_memset);
  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(t.ranges[0].name, "loom.case=3");
  EXPECT_EQ(t.records, 4);
  EXPECT_EQ(t.dropped, 2);
}

TEST(TraceReader, LctTruncatedIsAnError) {
  std::string text = kLct;
  text = text.substr(0, text.find("#end"));
  expect_error([&] { parse_lct(text, "t.lct"); }, "t.lct:8", "truncated trace (no #end line)");
  // Lenient does not rescue a truncated trace: nothing from it is used.
  ReadOptions lenient;
  lenient.lenient = true;
  EXPECT_THROW(parse_lct(text, "t.lct", lenient), InputError);
}

TEST(TraceReader, LctCorruptedLineStrictAndLenient) {
  std::string text = kLct;
  text.insert(text.find("C\t"), "K\t1\t2\t3\n");  // wrong field count, line 7
  expect_error([&] { parse_lct(text, "c.lct"); }, "c.lct:7", "has 4 fields, expected 18");
  // The #end count includes the bad line.
  text.replace(text.find("records=4"), 9, "records=5");
  ReadOptions lenient;
  lenient.lenient = true;
  LctTrace t = parse_lct(text, "c.lct", lenient);
  EXPECT_EQ(t.skipped_records, 1);
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_NE(t.messages[0].find("c.lct:7"), std::string::npos);
  EXPECT_EQ(t.kernels.size(), 1u);
}

TEST(TraceReader, LctNonNumericAndNegativeFields) {
  std::string text = kLct;
  text.replace(text.find("\t168\t"), 5, "\tabc\t");
  expect_error([&] { parse_lct(text, "n.lct"); }, "n.lct:6", "field 15 ('abc') is not a non-negative integer");
  std::string neg = kLct;
  neg.replace(neg.find("R\t100"), 5, "R\t-100");
  expect_error([&] { parse_lct(neg, "n.lct"); }, "n.lct:5", "not a non-negative integer");
  std::string backwards = kLct;
  backwards.replace(backwards.find("K\t200\t300"), 9, "K\t300\t200");
  expect_error([&] { parse_lct(backwards, "n.lct"); }, "n.lct:6", "kernel ends before it starts");
}

TEST(TraceReader, LctHeaderVersionAndEndProblems) {
  std::string v2 = kLct;
  v2.replace(0, 13, "#loom-cupti 2");
  expect_error([&] { parse_lct(v2, "v.lct"); }, "v.lct:1", "unknown schema version");
  expect_error([&] { parse_lct("K\t1\t2\n", "h.lct"); }, "h.lct:1", "missing header");
  expect_error([&] { parse_lct("", "e.lct"); }, "e.lct:1", "empty file");
  std::string count = kLct;
  count.replace(count.find("records=4"), 9, "records=9");
  expect_error([&] { parse_lct(count, "n.lct"); }, "n.lct:9", "'#end' says 9 records but the file holds 4");
  std::string bad_end = kLct;
  bad_end.replace(bad_end.find("#end records=4 dropped=2"), 24, "#end records=4");
  expect_error([&] { parse_lct(bad_end, "n.lct"); }, "n.lct:9", "malformed end line");
  expect_error([&] { parse_lct(std::string(kLct) + "K\t1\n", "n.lct"); }, "n.lct:10", "data after the '#end' line");
  std::string unknown = kLct;
  unknown.insert(unknown.find("C\t"), "X\t1\n");
  expect_error([&] { parse_lct(unknown, "u.lct"); }, "u.lct:7", "unknown record type 'X'");
}

TEST(TraceReader, LctFromGzipAndPlainFiles) {
  std::string dir = test::temp_dir("reader");
  LctTrace a = read_lct(test::write_file(dir + "/a.lct", kLct));
  LctTrace b = read_lct(test::write_file(dir + "/b.lct.gz", kLct));
  EXPECT_EQ(a.kernels.size(), 1u);
  EXPECT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(b.kernels[0].name, a.kernels[0].name);
  // A gzip file cut in half: a read error or a truncated trace, never a crash.
  std::string big = "#loom-cupti 1\n";
  for (int i = 0; i < 20000; ++i) big += "R\t" + std::to_string(i) + "\t" + std::to_string(i + 1) + "\t1\tloom.rep\n";
  big += "#end records=20000 dropped=0\n";
  test::write_file(dir + "/c.lct.gz", big);
  std::string gz;
  {
    std::ifstream in(dir + "/c.lct.gz", std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  test::write_file(dir + "/d.lct", gz.substr(0, gz.size() / 2));
  std::rename((dir + "/d.lct").c_str(), (dir + "/d.lct.gz").c_str());
  EXPECT_THROW(read_lct(dir + "/d.lct.gz"), InputError);
  expect_error([&] { read_lct(dir + "/missing.lct"); }, dir + "/missing.lct", "cannot open");
}

const char* kCases =
    "#loom-bench 1\n"
    "#gpu=NVIDIA H200\n"
    "#sms=132\n"
    "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n"
    "1,gemm,gemm m=64 n=64 k=64 dtype=bf16,cublaslt,7,3.5,3.4,3.9\n"
    "2,gemm,\"gemm m=1 n=2 k=3 dtype=bf16 config=a,b\",loom,7,,,\n";

TEST(TraceReader, CaseListGoodAndQuoted) {
  CaseList cl = parse_case_list(kCases, "x.cases.csv");
  EXPECT_EQ(cl.meta.at("sms"), "132");
  ASSERT_EQ(cl.cases.size(), 2u);
  EXPECT_EQ(cl.cases[0].spec, "gemm m=64 n=64 k=64 dtype=bf16");
  EXPECT_DOUBLE_EQ(cl.cases[0].event_median_us, 3.5);
  EXPECT_EQ(cl.cases[1].spec, "gemm m=1 n=2 k=3 dtype=bf16 config=a,b");
  EXPECT_TRUE(std::isnan(cl.cases[1].event_median_us));
}

TEST(TraceReader, CaseListErrors) {
  std::string v = kCases;
  v.replace(0, 13, "#loom-bench 7");
  expect_error([&] { parse_case_list(v, "x.csv"); }, "x.csv:1", "unknown schema version");
  expect_error([&] { parse_case_list("case_id,family\n", "x.csv"); }, "x.csv:1", "missing header");
  std::string nocol = kCases;
  nocol.replace(nocol.find("impl,"), 5, "");
  expect_error([&] { parse_case_list(nocol, "x.csv"); }, "x.csv:4", "CSV header lacks column 'impl'");
  expect_error([&] { parse_case_list(std::string(kCases) + "1,gemm,s,i,7,1,1,1\n", "x.csv"); }, "x.csv:7",
               "duplicate case_id 1");
  expect_error([&] { parse_case_list(std::string(kCases) + "3,gemm,s,i,seven,1,1,1\n", "x.csv"); }, "x.csv:7",
               "reps 'seven' is not an integer");
  expect_error([&] { parse_case_list(std::string(kCases) + "3,gemm,s\n", "x.csv"); }, "x.csv:7",
               "row has 3 fields, header has 8");
  expect_error([&] { parse_case_list(std::string(kCases) + "3,gemm,\"s,i,7,1,1,1\n", "x.csv"); }, "x.csv:7",
               "unterminated quote");
  expect_error([&] { parse_case_list(std::string(kCases) + "3,gemm,gemm m=0 n=8 k=8,i,7,1,1,1\n", "x.csv"); },
               "x.csv:7", "m=0 must be > 0");
  expect_error([&] { parse_case_list(std::string(kCases) + "3,gemm,gemm m=8 n=8 k=-2,i,7,1,1,1\n", "x.csv"); },
               "x.csv:7", "k=-2 must be > 0");
  ReadOptions lenient;
  lenient.lenient = true;
  CaseList cl = parse_case_list(std::string(kCases) + "3,gemm,s\n4,gemm,s,i,7,1,1,1\n", "x.csv", lenient);
  EXPECT_EQ(cl.cases.size(), 3u);
  EXPECT_EQ(cl.skipped_records, 1);
  expect_error([&] { parse_case_list("#loom-bench 1\n#gpu=x\n", "x.csv"); }, "x.csv:2", "no CSV header line");
}

TEST(TraceReader, CorpusRoundTripPlainAndGzip) {
  Corpus co;
  co.gpu = "NVIDIA H200";
  co.gpu_key = "h200";
  co.sms = 16;
  co.clock_mhz = 1980;
  co.meta["command"] = "loom-bench --sms 16";
  CorpusRow r;
  r.case_id = 5;
  r.family = "gemm";
  r.spec = "gemm m=128 n=256 k=64 dtype=bf16";
  r.impl = "cublaslt";
  r.kernels = "void loom_gemm_tiled<128, 128, 32, 3, 4>(float*, int);cublasLt::splitKreduce_kernel()";
  r.grid = {66, 2, 1};
  r.block = {384, 1, 1};
  r.regs = 168;
  r.smem_bytes = 201024;
  r.reps = 7;
  r.median_us = 12.25;
  r.p10_us = 12.0;
  r.p90_us = 13.5;
  r.spread_pct = 100 * 1.5 / 12.25;
  r.event_median_us = std::nan("");
  co.rows = {r, r};
  co.rows[1].case_id = 6;
  co.rows[1].event_median_us = 12.5;
  std::string dir = test::temp_dir("corpus");
  for (std::string name : {"/x.corpus.csv", "/y.corpus.csv.gz"}) {
    write_corpus(co, dir + name);
    Corpus back = read_corpus(dir + name);
    EXPECT_EQ(back.gpu, "NVIDIA H200");
    EXPECT_EQ(back.gpu_key, "h200");
    EXPECT_EQ(back.sms, 16);
    EXPECT_DOUBLE_EQ(back.clock_mhz, 1980);
    EXPECT_EQ(back.meta.at("command"), "loom-bench --sms 16");
    ASSERT_EQ(back.rows.size(), 2u);
    const auto& b = back.rows[0];
    EXPECT_EQ(b.kernels, r.kernels);
    EXPECT_EQ(b.spec, r.spec);
    EXPECT_EQ(b.grid, r.grid);
    EXPECT_EQ(b.block, r.block);
    EXPECT_EQ(b.regs, 168);
    EXPECT_EQ(b.smem_bytes, 201024);
    EXPECT_DOUBLE_EQ(b.median_us, 12.25);
    EXPECT_NEAR(b.spread_pct, r.spread_pct, 1e-5);
    EXPECT_TRUE(std::isnan(b.event_median_us));
    EXPECT_DOUBLE_EQ(back.rows[1].event_median_us, 12.5);
  }
  auto files = find_corpus_files(dir);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(read_corpus_dir(dir).size(), 2u);
}

TEST(TraceReader, CorpusBadRows) {
  std::string dir = test::temp_dir("corpus_bad");
  Corpus co;
  co.gpu = "NVIDIA H200";
  CorpusRow r;
  r.family = "gemm";
  r.reps = 3;
  r.median_us = 1;
  r.p10_us = 0.5, r.p90_us = 2, r.event_median_us = 1.5;  // the reader checks p10 <= median <= p90
  co.rows = {r};
  std::string text = format_corpus(co);
  std::string bad_grid = text;
  bad_grid.replace(bad_grid.find("0:0:0"), 5, "0:0");
  expect_error([&] { parse_corpus(bad_grid, "c.csv"); }, "c.csv:5", "grid '0:0' is not x:y:z");
  std::string zero = text;
  zero.replace(zero.rfind(",1,"), 3, ",0,");
  expect_error([&] { parse_corpus(zero, "c.csv"); }, "c.csv:5", "median_us must be > 0");
  expect_error([&] { read_corpus_dir(dir + "/nope"); }, dir + "/nope", "not a directory");
}

}  // namespace
}  // namespace loom
