// Corpus schema version 2 (kernel-name dictionary, FORMAT.md section 3): good files read as the same rows as
// version 1, every bad dictionary or reference is an InputError naming FILE:LINE (or a skipped row when lenient),
// the writer's round trip, and the version 1 text the corpus hash is taken over.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "input_error_util.h"
#include "trace/trace.h"

namespace loom {
namespace {

const std::string kHeader =
    "case_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,spread_pct,"
    "event_median_us\n";
const std::string kGemm = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x64_32x6_tn_align1>(Params)";
const std::string kReduce = "void cublasLt::splitKreduce_kernel<32, 16, int, float>(float const*, float*)";

std::string row(int id, const std::string& kernels) {
  return std::to_string(id) + ",gemm,gemm m=64 n=64 k=64 dtype=bf16,cublas," + kernels +
         ",1:2:3,128:1:1,168,1024,5,12.5,12,13.25,10,14\n";
}

// The same two rows as version 1 (names inline, quoted for their commas) and as version 2.
const std::string kV1 = "#loom-corpus 1\n#gpu=NVIDIA H200\n#gpu_key=h200\n#sms=132\n" + kHeader +
                        row(1, "\"" + kGemm + ";" + kReduce + "\"") + row(2, "\"" + kReduce + "\"") + row(3, "");
const std::string kV2 = "#loom-corpus 2\n#gpu=NVIDIA H200\n#gpu_key=h200\n#sms=132\n#kernel.1=" + kGemm +
                        "\n#kernel.2=" + kReduce + "\n" + kHeader + row(1, "@1;@2") + row(2, "@2") + row(3, "");


// kV2 with `from` replaced by `to` (the first occurrence).
std::string edit(const std::string& from, const std::string& to) {
  std::string s = kV2;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(CorpusV2, ReadsAsTheSameRowsAsVersion1) {
  const Corpus a = parse_corpus(kV1, "a.csv"), b = parse_corpus(kV2, "b.csv");
  ASSERT_EQ(b.rows.size(), 3u);
  EXPECT_EQ(b.rows[0].kernels, kGemm + ";" + kReduce);
  EXPECT_EQ(b.rows[1].kernels, kReduce);
  EXPECT_EQ(b.rows[2].kernels, "");
  EXPECT_EQ(b.meta.count("kernel.1"), 0u);  // dictionary lines are not metadata
  EXPECT_EQ(corpus_difference(a, b), "");
}

TEST(CorpusV2, WriterRoundTripAndVersion1Text) {
  const Corpus a = parse_corpus(kV1, "a.csv");
  const std::string v2 = format_corpus(a);
  EXPECT_EQ(v2.rfind("#loom-corpus 2\n", 0), 0u);
  EXPECT_NE(v2.find("\n#kernel.1=" + kGemm + "\n#kernel.2=" + kReduce + "\n" + kHeader), std::string::npos) << v2;
  EXPECT_NE(v2.find(",cublas,@1;@2,"), std::string::npos);
  EXPECT_EQ(corpus_difference(a, parse_corpus(v2, "v2.csv")), "");
  const std::string v1 = format_corpus(a, 1);
  EXPECT_EQ(v1.rfind("#loom-corpus 1\n", 0), 0u);
  EXPECT_EQ(v1.find("#kernel."), std::string::npos);
  EXPECT_EQ(corpus_difference(a, parse_corpus(v1, "v1.csv")), "");
  EXPECT_EQ(format_corpus(parse_corpus(v2, "v2.csv"), 1), v1);  // the corpus hash's text: same from either file
}

TEST(CorpusV2, WriterFallsBackToVersion1WhenNamesCannotBeInADictionary) {
  Corpus co = parse_corpus(kV1, "a.csv");
  co.rows[0].kernels = kGemm + ";;" + kReduce;  // an empty name
  EXPECT_EQ(format_corpus(co).rfind("#loom-corpus 1\n", 0), 0u);
  EXPECT_EQ(corpus_difference(co, parse_corpus(format_corpus(co), "x.csv")), "");
  co = parse_corpus(kV1, "a.csv");
  co.meta["kernel.7"] = "x";  // would read back as a dictionary line
  EXPECT_EQ(format_corpus(co).rfind("#loom-corpus 1\n", 0), 0u);
  EXPECT_EQ(corpus_difference(co, parse_corpus(format_corpus(co), "x.csv")), "");
}

TEST(CorpusV2, Version1StillReadsKernelLinesAsMetadata) {
  const Corpus c = parse_corpus("#loom-corpus 1\n#kernel.1=x\n" + kHeader + row(1, "@1"), "a.csv");
  EXPECT_EQ(c.meta.at("kernel.1"), "x");
  EXPECT_EQ(c.rows.at(0).kernels, "@1");
}

TEST(CorpusV2, BadDictionaryLines) {
  // Line numbers: 1 version, 2-4 metadata, 5 and 6 the dictionary, 7 the header, 8-10 the rows.
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.1="), "c.csv"); }, "c.csv:6",
               "#kernel.1 is defined twice (first at line 5)");
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.x="), "c.csv"); }, "c.csv:6",
               "kernel id 'x' is not a positive integer");
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.02="), "c.csv"); }, "c.csv:6", "kernel id '02'");
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.0="), "c.csv"); }, "c.csv:6", "kernel id '0'");
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.-2="), "c.csv"); }, "c.csv:6", "kernel id '-2'");
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.=2="), "c.csv"); }, "c.csv:6", "kernel id ''");
  expect_error([] { parse_corpus(edit("#kernel.2=", "#kernel.1234567890="), "c.csv"); }, "c.csv:6", "at most 9 digits");
  expect_error([] { parse_corpus(edit("#kernel.2=" + kReduce, "#kernel.2"), "c.csv"); }, "c.csv:6", "without '='");
  expect_error([] { parse_corpus(edit("#kernel.2=" + kReduce, "#kernel.2="), "c.csv"); }, "c.csv:6",
               "#kernel.2 has an empty name");
  expect_error([] { parse_corpus(edit("#kernel.2=" + kReduce, "#kernel.2=a;b"), "c.csv"); }, "c.csv:6", "holding ';'");
  expect_error([] { parse_corpus(edit("#kernel.2=" + kReduce, "#kernel.2=a\tb"), "c.csv"); }, "c.csv:6",
               "control character");
  expect_error([] { parse_corpus(edit("#kernel.2=" + kReduce, "#kernel.2=" + kGemm), "c.csv"); }, "c.csv:6",
               "#kernel.2 repeats the name of #kernel.1 (line 5)");
  // A dictionary line after the header, in strict and lenient reads.
  for (bool lenient : {false, true}) {
    ReadOptions o;
    o.lenient = lenient;
    expect_error([&] { parse_corpus(kV2 + "#kernel.3=late\n", "c.csv", o); }, "c.csv:11",
                 "kernel dictionary line after the CSV header");
  }
  // An id no row uses: strict reads only (a lenient read may have skipped its rows).
  const std::string unused = edit("#kernel.2=", "#kernel.9=unused\n#kernel.2=");
  expect_error([&] { parse_corpus(unused, "c.csv"); }, "c.csv:6", "#kernel.9 is defined but no row references it");
  ReadOptions lenient;
  lenient.lenient = true;
  EXPECT_EQ(parse_corpus(unused, "c.csv", lenient).rows.size(), 3u);
}

TEST(CorpusV2, BadReferences) {
  expect_error([] { parse_corpus(edit(",@2,", ",@3,"), "c.csv"); }, "c.csv:9",
               "kernels reference @3: no #kernel.3 line defines it");
  expect_error([] { parse_corpus(edit(",@2,", ",@02,"), "c.csv"); }, "c.csv:9",
               "kernels reference '@02' is not '@' and a positive integer");
  expect_error([] { parse_corpus(edit(",@2,", ",@,"), "c.csv"); }, "c.csv:9", "kernels reference '@'");
  expect_error([] { parse_corpus(edit(",@2,", ",2,"), "c.csv"); }, "c.csv:9", "kernels element '2' is not a reference");
  expect_error([] { parse_corpus(edit(",@1;@2,", ",@1;;@2,"), "c.csv"); }, "c.csv:8",
               "kernels element '' is not a reference");
  expect_error([] { parse_corpus(edit(",@1;@2,", ",@1;,"), "c.csv"); }, "c.csv:8", "kernels element ''");
  expect_error([&] { parse_corpus(edit(",@2,", ",\"" + kReduce + "\","), "c.csv"); }, "c.csv:9",
               "is not a reference '@<id>'");
  // Lenient: the row is skipped, the others read (and kernel.2, still used by row 1, is not reported).
  ReadOptions lenient;
  lenient.lenient = true;
  const Corpus c = parse_corpus(edit(",@2,", ",@3,"), "c.csv", lenient);
  EXPECT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.skipped_records, 1);
}

TEST(CorpusV2, UnknownVersion) {
  expect_error([] { parse_corpus("#loom-corpus 3\n" + kHeader, "c.csv"); }, "c.csv:1",
               "this loom reads '#loom-corpus 1' or '#loom-corpus 2'");
  expect_error([] { parse_case_list("#loom-bench 2\n", "c.cases.csv"); }, "c.cases.csv:1",
               "this loom reads '#loom-bench 1':");
}

TEST(CorpusV2, DifferenceNamesTheField) {
  const Corpus a = parse_corpus(kV2, "a.csv");
  Corpus b = a;
  b.rows[1].median_us = std::nextafter(b.rows[1].median_us, 100.0);
  EXPECT_NE(corpus_difference(a, b).find("row 2 (case_id 2): median_us: 12.5 vs 12.500000000000002"), std::string::npos)
      << corpus_difference(a, b);
  b = a;
  b.rows[2].event_median_us = std::nan("");
  EXPECT_NE(corpus_difference(a, b).find("event_median_us"), std::string::npos);
  b = a;
  b.meta["flush"] = "read";
  EXPECT_EQ(corpus_difference(a, b), "metadata 'flush' only in the second");
}

}  // namespace
}  // namespace loom
