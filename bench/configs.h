// Tile-config tables of loom's own kernels (host-visible, so --list works without a GPU). The GEMM/MoE
// instantiation files and attention.cu instantiate exactly these entries, by index.
#pragma once
#include <string>

namespace bench {

struct TileCfg {
  int bm, bn, bk, stages, wm, wn;  ///< block tile, K step, cp.async stages, warps along M and N
  int warps() const { return wm * wn; }
  std::string name() const {  // <BM>x<BN>x<BK>_s<STAGES>_w<WARPS>
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + "_s" +
           std::to_string(stages) + "_w" + std::to_string(wm * wn);
  }
};

// Dense GEMM space: BM,BN in {64,128,256}, BK in {32,64}, stages {2,3,4}, warps {4,8}.
inline constexpr TileCfg kGemmCfgs[] = {
    {64, 64, 32, 3, 2, 2},   {64, 64, 64, 3, 2, 2},   {64, 64, 64, 4, 2, 2},   {64, 128, 32, 3, 2, 2},
    {64, 128, 64, 3, 2, 2},  {128, 64, 32, 3, 2, 2},  {128, 64, 64, 3, 2, 2},  {128, 128, 32, 3, 2, 2},
    {128, 128, 32, 3, 2, 4}, {128, 128, 32, 4, 2, 4}, {128, 128, 64, 2, 2, 4}, {128, 128, 64, 3, 2, 4},
    {128, 256, 32, 3, 2, 4}, {256, 128, 32, 3, 4, 2}, {128, 256, 64, 3, 2, 4}, {256, 128, 64, 3, 4, 2},
};
inline constexpr int kNumGemmCfgs = sizeof(kGemmCfgs) / sizeof(kGemmCfgs[0]);

// Fused-MoE space: BM in {16,32,64,128} (vLLM's BLOCK_SIZE_M choices), rows per expert padded to BM.
inline constexpr TileCfg kMoeCfgs[] = {
    {16, 64, 64, 3, 1, 4},  {16, 128, 64, 3, 1, 4}, {32, 64, 64, 3, 2, 2},  {32, 128, 64, 3, 1, 4},
    {64, 64, 64, 3, 2, 2},  {64, 128, 64, 3, 2, 2}, {128, 128, 32, 3, 2, 4}, {128, 128, 64, 3, 2, 4},
};
inline constexpr int kNumMoeCfgs = sizeof(kMoeCfgs) / sizeof(kMoeCfgs[0]);

// Flash-attention prefill: BLOCK_M = 16 rows per warp, BLOCK_N keys per step.
struct AttnCfg {
  int block_m, block_n, warps;
  std::string name() const {
    return std::to_string(block_m) + "x" + std::to_string(block_n) + "_w" + std::to_string(warps);
  }
};
inline constexpr AttnCfg kAttnCfgs[] = {{64, 64, 4}, {128, 64, 8}, {64, 32, 4}};
inline constexpr int kNumAttnCfgs = sizeof(kAttnCfgs) / sizeof(kAttnCfgs[0]);

}  // namespace bench
