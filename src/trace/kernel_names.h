// Kernel name -> loom family (+ tile config when the name carries it), for cuBLAS/cuBLASLt, CUTLASS, cuDNN,
// FlashAttention, PyTorch native, Triton, NCCL and loom's own bench kernels. Data-driven tests:
// tests/data/kernel_names.tsv.
#pragma once

#include <string>
#include <string_view>

namespace loom {

struct KernelName {
  std::string family = "unknown";  ///< gemm, attention, rms_norm, layer_norm, softmax, elementwise, reduce, moe,
                                   ///< fused (Triton inductor), all_reduce/all_gather/..., l2_flush, unknown
  std::string op;       ///< sub-kind where useful: "splitk_reduce", "gemv", "silu", "add", "splitkv", ...
  std::string library;  ///< cublas, cutlass, cudnn, flash_attn, pytorch, triton, nccl, loom, ""
  std::string config;   ///< canonical tile config when the name carries it, e.g. "256x128x64_s4_c1x2_coop"; "" if not
  int tile_m = 0, tile_n = 0, tile_k = 0;  ///< CTA tile (0 = unknown)
  int stages = 0, warps = 0;               ///< pipeline stages, warps per CTA (0 = unknown)
  int cluster_m = 0, cluster_n = 0;        ///< thread-block cluster (0 = unknown)
  bool cooperative = false;                ///< nvjet "coop" (two consumer warpgroups share a tile)
  bool known() const { return family != "unknown"; }
};

/// Classifies a demangled kernel name (mangled names are demangled first). Never throws; "unknown" when no rule
/// matches.
KernelName classify_kernel(std::string_view name);

/// Demangles a C++ symbol with abi::__cxa_demangle; returns the input unchanged when it is not a mangled name.
std::string demangle(const std::string& mangled);

/// Canonical config text from tile fields: "<m>x<n>x<k>" + "_s<stages>" + "_w<warps>" + "_c<cm>x<cn>" + "_coop",
/// each part only when known; "" when the tile is unknown.
std::string format_tile_config(const KernelName& k);

}  // namespace loom
