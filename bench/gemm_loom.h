// Launcher tables for loom's tile GEMM configs (dense and MoE), shared by the runners and --check.
#pragma once
#include "common.h"
#include "gemm_tiled.cuh"
#include <vector>

namespace bench {
GemmLaunchFn dense_launcher(int cfg);  ///< cfg indexes kGemmCfgs
GemmLaunchFn moe_launcher(int cfg);    ///< cfg indexes kMoeCfgs
/// Runs dense config `cfg` on `p` (grid from p.M); throws CudaFailure on a bad shape or launch error.
void run_dense(int cfg, const GemmArgs& p, cudaStream_t s);

/// Uniform top-k routing of `tokens` to `experts` (token t's j-th expert is (t*topk+j) % experts), laid out as
/// vLLM's moe_align_block_size does: per expert, its routed rows padded to a multiple of bm.
struct MoeRouting {
  std::vector<int> sorted_ids;   ///< padded rows; value tokens*topk marks padding
  std::vector<int> tile_expert;  ///< expert of each bm-row tile
};
MoeRouting route_uniform(int tokens, int experts, int topk, int bm);
}  // namespace bench
