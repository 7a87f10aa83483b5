// torch.profiler Chrome trace -> kernels linked to aten ops (External id, correlation, ac2g flow) -> loom specs,
// on a hand-written sample in Kineto's layout (tests/data/trace/torch_profile_sample.json).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "core/error.h"
#include "trace/chrome_trace.h"
#include "trace_test_util.h"

namespace loom {
namespace {

const std::string kSample = std::string(LOOM_TEST_DATA) + "/trace/torch_profile_sample.json";

TEST(TraceChrome, SampleKernelsOpsAndSpecs) {
  ChromeTrace t = read_chrome_trace(kSample);
  EXPECT_EQ(t.device_name, "NVIDIA H200");
  EXPECT_EQ(t.cpu_ops, 9);
  EXPECT_EQ(t.skipped_events, 1);
  ASSERT_EQ(t.kernels.size(), 5u);
  EXPECT_EQ(t.unlinked_kernels, 1);
  EXPECT_EQ(t.kernels_with_spec, 3);

  const ChromeKernel& g = t.kernels[0];  // linked by External id
  EXPECT_EQ(g.kernel.family, "gemm");
  EXPECT_EQ(g.kernel.config, "256x128x64_s4_c1x2_coop");
  EXPECT_DOUBLE_EQ(g.dur_us, 25.5);
  EXPECT_EQ(g.op.name, "aten::addmm");
  EXPECT_EQ(g.op_chain, "aten::addmm < aten::linear");
  EXPECT_EQ(g.spec, "gemm m=8 n=11008 k=4096 dtype=bf16");
  EXPECT_EQ(g.grid, (std::vector<int64_t>{66, 1, 1}));
  EXPECT_EQ(g.regs, 168);
  EXPECT_EQ(g.smem_bytes, 213504);

  const ChromeKernel& a = t.kernels[1];  // innermost op has no spec; the enclosing SDPA op does
  EXPECT_EQ(a.kernel.family, "attention");
  EXPECT_EQ(a.op.name, "aten::_flash_attention_forward");
  EXPECT_EQ(a.spec_op, "aten::_scaled_dot_product_flash_attention");
  EXPECT_EQ(a.spec, "attention_prefill batch=1 heads=32 kv_heads=32 seq=512 head_dim=128 causal=1 dtype=bf16");

  const ChromeKernel& s = t.kernels[2];  // no External id: correlation -> cudaLaunchKernel -> enclosing op
  EXPECT_EQ(s.kernel.op, "silu");
  EXPECT_EQ(s.op.name, "aten::silu");
  EXPECT_EQ(s.spec, "elementwise op=silu rows=8 cols=11008 dtype=bf16");

  const ChromeKernel& c = t.kernels[3];  // ac2g flow only; a copy inside matmul must not inherit the GEMM spec
  EXPECT_TRUE(c.linked);
  EXPECT_EQ(c.op_chain, "aten::copy_ < aten::matmul");
  EXPECT_EQ(c.spec, "");

  const ChromeKernel& n = t.kernels[4];
  EXPECT_FALSE(n.linked);
  EXPECT_EQ(n.kernel.family, "all_reduce");
}

TEST(TraceChrome, SpecsFromOps) {
  ChromeOp op;
  op.name = "aten::bmm";
  op.input_dims = {{4, 128, 64}, {4, 64, 256}};
  op.input_types = {"c10::Half", "c10::Half"};
  EXPECT_EQ(spec_from_op(op), "gemm m=128 n=256 k=64 batch=4 dtype=fp16");
  op.name = "aten::mm";
  op.input_dims = {{128, 64}, {32, 256}};  // inner dims disagree
  EXPECT_EQ(spec_from_op(op), "");
  op.name = "aten::_scaled_dot_product_cudnn_attention";
  op.input_dims = {{64, 32, 1, 128}, {64, 8, 4096, 128}, {64, 8, 4096, 128}};
  op.input_types = {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"};
  EXPECT_EQ(spec_from_op(op), "attention_decode batch=64 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16");
  op.name = "aten::rms_norm";
  op.input_dims = {{2, 16, 4096}, {4096}};
  EXPECT_EQ(spec_from_op(op), "rms_norm rows=32 cols=4096 dtype=bf16");
  op.name = "aten::add";
  op.input_dims = {{4096}, {32, 4096}, {}};
  op.input_types = {"float", "float", "Scalar"};
  EXPECT_EQ(spec_from_op(op), "elementwise op=add rows=32 cols=4096 dtype=fp32");
  op.name = "aten::conv2d";
  EXPECT_EQ(spec_from_op(op), "");
  EXPECT_EQ(dtype_from_torch("c10::Float8_e4m3fn"), "fp8");
  EXPECT_EQ(dtype_from_torch("long int"), "");
}

TEST(TraceChrome, BadInput) {
  try {
    parse_chrome_trace("{\n  \"traceEvents\": [\n  {\"ph\": \"X\",,}\n]}", "bad.json");
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "bad.json:3");
  }
  EXPECT_THROW(parse_chrome_trace("{\"foo\": 1}", "x.json"), InputError);
  EXPECT_THROW(parse_chrome_trace("", "x.json"), InputError);
  // Wrong types inside events are skipped, not fatal.
  ChromeTrace t = parse_chrome_trace(
      R"([{"ph":"X","cat":"kernel","name":5,"ts":1,"dur":2},{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":"x"},
          {"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"grid":"big","External id":"7"}}, 3])",
      "arr.json");
  EXPECT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.skipped_events, 3);
  EXPECT_EQ(t.unlinked_kernels, 1);
  // gzip-compressed trace.
  std::string dir = test::temp_dir("chrome");
  std::ifstream in(kSample);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ChromeTrace z = read_chrome_trace(test::write_file(dir + "/s.json.gz", text));
  EXPECT_EQ(z.kernels.size(), 5u);
}

}  // namespace
}  // namespace loom
