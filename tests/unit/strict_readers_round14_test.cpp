// Hardening, round 14 (issue 17): a measured row's spec is checked by parse_shape's own GPU-independent half (in case
// lists, corpora and public imports); public rows faster than the GPU's peak are found; PipeWeave's --gpu does not
// relabel a GPU the file names; calibrate reads `sms_source`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "hw/calibration.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"
#include "trace/gpu_names.h"
#include "trace/import_public.h"
#include "trace/peak_check.h"
#include "trace/trace.h"
#include "scratch_dir.h"

namespace loom {
namespace {

using loom::test::read_text;

TEST(ShapeParams, IsParseShapeWithoutTheGpu) {
  const Catalog cat = Catalog::load();
  for (const char* text : {"gemm m=4096 n=4096 k=4096 dtype=bf16", "gemm m=64 n=7168 k=2048 dtype=fp8 impl=cutlass",
                           "moe tokens=512 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16",
                           "attention_decode batch=32 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16",
                           "rotary tokens=4096 heads=32 kv_heads=8 head_dim=128 dtype=bf16",
                           "all_reduce bytes=1048576 gpus=8"}) {
    const KernelSpec spec = parse_kernel_spec(text);
    const KernelShape a = parse_shape_params(spec), b = parse_shape(spec, cat.get("h200"));
    EXPECT_EQ(a.family, b.family) << text;
    EXPECT_EQ(a.m * a.n * a.k + a.tokens + a.heads + a.seq_kv + a.bytes + a.gpus,
              b.m * b.n * b.k + b.tokens + b.heads + b.seq_kv + b.bytes + b.gpus)
        << text;
    EXPECT_EQ(a.dtype, b.dtype) << text;
    EXPECT_EQ(a.align_bytes, b.align_bytes) << text;
  }
  // What needs the GPU stays in parse_shape: CUTLASS's fp8 GEMM is modelled for Hopper only.
  const KernelSpec cutlass = parse_kernel_spec("gemm m=64 n=7168 k=2048 dtype=fp8 impl=cutlass");
  EXPECT_NO_THROW(parse_shape_params(cutlass));
  expect_error([&] { parse_shape(cutlass, cat.get("l40")); }, "--kernel", "modelled for Hopper");
}

TEST(ShapeParams, MeasuredSpecsAreCheckedAsPredictReadsThem) {
  auto refused = [](const char* text) { return error_of([&] { check_spec_sizes(parse_kernel_spec(text, "f:3")); }); };
  EXPECT_IN(refused("gemm m=64 n=64 k=64 dtype=bf16 foo=1").what(), "unknown key 'foo'");
  EXPECT_IN(refused("gemm m=64 n=64 k=64 dtype=bf17").what(), "dtype=bf17");
  EXPECT_IN(refused("gemm m=64 n=64 dtype=bf16").what(), "needs k=");
  EXPECT_IN(refused("gemm m=1073741824 n=1073741824 k=1073741824 dtype=bf16").what(), "2^40");
  EXPECT_EQ(refused("gemm m=0 n=64 k=64 dtype=bf16").where(), "f:3");
  // A family loom does not model (a case list's end-to-end rows): its sizes only, as before.
  EXPECT_NO_THROW(check_spec_sizes(parse_kernel_spec("e2e_decode model=llama-3-8b batch=8 context=1024 tp=1")));
  EXPECT_IN(refused("e2e_decode model=llama-3-8b batch=0").what(), "batch=0");
}

std::string corpus_with(const std::string& spec) {
  return "#loom-corpus 1\n#gpu=NVIDIA H200\n#gpu_key=h200\n#sms=132\n"
         "case_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,spread_pct,"
         "event_median_us\n"
         "1,gemm,gemm m=64 n=64 k=64 dtype=bf16,library,k,1:1:1,128:1:1,32,0,5,9,9,9,0.5,\n"
         "2,gemm," + spec + ",library,k,1:1:1,128:1:1,32,0,5,9,9,9,0.5,\n";
}

TEST(CorpusReader, RowsWhoseSpecNoCommandTakesAreRefusedAtTheirLine) {
  const InputError e = error_of([] { parse_corpus(corpus_with("gemm m=64 n=64 k=64 dtype=bf16 foo=1"), "c.csv"); });
  EXPECT_EQ(e.where(), "c.csv:7");
  EXPECT_IN(e.what(), "unknown key 'foo'");
  EXPECT_IN(error_of([] { parse_corpus(corpus_with("gemm m=1099511627776 n=2 k=2 dtype=bf16"), "c.csv"); }).what(),
            "elements");
  ReadOptions lenient;
  lenient.lenient = true;
  const Corpus c = parse_corpus(corpus_with("gemm m=0 n=64 k=64 dtype=bf16"), "c.csv", lenient);
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.skipped_records, 1);
}

TEST(PeakCheck, RowsFasterThanTheGpusPeakAreFound) {
  const Catalog cat = Catalog::load();
  const GpuSpec h200 = cat.get("h200");
  // 2 x 4096^3 FLOP at the bf16 tensor peak at boost clock (the catalogue's per-SM rate x 132 SMs x 1980 MHz).
  const double peak = h200.tensor_flops_per_clk(Dtype::bf16) * h200.sms * h200.boost_clock_mhz * 1e6;
  EXPECT_NEAR(peak_floor_us(h200, parse_kernel_spec("gemm m=4096 n=4096 k=4096 dtype=bf16")),
              2.0 * 4096 * 4096 * 4096 / peak * 1e6, 1e-6);
  // Memory-bound families and collectives have no floor here (a warm L2 can undercut a DRAM floor).
  EXPECT_EQ(peak_floor_us(h200, parse_kernel_spec("rms_norm rows=4096 cols=8192 dtype=bf16")), 0.0);
  EXPECT_EQ(peak_floor_us(h200, parse_kernel_spec("all_reduce bytes=1048576 gpus=8")), 0.0);
  Corpus c;
  c.path = "x.csv";
  for (double us : {400.0, 0.5, 0.1}) {
    CorpusRow r;
    r.spec = "gemm m=4096 n=4096 k=4096 dtype=bf16";
    r.median_us = us;
    c.rows.push_back(r);
  }
  const FasterThanPeak p = faster_than_peak(c, h200);
  EXPECT_EQ(p.rows, 2);
  EXPECT_IN(p.example, "0.5 us measured");
}

PublicImportContext import_context(const Catalog& cat, const GpuNameTable& names, const std::string& gpu) {
  PublicImportContext ctx;
  ctx.names = &names;
  ctx.sms_for = [&cat](const std::string& key) { return int64_t(cat.get(key).sms); };
  ctx.gpu_override = gpu;
  return ctx;
}

TEST(PublicImport, GpuFlagDoesNotRelabelAGpuTheFileNames) {
  const Catalog cat = Catalog::load();
  const GpuNameTable names = GpuNameTable::load_default();
  const std::string fp8 = "M,N,K,avg_duration,hardware\n64,4096,4096,12,NVIDIA H100\n";
  expect_error([&] { import_public_text("pipeweave", fp8, "d/gemm_fp8_test.csv", import_context(cat, names, "h200")); },
               "d/gemm_fp8_test.csv:2", "not --gpu h200");
  EXPECT_EQ(import_public_text("pipeweave", fp8, "d/gemm_fp8_test.csv", import_context(cat, names, "h100-sxm"))
                .by_gpu.count("h100-sxm"),
            1u);
  const std::string moe =
      "weight_type,M,E,topk,H,N,BLOCK_SIZE_M,BLOCK_SIZE_N,BLOCK_SIZE_K,GROUP_SIZE_M,num_warps,num_stages,avg_duration,"
      "sample_count\nw13,1,8,2,1024,512,16,16,128,1,4,3,4.27,3\n";
  EXPECT_IN(error_of([&] {
              import_public_text("pipeweave", moe, "d/moe_dse_H800_x.csv", import_context(cat, names, "h200"));
            }).what(),
            "the file name says h800");
  EXPECT_NO_THROW(import_public_text("pipeweave", moe, "d/moe_dse_H800_x.csv", import_context(cat, names, "h800")));
}

std::string calibration(const nlohmann::json& sms, const nlohmann::json& source) {
  nlohmann::json j = nlohmann::json::parse(read_text(std::string(LOOM_TEST_DATA) + "/calibrate/good.json"));
  j["sms"] = sms;
  if (source.is_null()) j.erase("sms_source");
  else j["sms_source"] = source;
  return j.dump();
}

TEST(Calibration, SmsSourceIsReadAndAgreesWithTheSmCount) {
  const Catalog cat = Catalog::load();
  auto overlay = [&](const std::string& text) {
    return calibration_overlay(text, "r.json", "h100-sxm", cat.get("h100-sxm"), cat.get("h200")).yaml;
  };
  auto refusal = [&](const std::string& text) { return std::string(error_of([&] { overlay(text); }).what()); };
  EXPECT_IN(refusal(calibration(132, "bogus")), "'sms_source' = 'bogus' is not all, driver or guess");
  EXPECT_IN(refusal(calibration(132, 5)), "'sms_source'");
  EXPECT_IN(refusal(calibration(66, "all")), "'sms' = 66 of its 132");
  EXPECT_IN(refusal(calibration(132, "driver")), "is the whole chip");
  EXPECT_IN(overlay(calibration(72, "guess")), "SM count guessed");
  EXPECT_IN(overlay(calibration(64, "driver")), "sms: 64");
  EXPECT_NO_THROW(overlay(calibration(132, nullptr)));  // an older result without the field
}

}  // namespace
}  // namespace loom
