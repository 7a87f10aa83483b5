// Wave model, step 1: the unified mapping (shape, config) -> (G, L, waves) for loom-bench's own GEMM and fused-MoE
// kernels (bench/configs.h, bench/gemm_tiled.cuh, bench/moe.cu), and the macro/micro split of their config names.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"

namespace loom::wave {

/// One kernel configuration of loom-bench with the resources that fix its occupancy.
struct TuneConfig {
  std::string name;   ///< e.g. "128x128x32_s3_w8"
  std::string macro;  ///< tile shape, fixes G and L: "128x128x32"
  std::string micro;  ///< schedule: "s3_w8"
  int bm = 0, bn = 0, bk = 0, stages = 0, warps = 0;
  int group = 0;            ///< GROUP_SIZE_M of the Triton kernel (name suffix _g<G>); 0 = loom-bench's (none)
  int regs_per_thread = 0;  ///< measured (CUPTI, corpus column regs); 0 = unknown
  int64_t smem_bytes = 0;   ///< loom-bench: STAGES*(BM+BN)*(BK+8)*2 (bench/gemm_tiled.cuh); Triton: as CUPTI measured
  int ctas_per_sm = 0;      ///< resident CTAs per SM (analytical/occupancy.h on the GPU's limits)
};

/// A GEMM or fused-MoE problem in the vocabulary of loom-bench's sweeps.
struct TuneShape {
  std::string family;                 ///< "gemm" | "moe"
  int64_t m = 0, n = 0, k = 0;        ///< gemm: C[m,n] = A[m,k] B[n,k]^T
  int64_t tokens = 0, experts = 0, topk = 0, hidden = 0, inter = 0;
  int stage = 13;  ///< moe: 13 = w13 (up+gate, N = 2*inter, K = hidden), 2 = w2 (N = hidden, K = inter)
  std::string impl = "loom";          ///< loom (loom-bench's kernels) | triton (scripts/torch/tune/fused_moe_triton.py)
  std::string dtype = "bf16";         ///< bf16 | fp8 (triton moe only: w8a8, per-tensor scales)
};

/// Where one (shape, config) lands on the chip.
struct GridMap {
  int64_t ctas = 0;        ///< G
  int64_t loop_iters = 0;  ///< L = ceil(K / BK)
  int64_t waves = 0;       ///< ceil(G / (sms * ctas_per_sm))
};

/// The tuning targets `loom tune` supports ("--family"): gemm and moe (loom-bench's CUDA kernels), moe-triton and
/// moe-triton-fp8 (loom's Triton fused-MoE kernel with the serving engines' knobs, bf16 or fp8 w8a8), gemm-triton and
/// gemm-triton-fp8 (loom's Triton GEMM, scripts/torch/tune/gemm_triton.py, the same knobs).
bool is_tune_family(const std::string& family);
/// Throws InputError(where, ...) naming the supported targets unless `family` is one.
void check_tune_family(const std::string& family, const std::string& where);
/// The kernel family of a target ("moe-triton-fp8" -> "moe", "gemm-triton" -> "gemm"), its implementation (loom |
/// triton) and dtype.
std::string base_family(const std::string& target);
std::string target_impl(const std::string& target);
std::string target_dtype(const std::string& target);
/// The target a shape belongs to (family, impl, dtype -> e.g. "moe-triton-fp8").
std::string target_of(const TuneShape& s);

/// Parses "BMxBNxBK_sS_wW" (loom-bench) or "BMxBNxBK_sS_wW_gG" (Triton, G = GROUP_SIZE_M; micro "sS_wW_gG").
/// Macro/micro come from kernels::split_config when kernels/<family>.yaml knows the name, else from the name itself
/// (loom-bench's space differs from the YAML's); both give "BMxBNxBK" / "sS_wW". Throws InputError(where, ...) on a
/// malformed name.
TuneConfig parse_tune_config(const std::string& family, const std::string& name, const std::string& where);
/// Shared memory of loom-bench's tiled kernel: STAGES * (BM + BN) * (BK + 8) * 2 bytes (padded bf16 rows).
int64_t bench_smem_bytes(int bm, int bn, int bk, int stages);
/// Fills ctas_per_sm from regs/smem/threads (regs 0: assumes 128/thread, stated in the README).
void fit_occupancy(TuneConfig& c, const GpuSpec& gpu);

/// The problem of a kernel spec (gemm: m n k; moe: tokens experts topk hidden inter stage=w13|w2; dtype bf16, or fp8
/// with impl=triton (gemm or moe); impl=loom|triton, default loom; a config= key is ignored). Throws
/// InputError(spec.where, ...) on other families or missing sizes.
TuneShape parse_tune_shape(const KernelSpec& spec);
/// The loom spec of a shape with a config, exactly as loom-bench writes it ("gemm m=.. n=.. k=.. dtype=bf16 config=X").
std::string tune_spec(const TuneShape& s, const std::string& config = "");

/// ceil(a / b) for a >= 0 and a tile size b > 0: a shift when b is a power of two (every tile of the Triton grids),
/// a 64-bit division (tens of cycles; decide() counts a dozen tiles per decision) otherwise.
inline int64_t tile_count(int64_t a, int64_t b) {
  return (b & (b - 1)) == 0 ? (a + b - 1) >> std::countr_zero(uint64_t(b)) : (a + b - 1) / b;
}

/// The tiled GEMM a shape launches. gemm: C[m,n] = A[m,k] B[n,k]^T. moe: its stage's N and K, and rows tokens*topk
/// routed round-robin over experts (bench/moe.cu route_uniform): r experts get q+1 rows, the rest q, each expert's
/// rows padded to a multiple of BM.
struct TiledGemm {
  bool moe = false;
  int64_t rows = 0, n = 0, k = 0;  ///< rows of A: gemm M, moe tokens*topk
  int64_t experts = 0, q = 0, r = 0;
  /// M-tiles under BM: gemm ceil(M/BM); moe one per BM rows of each expert that has rows.
  int64_t m_tiles(int64_t bm) const {
    return moe ? r * tile_count(q + 1, bm) + (experts - r) * tile_count(q, bm) : tile_count(rows, bm);
  }
  /// M tiles of the launch: moe's engines size the grid for the upper bound of the padded routed rows,
  /// rows + experts (BM - 1), and the programs past the routed rows exit at once; gemm launches m_tiles.
  int64_t launched_m_tiles(int64_t bm) const {
    return moe ? tile_count(rows + experts * (bm - 1), bm) : m_tiles(bm);
  }
};
/// The tiled GEMM of `s` read as a fused-MoE shape (`moe`) or a gemm.
TiledGemm tiled_gemm(const TuneShape& s, bool moe);
/// G and L of a shape under a tile (bm, bn, bk): G = M-tiles * ceil(N/BN), L = ceil(K/BK) (TiledGemm).
GridMap map_grid(const TuneShape& s, int bm, int bn, int bk);
/// map_grid plus waves = ceil(G / (sms * ctas_per_sm)).
GridMap map_shape(const TuneShape& s, const TuneConfig& c, int sms);

/// Wave buckets: exact wave counts 1..6, then ranges growing ~1.3x (7, 8-9, 10-12, ...); the last is open.
const std::vector<int64_t>& wave_bucket_edges();
/// Index of the bucket holding `waves` (>= 1).
int wave_bucket(int64_t waves);
/// L anchors are powers of two: anchor index = round(log2 L) clamped to [0, kLAnchors).
constexpr int kLAnchors = 12;
int l_anchor(int64_t loop_iters);

}  // namespace loom::wave
