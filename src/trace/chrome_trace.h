// PyTorch profiler Chrome-trace JSON (torch.profiler, record_shapes=True) -> GPU kernels with their duration, the
// aten op that launched them (with input shapes/dtypes) and, where the op maps to loom's vocabulary, a kernel spec.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/kernel_names.h"

namespace loom {

struct ChromeOp {
  std::string name;                            ///< "aten::addmm"
  std::vector<std::vector<int64_t>> input_dims;  ///< "Input Dims" (empty vector for non-tensor inputs)
  std::vector<std::string> input_types;        ///< "Input type": "c10::BFloat16", "float", "Scalar", ""
  std::vector<std::string> concrete_inputs;    ///< "Concrete Inputs" (scalars as text), when recorded
  double ts_us = 0, dur_us = 0;
};

struct ChromeKernel {
  std::string name;  ///< as the trace gives it (demangled by the profiler)
  double ts_us = 0, dur_us = 0;
  int64_t stream = -1, correlation = -1;
  std::vector<int64_t> grid, block;
  int64_t regs = 0, smem_bytes = 0;
  KernelName kernel;         ///< classify_kernel(name)
  bool linked = false;       ///< an enclosing aten op was found
  ChromeOp op;               ///< innermost cpu_op that launched the kernel
  std::string op_chain;      ///< innermost first: "aten::addmm < aten::linear"
  std::string spec;          ///< loom kernel spec from the first op of the chain that maps, "" if none
  std::string spec_op;       ///< the op the spec came from
};

struct ChromeTrace {
  std::string path;
  std::string device_name;  ///< deviceProperties[0].name when present
  std::vector<ChromeKernel> kernels;  ///< in start-time order
  int64_t cpu_ops = 0;
  int64_t unlinked_kernels = 0;    ///< no launching op found
  int64_t kernels_with_spec = 0;
  int64_t skipped_events = 0;      ///< malformed events ignored (missing ts/dur, wrong types)
  int64_t skipped_kernels = 0;     ///< of those, kernel events: GPU time a total built from the trace lacks
};

/// Reads a Chrome-trace JSON file (plain or gzip). Throws InputError("FILE:LINE", ...) when it is not JSON or has no
/// traceEvents array; malformed individual events are skipped and counted.
ChromeTrace read_chrome_trace(const std::string& path);
ChromeTrace parse_chrome_trace(std::string_view json_text, const std::string& name);

/// Maps an aten op with input shapes/dtypes to a loom kernel spec ("gemm m=.. n=.. k=.. dtype=bf16",
/// "attention_prefill ...", "rms_norm rows=.. cols=.. dtype=..", "elementwise op=silu rows=.. cols=.. dtype=..");
/// "" when the op is not one loom models or its shapes are missing.
std::string spec_from_op(const ChromeOp& op);

/// loom dtype name for a profiler "Input type" ("c10::BFloat16" -> "bf16"); "" when unknown.
std::string dtype_from_torch(const std::string& torch_type);

}  // namespace loom
