// Which GEMM code path a library launched, read from the kernel names of one traced case (the corpus `kernels`
// column): the facts loom's kernel-path table (kernels/gemm_paths.json) is learned from.
#pragma once

#include <string>

namespace loom {

struct GemmPath {
  std::string path;      ///< wgmma | mma_sync | wmma | sm75 | simt | gemv | "" (no GEMM kernel recognised)
  bool split_k = false;  ///< a split-K launch (nvjet ..._splitK_ or a separate splitKreduce kernel)
  std::string kernel;    ///< the main kernel's name, shortened (for messages)
};

/// Classifies the ';'-joined kernel names of one repetition. Never throws.
GemmPath gemm_path(const std::string& kernels);

}  // namespace loom
