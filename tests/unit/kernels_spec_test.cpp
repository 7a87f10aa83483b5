// KernelSpec parsing/printing and family vocabulary checks (parse_shape).
#include <gtest/gtest.h>

#include "core/error.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"
#include "test_gpus.h"

namespace loom {
namespace {

TEST(KernelSpec, ParsesAndPrintsCanonically) {
  KernelSpec s = parse_kernel_spec("  gemm dtype=bf16 k=3   n=2 m=1 ", "x.csv:3");
  EXPECT_EQ(s.family, "gemm");
  EXPECT_EQ(s.params.at("k"), "3");
  EXPECT_EQ(s.where, "x.csv:3");
  EXPECT_EQ(s.to_string(), "gemm m=1 n=2 k=3 dtype=bf16");
  KernelSpec c = parse_kernel_spec("gemm config=128x256x64_s4_w8 m=1 n=2 k=3 dtype=bf16");
  EXPECT_EQ(c.to_string(), "gemm m=1 n=2 k=3 dtype=bf16 config=128x256x64_s4_w8");
}

TEST(KernelSpec, SyntaxErrors) {
  EXPECT_THROW(parse_kernel_spec(""), InputError);
  EXPECT_THROW(parse_kernel_spec("   "), InputError);
  EXPECT_THROW(parse_kernel_spec("m=1 gemm"), InputError);
  EXPECT_THROW(parse_kernel_spec("gemm m"), InputError);
  EXPECT_THROW(parse_kernel_spec("gemm m="), InputError);
  EXPECT_THROW(parse_kernel_spec("gemm =1"), InputError);
  EXPECT_THROW(parse_kernel_spec("gemm m=1 m=2"), InputError);
  EXPECT_THROW(parse_kernel_spec("Gemm m=1"), InputError);
  try {
    parse_kernel_spec("gemm m=1 m=2", "b.csv:7");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "b.csv:7");
    EXPECT_NE(e.detail().find("duplicate key 'm'"), std::string::npos);
  }
}

std::string shape_error(const std::string& text, const GpuSpec& gpu = test::test_h100()) {
  try {
    parse_shape(parse_kernel_spec(text, "spec:1"), gpu);
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "spec:1");
    return e.detail();
  }
  return "";
}

TEST(KernelShape, ErrorClasses) {
  auto has = [](const std::string& err, const std::string& part) {
    EXPECT_NE(err.find(part), std::string::npos) << "error: '" << err << "' lacks '" << part << "'";
  };
  has(shape_error("gemmm m=1 n=1 k=1 dtype=bf16"), "unknown kernel family 'gemmm'; valid families: gemm, moe");
  has(shape_error("gemm m=1 n=1 k=1 dtype=bf16 foo=3"), "unknown key 'foo' for gemm; valid keys: m, n, k, batch");
  has(shape_error("gemm m=1 n=1 dtype=bf16"), "gemm needs k=");
  has(shape_error("gemm m=1 n=1 k=4k dtype=bf16"), "k=4k is not an integer");
  has(shape_error("gemm m=1 n=0 k=1 dtype=bf16"), "n=0 must be > 0");
  has(shape_error("gemm m=-5 n=1 k=1 dtype=bf16"), "m=-5 must be > 0");
  has(shape_error("gemm m=99999999999999999999 n=1 k=1 dtype=bf16"), "too large");
  has(shape_error("gemm m=2000000 n=2000000 k=8 dtype=bf16"), "beyond loom's sanity limit");
  has(shape_error("gemm m=1 n=1 k=1 dtype=int4"), "dtype=int4 is not supported by gemm; use one of: fp32, tf32");
  has(shape_error("rms_norm rows=1 cols=1 dtype=fp8"), "dtype=fp8 is not supported by rms_norm");
  has(shape_error("gemm m=1 n=1 k=1 dtype=fp8", test::test_a100()), "gpu 'a100-sxm4-80gb' has no fp8 tensor path");
  has(shape_error("attention_prefill batch=1 heads=32 kv_heads=6 seq=128 head_dim=128 causal=1 dtype=bf16"),
      "not a multiple of kv_heads=6");
  has(shape_error("attention_decode batch=1 heads=32 kv_heads=8 seq_kv=128 head_dim=100 dtype=bf16"),
      "head_dim=100 is not supported; use one of: 64, 80, 96, 128");
  has(shape_error("attention_prefill batch=1 heads=8 kv_heads=8 seq=128 head_dim=128 causal=2 dtype=bf16"),
      "causal=2 must be 0 or 1");
  has(shape_error("attention_prefill batch=1 heads=8 kv_heads=8 seq=128 seq_kv=64 head_dim=128 causal=1 dtype=bf16"),
      "seq_kv=64 < seq=128");
  has(shape_error("elementwise op=tanh rows=1 cols=1 dtype=bf16"), "op=tanh is not valid for elementwise");
  has(shape_error("moe tokens=1 experts=4 topk=8 hidden=64 inter=64 dtype=bf16"), "topk=8 exceeds experts=4");
  has(shape_error("moe tokens=1 experts=8 topk=2 hidden=64 inter=64 dtype=bf16 stage=w4"), "stage=w4 is not valid");
  has(shape_error("rotary tokens=1 heads=1 head_dim=63 dtype=bf16"), "must be even");
  has(shape_error("all_reduce bytes=1024 gpus=16"), "exceeds the 8 GPUs");
}

TEST(KernelShape, GemmOutputDtypes) {
  auto gpu = test::test_h100();
  EXPECT_EQ(parse_shape(parse_kernel_spec("gemm m=1 n=1 k=1 dtype=fp8"), gpu).out_dtype, Dtype::bf16);
  EXPECT_EQ(parse_shape(parse_kernel_spec("gemm m=1 n=1 k=1 dtype=tf32"), gpu).out_dtype, Dtype::fp32);
  EXPECT_EQ(parse_shape(parse_kernel_spec("gemm m=1 n=1 k=1 dtype=fp16"), gpu).out_dtype, Dtype::fp16);
  EXPECT_EQ(parse_shape(parse_kernel_spec("attention_prefill batch=1 heads=4 kv_heads=1 seq=8 head_dim=64 causal=0 "
                                          "dtype=bf16"), gpu).seq_kv, 8);
}

}  // namespace
}  // namespace loom
