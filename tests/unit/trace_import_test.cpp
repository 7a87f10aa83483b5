// The join of .lct ranges/kernels with case lists: hand-checked rep sums, quantiles and spread; unmatched cases;
// flush kernels ignored; matching case lists to traces of several processes; import_run end to end.
#include <gtest/gtest.h>

#include "core/error.h"
#include "trace/import.h"
#include "trace_test_util.h"

namespace loom {
namespace {

// K record: start, end, grid_x, name (other fields fixed).
std::string K(int64_t s, int64_t e, int grid_x, const std::string& name) {
  return "K\t" + std::to_string(s) + "\t" + std::to_string(e) + "\t0\t1\t7\t99\t0\t" + std::to_string(grid_x) +
         "\t1\t1\t384\t1\t1\t168\t1024\t200000\t" + name + "\n";
}
std::string R(int64_t s, int64_t e, const std::string& name) {
  return "R\t" + std::to_string(s) + "\t" + std::to_string(e) + "\t1\t" + name + "\n";
}
std::string lct(const std::string& command, const std::string& body, int records) {
  return "#loom-cupti 1\n#gpu=NVIDIA H200\n#sms=132\n#clock_mhz=1980\n#command=" + command + "\n" + body +
         "#end records=" + std::to_string(records) + " dropped=0\n";
}

const std::string kGemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
const std::string kReduce = "_ZN8cublasLt19splitKreduce_kernelEv";  // cublasLt::splitKreduce_kernel()
const std::string kFlush = "_Z13loom_l2_flushPim";                   // loom_l2_flush(int*, unsigned long)

// Case 7: three reps of GEMM + split-K reduce: 1.0+0.2, 1.2+0.2, 0.9+0.2 us -> {1.2, 1.4, 1.1}.
// Case 8: one rep without kernels. Case 9: no range at all.
std::string sweep_body() {
  return R(1000, 100000, "loom.case=7") + K(1500, 1800, 10, kGemm) +  // warm-up: outside any rep
         R(2000, 10000, "loom.rep") + K(2010, 2090, 1000, kFlush) + K(2100, 3100, 66, kGemm) +
         K(3200, 3400, 8, kReduce) + R(11000, 20000, "loom.rep") + K(11100, 12300, 66, kGemm) +
         K(12400, 12600, 8, kReduce) + R(21000, 30000, "loom.rep") + K(21100, 22000, 66, kGemm) +
         K(22100, 22300, 8, kReduce) + R(200000, 300000, "loom.case=8") + R(210000, 220000, "loom.rep") +
         R(400000, 500000, "loom.case=77");  // orphan: in no case list
}
constexpr int kSweepRecords = 15;

std::string cases(const std::string& command, const std::string& sms = "132") {
  return "#loom-bench 1\n#gpu=NVIDIA H200\n#sms=" + sms + "\n#command=" + command +
         "\ncase_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n"
         "7,gemm,gemm m=4096 n=4096 k=4096 dtype=bf16,cublaslt,3,1.3,1.2,1.5\n"
         "8,gemm,gemm m=8 n=8 k=8 dtype=bf16,cublaslt,1,1,1,1\n"
         "9,gemm,gemm m=9 n=9 k=9 dtype=bf16,cublaslt,1,1,1,1\n";
}

GpuNameTable table() {
  GpuNameTable t;
  t.add("NVIDIA H200", "h200");
  return t;
}

TEST(TraceImport, QuantileIsLinearInterpolation) {
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({1.1, 1.2, 1.4}, 0.1), 1.12);
  EXPECT_DOUBLE_EQ(quantile({1.1, 1.2, 1.4}, 0.9), 1.36);
  EXPECT_DOUBLE_EQ(quantile({5}, 0.9), 5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
}

TEST(TraceImport, JoinHandChecked) {
  JoinStats st;
  Corpus co = join_traces({parse_lct(lct("bench", sweep_body(), kSweepRecords), "a.lct")},
                          {parse_case_list(cases("bench"), "a.cases.csv")}, table(), st);
  EXPECT_EQ(co.gpu, "NVIDIA H200");
  EXPECT_EQ(co.gpu_key, "h200");
  EXPECT_EQ(co.sms, 132);
  EXPECT_DOUBLE_EQ(co.clock_mhz, 1980);
  EXPECT_EQ(co.meta.at("sources"), "a.lct,a.cases.csv");
  ASSERT_EQ(co.rows.size(), 1u);
  const CorpusRow& r = co.rows[0];
  EXPECT_EQ(r.case_id, 7);
  EXPECT_EQ(r.impl, "cublaslt");
  EXPECT_EQ(r.reps, 3);
  EXPECT_NEAR(r.median_us, 1.2, 1e-12);
  EXPECT_NEAR(r.p10_us, 1.12, 1e-12);
  EXPECT_NEAR(r.p90_us, 1.36, 1e-12);
  EXPECT_NEAR(r.spread_pct, 20.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.event_median_us, 1.3);
  EXPECT_EQ(r.kernels, kGemm + ";cublasLt::splitKreduce_kernel()");
  EXPECT_EQ(r.grid, (std::array<int64_t, 3>{66, 1, 1}));  // the GEMM, the longest kernel
  EXPECT_EQ(r.block, (std::array<int64_t, 3>{384, 1, 1}));
  EXPECT_EQ(r.regs, 168);
  EXPECT_EQ(r.smem_bytes, 201024);
  EXPECT_EQ(st.cases_in, 3);
  EXPECT_EQ(st.cases_written, 1);
  ASSERT_EQ(st.unmatched.size(), 2u);
  EXPECT_EQ(st.unmatched[0].case_id, 8);
  EXPECT_EQ(st.unmatched[0].reason, "rep 1 has no kernels");
  EXPECT_EQ(st.unmatched[1].case_id, 9);
  EXPECT_NE(st.unmatched[1].reason.find("no 'loom.case=9' range"), std::string::npos);
  EXPECT_EQ(st.flush_kernels, 1);
  EXPECT_EQ(st.kernels_outside_reps, 1);
  EXPECT_EQ(st.orphan_case_ranges, 1);
  EXPECT_EQ(st.reps_kernel_mismatch, 0);
  EXPECT_EQ(st.reps_count_mismatch, 0);
}

TEST(TraceImport, SeveralProcessesMatchedByCommandOrRangeIds) {
  // Process A ran cases 7/8/9 (as above); process B ran case 50 with one 2 us rep.
  std::string b_body = R(0, 9000, "loom.case=50") + R(100, 5000, "loom.rep") + K(200, 2200, 4, kGemm);
  std::string b_cases = "#loom-bench 1\n#gpu=NVIDIA H200\n#sms=132\n#command=bench-b\n"
                        "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n"
                        "50,gemm,gemm m=1 n=1 k=1 dtype=bf16,loom,1,2,2,2\n";
  for (bool with_commands : {true, false}) {
    std::string ca = with_commands ? "bench-a" : "", cb = with_commands ? "bench-b" : "";
    std::vector<LctTrace> lcts = {parse_lct(lct(cb, b_body, 3), "b.lct"),
                                  parse_lct(lct(ca, sweep_body(), kSweepRecords), "a.lct")};
    std::string bc = b_cases;
    if (!with_commands) bc.replace(bc.find("bench-b"), 7, "");
    JoinStats st;
    Corpus co = join_traces(lcts, {parse_case_list(cases(ca), "a.csv"), parse_case_list(bc, "b.csv")}, table(), st);
    ASSERT_EQ(co.rows.size(), 2u) << "with_commands=" << with_commands;
    EXPECT_EQ(co.rows[0].case_id, 7);
    EXPECT_NEAR(co.rows[0].median_us, 1.2, 1e-12);
    EXPECT_EQ(co.rows[1].case_id, 50);
    EXPECT_NEAR(co.rows[1].median_us, 2.0, 1e-12);
    EXPECT_EQ(co.meta.at("sources"), "a.lct,a.csv,b.lct,b.csv");
  }
}

TEST(TraceImport, JoinErrors) {
  GpuNameTable gpus = table();
  JoinStats st;
  auto a = parse_lct(lct("bench", sweep_body(), kSweepRecords), "a.lct");
  // Case lists of two partitions cannot share one corpus.
  try {
    join_traces({a}, {parse_case_list(cases("bench"), "x.csv"), parse_case_list(cases("bench", "16"), "y.csv")}, gpus,
                st);
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "y.csv");
    EXPECT_NE(std::string(e.what()).find("a corpus holds one partition"), std::string::npos);
  }
  // Two traces holding the same ids and no command to tell them apart.
  auto a2 = parse_lct(lct("", sweep_body(), kSweepRecords), "a2.lct");
  auto a3 = parse_lct(lct("", sweep_body(), kSweepRecords), "a3.lct");
  EXPECT_THROW(join_traces({a2, a3}, {parse_case_list(cases(""), "x.csv")}, gpus, st), InputError);
  // No trace holds the ids.
  auto empty = parse_lct(lct("", "", 0), "e.lct");
  EXPECT_THROW(join_traces({empty}, {parse_case_list(cases(""), "x.csv")}, gpus, st), InputError);
  // GPU mismatch.
  std::string other = cases("bench");
  other.replace(other.find("H200"), 4, "H100 80GB HBM3");
  EXPECT_THROW(join_traces({a}, {parse_case_list(other, "x.csv")}, gpus, st), InputError);
}

TEST(TraceImport, UnknownGpuIsAWarningNotACrash) {
  GpuNameTable none;
  JoinStats st;
  Corpus co = join_traces({parse_lct(lct("bench", sweep_body(), kSweepRecords), "a.lct")},
                          {parse_case_list(cases("bench"), "a.cases.csv")}, none, st);
  EXPECT_EQ(co.gpu_key, "");
  ASSERT_FALSE(st.warnings.empty());
  EXPECT_NE(st.warnings.back().find("unknown GPU 'NVIDIA H200'"), std::string::npos);
}

TEST(TraceImport, ImportRunEndToEnd) {
  std::string dir = test::temp_dir("import");
  std::string l = test::write_file(dir + "/p.lct.gz", lct("bench", sweep_body(), kSweepRecords));
  std::string c = test::write_file(dir + "/p.cases.csv", cases("bench"));
  ImportResult res = import_run({l}, {c}, dir + "/132.corpus.csv.gz");  // default gpu_names.tsv of the source tree
  EXPECT_EQ(res.gpu_key, "h200");
  EXPECT_EQ(res.sms, 132);
  EXPECT_EQ(res.lct_records, kSweepRecords);
  EXPECT_EQ(res.stats.cases_written, 1);
  EXPECT_EQ(res.stats.unmatched.size(), 2u);
  Corpus back = read_corpus(dir + "/132.corpus.csv.gz");
  EXPECT_EQ(back.gpu_key, "h200");
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_NEAR(back.rows[0].median_us, 1.2, 1e-9);
  EXPECT_NEAR(back.rows[0].spread_pct, 20.0, 1e-5);
  EXPECT_EQ(back.rows[0].kernels, kGemm + ";cublasLt::splitKreduce_kernel()");
  // Lenient import skips a corrupted record and reports it.
  std::string body = sweep_body();
  body.insert(body.find("R\t11000"), "K\t1\t2\n");
  std::string l2 = test::write_file(dir + "/q.lct", lct("bench", body, kSweepRecords + 1));
  EXPECT_THROW(import_run({l2}, {c}, dir + "/q.corpus.csv"), InputError);
  ImportOptions lenient;
  lenient.lenient = true;
  ImportResult r2 = import_run({l2}, {c}, dir + "/q.corpus.csv", lenient);
  EXPECT_EQ(r2.skipped_records, 1);
  EXPECT_EQ(r2.stats.cases_written, 1);
}

}  // namespace
}  // namespace loom
