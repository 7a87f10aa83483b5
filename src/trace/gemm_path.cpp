// GEMM code paths from cuBLAS/cuBLASLt/CUTLASS kernel names, as seen on Hopper (scripts/torch/linear_paths.py):
// nvjet_sm90_* and sm90_xmma_* are warpgroup-MMA (wgmma) kernels; cutlass_80_tensorop_* / sm80_xmma_* use the
// Ampere mma.sync path (cuBLAS falls back to them when K or N is not a multiple of 8 elements); cutlass_*_wmma_*
// the older WMMA API; cutlass_75_tensorop_*s1688* Turing-shaped mma (align-1 operands); *ffma* the FP32 FMA pipe;
// gemv / gemmSN the matrix-vector kernels.
#include "trace/gemm_path.h"

#include <string_view>

namespace loom {

GemmPath gemm_path(const std::string& kernels) {
  GemmPath g;
  std::string_view all(kernels);
  auto has = [](std::string_view s, std::string_view t) { return s.find(t) != std::string_view::npos; };
  g.split_k = has(all, "splitKreduce") || has(all, "_splitK_") || has(all, "split_k");
  size_t start = 0;
  while (start <= all.size() && g.path.empty()) {
    size_t end = all.find(';', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view k = all.substr(start, end - start);
    start = end + 1;
    if (has(k, "splitKreduce")) continue;
    if (has(k, "gemv") || has(k, "gemmSN_") || has(k, "gemmk1")) g.path = "gemv";
    else if (has(k, "ffma")) g.path = "simt";
    else if (has(k, "nvjet_sm90") || has(k, "sm90_xmma") || has(k, "cutlass3x_sm90")) g.path = "wgmma";
    else if (has(k, "_wmma_")) g.path = "wmma";
    else if (has(k, "cutlass_75_tensorop") || has(k, "turing_")) g.path = "sm75";
    else if (has(k, "cutlass_80_tensorop") || has(k, "sm80_xmma") || has(k, "ampere_")) g.path = "mma_sync";
    else continue;
    std::string_view name = k;
    if (auto lt = name.find('<'); lt != std::string_view::npos && has(name, "Kernel2<"))
      name = name.substr(lt + 1, name.find('>') - lt - 1);
    g.kernel = std::string(name.substr(0, 90));
  }
  return g;
}

}  // namespace loom
