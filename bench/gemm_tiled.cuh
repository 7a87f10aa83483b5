// loom's tunable tensor-core GEMM: C[M,N] = A[M,K] B[N,K]^T in bf16 (fp32 accumulate), mma.sync m16n8k16 with
// ldmatrix and a STAGES-deep cp.async pipeline. MOE=true turns it into vLLM-style fused-MoE: rows come through
// sorted_ids (gathered A rows, scattered C rows) and each M-tile has one expert whose weights B[e] it uses.
// Ragged M and N are predicated; K must be a multiple of 8 (16-byte rows) and N even (bf16x2 stores).
#pragma once
#include "configs.h"
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace bench {

struct GemmArgs {
  const __nv_bfloat16* A = nullptr;  ///< [M or source rows, K]
  const __nv_bfloat16* B = nullptr;  ///< [N, K] (MoE: [experts, N, K])
  __nv_bfloat16* C = nullptr;        ///< [M, N] (MoE: [num_valid, N], rows scattered by sorted_ids)
  int M = 0, N = 0, K = 0;           ///< MoE: M = padded rows = tiles * BM
  const int* sorted_ids = nullptr;   ///< MoE: per padded row, the routed row id (>= num_valid = padding)
  const int* tile_expert = nullptr;  ///< MoE: expert of each M-tile
  int num_valid = 0;                 ///< MoE: tokens * topk
  int a_row_div = 1;                 ///< MoE: A row = sorted_id / a_row_div (topk for w13, 1 for w2)
};

namespace tiled {

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool ok) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  int n = ok ? 16 : 0;  // src-size 0: zero-fill, nothing read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void* smem) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <int BM, int BN, int BK, int STAGES, int WM, int WN>
constexpr int smem_bytes() { return STAGES * (BM + BN) * (BK + 8) * 2; }

template <int BM, int BN, int BK, int STAGES, int WM, int WN, bool MOE>
__global__ void __launch_bounds__(WM * WN * 32) loom_gemm_kernel(GemmArgs p) {
  constexpr int T = WM * WN * 32, LDS = BK + 8, TM = BM / WM, TN = BN / WN, MI = TM / 16, NI = TN / 8;
  constexpr int CPR = BK / 8, IA = BM * CPR / T, IB = BN * CPR / T;
  static_assert(TM % 16 == 0 && TN % 16 == 0 && BK % 16 == 0, "warp tile must be a multiple of 16x16");
  static_assert((BM * CPR) % T == 0 && (BN * CPR) % T == 0, "tile chunks must divide among threads");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  auto* As = reinterpret_cast<__nv_bfloat16*>(smem_raw);
  auto* Bs = As + STAGES * BM * LDS;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp / WN, wn = warp % WN;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const __nv_bfloat16* B = p.B;
  if (MOE) {
    int e = p.tile_expert[blockIdx.y];
    if (e < 0) return;
    B += (size_t)e * p.N * p.K;
  }
  // Per-thread source rows are fixed over K: resolve them (and the MoE gather) once.
  const __nv_bfloat16* a_src[IA];
  bool a_ok[IA];
#pragma unroll
  for (int i = 0; i < IA; ++i) {
    int c = tid + i * T, r = m0 + c / CPR;
    bool ok = r < p.M;
    int src = r;
    if (MOE && ok) {
      int sid = p.sorted_ids[r];
      ok = sid < p.num_valid;
      src = ok ? sid / p.a_row_div : 0;
    }
    a_ok[i] = ok;
    a_src[i] = p.A + (size_t)(ok ? src : 0) * p.K + (c % CPR) * 8;
  }
  const __nv_bfloat16* b_src[IB];
  bool b_ok[IB];
#pragma unroll
  for (int i = 0; i < IB; ++i) {
    int c = tid + i * T, r = n0 + c / CPR;
    b_ok[i] = r < p.N;
    b_src[i] = B + (size_t)(r < p.N ? r : 0) * p.K + (c % CPR) * 8;
  }
  const int ktiles = (p.K + BK - 1) / BK;
  auto load = [&](int kt, int st) {
    int k0 = kt * BK;
#pragma unroll
    for (int i = 0; i < IA; ++i) {
      int c = tid + i * T, kc = k0 + (c % CPR) * 8;
      bool ok = a_ok[i] && kc < p.K;
      cp_async16(As + (st * BM + c / CPR) * LDS + (c % CPR) * 8, ok ? a_src[i] + k0 : p.A, ok);
    }
#pragma unroll
    for (int i = 0; i < IB; ++i) {
      int c = tid + i * T, kc = k0 + (c % CPR) * 8;
      bool ok = b_ok[i] && kc < p.K;
      cp_async16(Bs + (st * BN + c / CPR) * LDS + (c % CPR) * 8, ok ? b_src[i] + k0 : B, ok);
    }
  };

  float acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load(s, s);
    cp_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_wait<STAGES - 2>();
    __syncthreads();  // tile kt landed for all threads; stage (kt-1)%STAGES is free
    int nk = kt + STAGES - 1;
    if (nk < ktiles) load(nk, nk % STAGES);
    cp_commit();
    const __nv_bfloat16* as = As + (kt % STAGES) * BM * LDS;
    const __nv_bfloat16* bs = Bs + (kt % STAGES) * BN * LDS;
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      uint32_t af[MI][4], bf[NI][2];
#pragma unroll
      for (int i = 0; i < MI; ++i)
        ldsm_x4(af[i], as + (wm * TM + i * 16 + (lane & 15)) * LDS + kk * 16 + (lane >> 4) * 8);
#pragma unroll
      for (int j = 0; j < NI / 2; ++j) {
        uint32_t r[4];
        ldsm_x4(r, bs + (wn * TN + j * 16 + (lane & 7) + (lane >> 4) * 8) * LDS + kk * 16 + ((lane >> 3) & 1) * 8);
        bf[2 * j][0] = r[0], bf[2 * j][1] = r[1], bf[2 * j + 1][0] = r[2], bf[2 * j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) mma16816(acc[i][j], af[i], bf[j][0], bf[j][1]);
    }
  }
  cp_wait<0>();

#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int r = m0 + wm * TM + i * 16 + (lane >> 2) + h * 8;
      if (r >= p.M) continue;
      int dst = r;
      if (MOE) {
        dst = p.sorted_ids[r];
        if (dst >= p.num_valid) continue;
      }
#pragma unroll
      for (int j = 0; j < NI; ++j) {
        int c = n0 + wn * TN + j * 8 + (lane & 3) * 2;
        if (c < p.N)
          *reinterpret_cast<__nv_bfloat162*>(p.C + (size_t)dst * p.N + c) =
              __floats2bfloat162_rn(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
      }
    }
}

/// Launches config `Cfg` (a TileCfg) of the kernel; grid_m = M-tiles (dense: ceil(M/BM)).
template <int BM, int BN, int BK, int STAGES, int WM, int WN, bool MOE>
cudaError_t launch(const GemmArgs& p, int grid_m, cudaStream_t s) {
  constexpr int smem = smem_bytes<BM, BN, BK, STAGES, WM, WN>();
  auto k = loom_gemm_kernel<BM, BN, BK, STAGES, WM, WN, MOE>;
  static cudaError_t attr = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (attr != cudaSuccess) return attr;
  dim3 grid((p.N + BN - 1) / BN, grid_m);
  k<<<grid, WM * WN * 32, smem, s>>>(p);
  return cudaGetLastError();
}

}  // namespace tiled

using GemmLaunchFn = cudaError_t (*)(const GemmArgs&, int grid_m, cudaStream_t);
/// Launcher of dense config kGemmCfgs[I] / MoE config kMoeCfgs[I]; explicitly instantiated in gemm_inst_*.cu.
template <int I> cudaError_t launch_dense(const GemmArgs& p, int grid_m, cudaStream_t s);
template <int I> cudaError_t launch_moe(const GemmArgs& p, int grid_m, cudaStream_t s);

#define LOOM_INST_DENSE(I)                                                                                  \
  template <> cudaError_t launch_dense<I>(const GemmArgs& p, int grid_m, cudaStream_t s) {                  \
    constexpr TileCfg c = kGemmCfgs[I];                                                                     \
    return tiled::launch<c.bm, c.bn, c.bk, c.stages, c.wm, c.wn, false>(p, grid_m, s);                      \
  }
#define LOOM_INST_MOE(I)                                                                                    \
  template <> cudaError_t launch_moe<I>(const GemmArgs& p, int grid_m, cudaStream_t s) {                    \
    constexpr TileCfg c = kMoeCfgs[I];                                                                      \
    return tiled::launch<c.bm, c.bn, c.bk, c.stages, c.wm, c.wn, true>(p, grid_m, s);                       \
  }

}  // namespace bench
