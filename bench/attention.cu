// Attention kernels (attention.h). The prefill kernel is a plain flash-attention forward: per block BLOCK_M
// query rows of one (batch, head), 16 rows per warp; S = Q K^T and O += P V on WMMA bf16 tensor cores with
// fp32 accumulators kept in shared memory between key blocks; the online softmax runs per row in fp32.
#include "attention.h"
#include "configs.h"
#include <mma.h>

namespace bench {
namespace {
using namespace nvcuda;
using bf16 = __nv_bfloat16;
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

template <int BM, int BN, int D>
struct PrefillSmem {
  static constexpr int LQ = D + 8, LS = BN + 4, LP = BN + 8, LO = D + 4;
  static constexpr size_t bytes = (size_t)(BM * LQ + 2 * BN * LQ + BM * LP) * 2 + (size_t)(BM * LS + BM * LO + 2 * BM) * 4;
};

template <int BM, int BN, int D>
__global__ void __launch_bounds__(BM * 2) loom_flash_prefill(AttnArgs a) {
  using L = PrefillSmem<BM, BN, D>;
  extern __shared__ __align__(128) unsigned char raw[];
  bf16* Qs = (bf16*)raw;
  bf16* Ks = Qs + BM * L::LQ;
  bf16* Vs = Ks + BN * L::LQ;
  bf16* Ps = Vs + BN * L::LQ;
  float* Ss = (float*)(Ps + BM * L::LP);
  float* Os = Ss + BM * L::LS;
  float* row_m = Os + BM * L::LO;
  float* row_l = row_m + BM;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, T = BM * 2;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * BM, kvh = h / (a.heads / a.kv_heads);
  const size_t q_stride = (size_t)a.heads * D, kv_stride = (size_t)a.kv_heads * D;
  const bf16* qg = a.q + ((size_t)b * a.seq_q) * q_stride + (size_t)h * D;
  const bf16* kg = a.k + ((size_t)b * a.seq_kv) * kv_stride + (size_t)kvh * D;
  const bf16* vg = a.v + ((size_t)b * a.seq_kv) * kv_stride + (size_t)kvh * D;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (int c = tid; c < BM * D / 8; c += T) {
    int r = c / (D / 8), col = (c % (D / 8)) * 8;
    *(uint4*)(Qs + r * L::LQ + col) = q0 + r < a.seq_q ? *(const uint4*)(qg + (size_t)(q0 + r) * q_stride + col) : zero;
  }
  for (int c = tid; c < BM * L::LO; c += T) Os[c] = 0.f;
  for (int r = tid; r < BM; r += T) row_m[r] = -INFINITY, row_l[r] = 0.f;
  const float scale = kLog2e / sqrtf((float)D);
  const int off = a.seq_kv - a.seq_q;
  int kv_end = a.seq_kv;
  if (a.causal) kv_end = min(a.seq_kv, q0 + BM + off);
  const int wr = warp * 16;  // this warp's first row
  for (int k0 = 0; k0 < kv_end; k0 += BN) {
    __syncthreads();  // previous block's K/V reads done (and Q/O init visible on the first pass)
    for (int c = tid; c < BN * D / 8; c += T) {
      int r = c / (D / 8), col = (c % (D / 8)) * 8;
      bool ok = k0 + r < a.seq_kv;
      *(uint4*)(Ks + r * L::LQ + col) = ok ? *(const uint4*)(kg + (size_t)(k0 + r) * kv_stride + col) : zero;
      *(uint4*)(Vs + r * L::LQ + col) = ok ? *(const uint4*)(vg + (size_t)(k0 + r) * kv_stride + col) : zero;
    }
    __syncthreads();
    // S[wr:wr+16, 0:BN] = Q K^T
#pragma unroll
    for (int n = 0; n < BN / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
      wmma::fill_fragment(s, 0.f);
#pragma unroll
      for (int d = 0; d < D / 16; ++d) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> qa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kb;
        wmma::load_matrix_sync(qa, Qs + wr * L::LQ + d * 16, L::LQ);
        wmma::load_matrix_sync(kb, Ks + n * 16 * L::LQ + d * 16, L::LQ);
        wmma::mma_sync(s, qa, kb, s);
      }
      wmma::store_matrix_sync(Ss + wr * L::LS + n * 16, s, L::LS, wmma::mem_row_major);
    }
    __syncwarp();
    // Online softmax of the warp's 16 rows; P to bf16, O rows rescaled.
    for (int r = wr; r < wr + 16; ++r) {
      int qi = q0 + r;
      float sv[BN / 32], mx = -INFINITY;
#pragma unroll
      for (int j = 0; j < BN / 32; ++j) {
        int kj = k0 + lane + 32 * j;
        bool ok = kj < a.seq_kv && (!a.causal || kj <= qi + off);
        sv[j] = ok ? Ss[r * L::LS + lane + 32 * j] * scale : -INFINITY;
        mx = fmaxf(mx, sv[j]);
      }
      mx = warp_max(mx);
      float m_old = row_m[r], m_new = fmaxf(m_old, mx);
      float alpha = m_old == -INFINITY ? 0.f : exp2f(m_old - m_new), sum = 0.f;
#pragma unroll
      for (int j = 0; j < BN / 32; ++j) {
        float p = m_new == -INFINITY ? 0.f : exp2f(sv[j] - m_new);
        sum += p;
        Ps[r * L::LP + lane + 32 * j] = __float2bfloat16(p);
      }
      sum = warp_sum(sum);
      if (lane == 0) row_m[r] = m_new, row_l[r] = row_l[r] * alpha + sum;
#pragma unroll
      for (int d = lane; d < D; d += 32) Os[r * L::LO + d] *= alpha;
    }
    __syncwarp();
    // O[wr:wr+16, :] += P V
#pragma unroll
    for (int d = 0; d < D / 16; ++d) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> o;
      wmma::load_matrix_sync(o, Os + wr * L::LO + d * 16, L::LO, wmma::mem_row_major);
#pragma unroll
      for (int n = 0; n < BN / 16; ++n) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> pa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vb;
        wmma::load_matrix_sync(pa, Ps + wr * L::LP + n * 16, L::LP);
        wmma::load_matrix_sync(vb, Vs + n * 16 * L::LQ + d * 16, L::LQ);
        wmma::mma_sync(o, pa, vb, o);
      }
      wmma::store_matrix_sync(Os + wr * L::LO + d * 16, o, L::LO, wmma::mem_row_major);
    }
  }
  __syncwarp();
  bf16* og = a.o + ((size_t)b * a.seq_q) * q_stride + (size_t)h * D;
  for (int r = wr; r < wr + 16; ++r) {
    if (q0 + r >= a.seq_q) break;
    float inv = row_l[r] > 0.f ? 1.f / row_l[r] : 0.f;
    for (int d = lane; d < D; d += 32) og[(size_t)(q0 + r) * q_stride + d] = __float2bfloat16(Os[r * L::LO + d] * inv);
  }
}

template <int BM, int BN, int D>
void launch_prefill(const AttnArgs& a, cudaStream_t s) {
  constexpr size_t smem = PrefillSmem<BM, BN, D>::bytes;
  auto k = loom_flash_prefill<BM, BN, D>;
  static cudaError_t attr = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  CK(attr);
  dim3 grid((a.seq_q + BM - 1) / BM, a.heads, a.batch);
  k<<<grid, BM * 2, smem, s>>>(a);
  CK_LAUNCH();
}

template <int D>
void prefill_d(int cfg, const AttnArgs& a, cudaStream_t s) {
  static_assert(kAttnCfgs[0].block_m == 64 && kAttnCfgs[0].block_n == 64, "kAttnCfgs changed: update dispatch");
  static_assert(kAttnCfgs[1].block_m == 128 && kAttnCfgs[1].block_n == 64, "kAttnCfgs changed: update dispatch");
  static_assert(kAttnCfgs[2].block_m == 64 && kAttnCfgs[2].block_n == 32, "kAttnCfgs changed: update dispatch");
  switch (cfg) {
    case 0: launch_prefill<64, 64, D>(a, s); break;
    case 1: launch_prefill<128, 64, D>(a, s); break;
    default: launch_prefill<64, 32, D>(a, s); break;
  }
}

constexpr int kSplit = 512, kDecThreads = 128;

// One block per (split, head, batch): scores of up to 512 keys, local softmax, unnormalised partial output.
template <int D>
__global__ void __launch_bounds__(kDecThreads) loom_decode_split(AttnArgs a, float* part_o, float* part_ml, int splits) {
  __shared__ float qs[D], ps[kSplit], red[kDecThreads / 32];
  const int sp = blockIdx.x, h = blockIdx.y, b = blockIdx.z, tid = threadIdx.x;
  const int kvh = h / (a.heads / a.kv_heads), k0 = sp * kSplit, n = min(kSplit, a.seq_kv - k0);
  const size_t kv_stride = (size_t)a.kv_heads * D;
  const bf16* kg = a.k + ((size_t)b * a.seq_kv + k0) * kv_stride + (size_t)kvh * D;
  const bf16* vg = a.v + ((size_t)b * a.seq_kv + k0) * kv_stride + (size_t)kvh * D;
  const float scale = kLog2e / sqrtf((float)D);
  for (int d = tid; d < D; d += kDecThreads) qs[d] = __bfloat162float(a.q[((size_t)b * a.heads + h) * D + d]) * scale;
  __syncthreads();
  float mx = -INFINITY;
  for (int j = tid; j < n; j += kDecThreads) {
    const uint4* kr = (const uint4*)(kg + (size_t)j * kv_stride);
    float acc = 0.f;
#pragma unroll
    for (int c = 0; c < D / 8; ++c) {
      uint4 u = kr[c];
      const bf16* e = (const bf16*)&u;
#pragma unroll
      for (int i = 0; i < 8; ++i) acc += qs[c * 8 + i] * __bfloat162float(e[i]);
    }
    ps[j] = acc;
    mx = fmaxf(mx, acc);
  }
  mx = warp_max(mx);
  if (tid % 32 == 0) red[tid / 32] = mx;
  __syncthreads();
  mx = red[0];
  for (int w = 1; w < kDecThreads / 32; ++w) mx = fmaxf(mx, red[w]);
  __syncthreads();
  float sum = 0.f;
  for (int j = tid; j < n; j += kDecThreads) { float p = exp2f(ps[j] - mx); ps[j] = p; sum += p; }
  sum = warp_sum(sum);
  if (tid % 32 == 0) red[tid / 32] = sum;
  __syncthreads();
  sum = 0.f;
  for (int w = 0; w < kDecThreads / 32; ++w) sum += red[w];
  size_t idx = ((size_t)b * a.heads + h) * splits + sp;
  for (int d = tid; d < D; d += kDecThreads) {
    float acc = 0.f;
    for (int j = 0; j < n; ++j) acc += ps[j] * __bfloat162float(vg[(size_t)j * kv_stride + d]);
    part_o[idx * D + d] = acc;
  }
  if (tid == 0) part_ml[idx * 2] = mx, part_ml[idx * 2 + 1] = sum;
}

__global__ void loom_decode_reduce(AttnArgs a, const float* part_o, const float* part_ml, int splits) {
  const int h = blockIdx.x, b = blockIdx.y, D = a.head_dim;
  size_t base = ((size_t)b * a.heads + h) * splits;
  float M = -INFINITY;
  for (int i = 0; i < splits; ++i) M = fmaxf(M, part_ml[(base + i) * 2]);
  float den = 0.f;
  for (int i = 0; i < splits; ++i) den += part_ml[(base + i) * 2 + 1] * exp2f(part_ml[(base + i) * 2] - M);
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    float acc = 0.f;
    for (int i = 0; i < splits; ++i) acc += part_o[(base + i) * D + d] * exp2f(part_ml[(base + i) * 2] - M);
    a.o[((size_t)b * a.heads + h) * D + d] = __float2bfloat16(acc / den);
  }
}

__global__ void attention_naive(AttnArgs a) {
  int qi = blockIdx.x * blockDim.x + threadIdx.x, h = blockIdx.y, b = blockIdx.z, D = a.head_dim;
  if (qi >= a.seq_q) return;
  int kvh = h / (a.heads / a.kv_heads), off = a.seq_kv - a.seq_q, end = a.causal ? min(a.seq_kv, qi + off + 1) : a.seq_kv;
  const bf16* q = a.q + (((size_t)b * a.seq_q + qi) * a.heads + h) * D;
  auto kp = [&](const bf16* base, int j) { return base + (((size_t)b * a.seq_kv + j) * a.kv_heads + kvh) * D; };
  float mx = -INFINITY, acc[256];
  for (int j = 0; j < end; ++j) {
    float s = 0.f;
    for (int d = 0; d < D; ++d) s += __bfloat162float(q[d]) * __bfloat162float(kp(a.k, j)[d]);
    mx = fmaxf(mx, s / sqrtf((float)D));
  }
  float den = 0.f;
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  for (int j = 0; j < end; ++j) {
    float s = 0.f;
    for (int d = 0; d < D; ++d) s += __bfloat162float(q[d]) * __bfloat162float(kp(a.k, j)[d]);
    float p = expf(s / sqrtf((float)D) - mx);
    den += p;
    for (int d = 0; d < D; ++d) acc[d] += p * __bfloat162float(kp(a.v, j)[d]);
  }
  bf16* o = a.o + (((size_t)b * a.seq_q + qi) * a.heads + h) * D;
  for (int d = 0; d < D; ++d) o[d] = __float2bfloat16(acc[d] / den);
}

}  // namespace

void attention_prefill(int cfg, const AttnArgs& a, cudaStream_t s) {
  if (a.heads % a.kv_heads) throw CudaFailure("heads must be a multiple of kv_heads");
  if (a.head_dim == 64) prefill_d<64>(cfg, a, s);
  else if (a.head_dim == 128) prefill_d<128>(cfg, a, s);
  else throw CudaFailure("prefill supports head_dim 64 and 128");
}

size_t decode_scratch_bytes(const AttnArgs& a) {
  size_t splits = (a.seq_kv + kSplit - 1) / kSplit;
  return (size_t)a.batch * a.heads * splits * (a.head_dim + 2) * sizeof(float) + 256;
}

void attention_decode(const AttnArgs& a, void* scratch, cudaStream_t s) {
  int splits = (a.seq_kv + kSplit - 1) / kSplit;
  float* part_o = (float*)scratch;
  float* part_ml = part_o + (size_t)a.batch * a.heads * splits * a.head_dim;
  dim3 grid(splits, a.heads, a.batch);
  if (a.head_dim == 64) loom_decode_split<64><<<grid, kDecThreads, 0, s>>>(a, part_o, part_ml, splits);
  else if (a.head_dim == 128) loom_decode_split<128><<<grid, kDecThreads, 0, s>>>(a, part_o, part_ml, splits);
  else throw CudaFailure("decode supports head_dim 64 and 128");
  CK_LAUNCH();
  loom_decode_reduce<<<dim3(a.heads, a.batch), 128, 0, s>>>(a, part_o, part_ml, splits);
  CK_LAUNCH();
}

void attention_reference(const AttnArgs& a, cudaStream_t s) {
  dim3 grid((a.seq_q + 63) / 64, a.heads, a.batch);
  attention_naive<<<grid, 64, 0, s>>>(a);
  CK_LAUNCH();
}

}  // namespace bench
