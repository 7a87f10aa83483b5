// Corpus summary (counts per family x GPU x partition, noise floor, unmatched kernels, unknown GPUs) and .lct summary.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "trace/summary.h"
#include "trace_test_util.h"

namespace loom {
namespace {

CorpusRow row(const std::string& family, double spread, const std::string& kernels) {
  CorpusRow r;
  r.family = family;
  r.spec = family == "gemm" ? "gemm m=1 n=1 k=1 dtype=bf16" : family + " rows=1 cols=1 dtype=bf16";
  r.kernels = kernels;
  r.reps = 7;
  r.median_us = r.p10_us = r.p90_us = r.event_median_us = 10;  // the reader checks p10 <= median <= p90
  r.spread_pct = spread;
  return r;
}

Corpus corpus(const std::string& gpu, const std::string& key, int64_t sms, std::vector<CorpusRow> rows) {
  Corpus c;
  c.path = gpu + std::to_string(sms);
  c.gpu = gpu;
  c.gpu_key = key;
  c.sms = sms;
  c.rows = std::move(rows);
  return c;
}

const std::string kNvjet = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";

GpuNameTable table() {
  GpuNameTable t;
  t.add("NVIDIA H200", "h200");
  return t;
}

TEST(TraceSummary, CountsNoiseAndUnmatched) {
  std::vector<Corpus> cs = {
      corpus("NVIDIA H200", "h200", 132,
             {row("gemm", 2, kNvjet + ";cublasLt::splitKreduce_kernel()"), row("gemm", 4, kNvjet),
              row("rms_norm", 10, "my_fused_norm_kernel")}),
      corpus("NVIDIA H200", "", 16, {row("gemm", 6, kNvjet)}),  // gpu_key filled from the table
      corpus("NVIDIA Z9000", "", 132, {row("gemm", 1, kNvjet)}),  // unknown GPU: skipped, listed
  };
  TraceSummary s = summarize(cs, table());
  EXPECT_EQ(s.files, 2);
  EXPECT_EQ(s.total_cases, 4);
  ASSERT_EQ(s.counts.size(), 3u);  // sorted by (gpu_key, sms, family)
  EXPECT_EQ(s.counts[0].gpu_key, "h200");
  EXPECT_EQ(s.counts[0].sms, 16);
  EXPECT_EQ(s.counts[0].cases, 1);
  EXPECT_EQ(s.counts[1].family, "gemm");
  EXPECT_EQ(s.counts[1].sms, 132);
  EXPECT_EQ(s.counts[1].cases, 2);
  EXPECT_EQ(s.counts[2].family, "rms_norm");
  ASSERT_EQ(s.noise.size(), 2u);
  EXPECT_EQ(s.noise[0].family, "gemm");
  EXPECT_EQ(s.noise[0].cases, 3);
  EXPECT_DOUBLE_EQ(s.noise[0].median_spread_pct, 4);
  EXPECT_DOUBLE_EQ(s.noise[0].p90_spread_pct, 5.6);
  EXPECT_DOUBLE_EQ(s.noise[1].median_spread_pct, 10);
  EXPECT_EQ(s.kernels_total, 5);
  EXPECT_EQ(s.unmatched_kernels, 1);
  EXPECT_EQ(s.unmatched_names.at("my_fused_norm_kernel"), 1);
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].reason.find("unknown GPU 'NVIDIA Z9000'"), std::string::npos);
}

TEST(TraceSummary, DirectoryWithGoodAndBrokenFiles) {
  std::string dir = test::temp_dir("summary");
  std::filesystem::create_directories(dir + "/h200/sms132");
  write_corpus(corpus("NVIDIA H200", "h200", 132, {row("gemm", 2, kNvjet)}), dir + "/h200/sms132/a.corpus.csv.gz");
  write_corpus(corpus("NVIDIA H200", "h200", 16, {row("gemm", 3, kNvjet)}), dir + "/h200/b.corpus.csv");
  test::write_file(dir + "/h200/c.corpus.csv.gz", "#loom-corpus 9\n");
  test::write_file(dir + "/h200/notes.txt", "not a corpus");
  EXPECT_THROW(summarize_dir(dir, table()), InputError);
  ReadOptions lenient;
  lenient.lenient = true;
  TraceSummary s = summarize_dir(dir, table(), lenient);
  EXPECT_EQ(s.files, 2);
  EXPECT_EQ(s.total_cases, 2);
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].reason.find("unknown schema version"), std::string::npos);
}

TEST(TraceSummary, LctCounts) {
  std::string text =
      "#loom-cupti 1\n#gpu=NVIDIA H200\n"
      "R\t0\t100\t1\tloom.case=1\nR\t10\t50\t2\tloom.rep\n"
      "K\t11\t12\t0\t1\t7\t1\t0\t1\t1\t1\t32\t1\t1\t16\t0\t0\t_Z13loom_l2_flushPim\n"
      "K\t13\t40\t0\t1\t7\t2\t0\t66\t1\t1\t384\t1\t1\t168\t0\t0\t" + kNvjet + "\n"
      "K\t41\t42\t0\t1\t7\t3\t0\t1\t1\t1\t32\t1\t1\t16\t0\t0\tmystery\n"
      "C\t1\t2\t0\t7\t4\t64\t1\nS\t3\t4\t0\t7\t5\t64\n"
      "#end records=7 dropped=3\n";
  LctSummary s = summarize_lct(parse_lct(text, "x.lct"));
  EXPECT_EQ(s.records, 7);
  EXPECT_EQ(s.dropped, 3);
  EXPECT_EQ(s.kernels, 3);
  EXPECT_EQ(s.memcpys, 1);
  EXPECT_EQ(s.memsets, 1);
  EXPECT_EQ(s.case_ranges, 1);
  EXPECT_EQ(s.rep_ranges, 1);
  EXPECT_EQ(s.flush_kernels, 1);
  EXPECT_EQ(s.unmatched_kernels, 1);
  EXPECT_EQ(s.family_kernels.at("gemm"), 1);
}

TEST(TraceSummary, GpuNameTableFile) {
  GpuNameTable t = GpuNameTable::load_default();  // traces/gpu_names.tsv of the source tree
  EXPECT_EQ(t.key_for("NVIDIA H200").value_or(""), "h200");
  EXPECT_EQ(t.key_for("NVIDIA H100 80GB HBM3").value_or(""), "h100-sxm");
  EXPECT_EQ(t.key_for("nvidia  h200").value_or(""), "h200");
  EXPECT_FALSE(t.key_for("NVIDIA Z9000").has_value());
  std::string dir = test::temp_dir("gpunames");
  test::write_file(dir + "/bad.tsv", "# comment\nNVIDIA H200\n");
  try {
    GpuNameTable::load(dir + "/bad.tsv");
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), dir + "/bad.tsv:2");
  }
  test::write_file(dir + "/dup.tsv", "A\ta\nA\tb\n");
  EXPECT_THROW(GpuNameTable::load(dir + "/dup.tsv"), InputError);
}

}  // namespace
}  // namespace loom
