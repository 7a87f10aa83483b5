// Memory-bound families (impl loom): rms_norm, layer_norm, softmax (one block per row), elementwise
// add|mul|silu|gelu|silu_mul and neox rotary. 16-byte vector loads; cols must be a multiple of 16 B / elem.
#include "runners.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace bench {
MemBufs g_mem_last;
namespace {

template <typename T> struct V { static constexpr int n = 16 / sizeof(T); T x[n]; };
template <typename T> __device__ __forceinline__ V<T> ld(const T* p) { V<T> v; *reinterpret_cast<uint4*>(v.x) = *reinterpret_cast<const uint4*>(p); return v; }
template <typename T> __device__ __forceinline__ void st(T* p, const V<T>& v) { *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(v.x); }
template <typename T> __device__ __forceinline__ float f(T x) { return (float)x; }
template <> __device__ __forceinline__ float f(__nv_bfloat16 x) { return __bfloat162float(x); }

__device__ __forceinline__ float block_sum(float v, float* sh) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  int w = threadIdx.x / 32, l = threadIdx.x % 32, nw = blockDim.x / 32;
  __syncthreads();
  if (l == 0) sh[w] = v;
  __syncthreads();
  v = l < nw ? sh[l] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__device__ __forceinline__ float block_max(float v, float* sh) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  int w = threadIdx.x / 32, l = threadIdx.x % 32, nw = blockDim.x / 32;
  __syncthreads();
  if (l == 0) sh[w] = v;
  __syncthreads();
  v = l < nw ? sh[l] : -INFINITY;
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  return v;
}

// mode 0: rms_norm, 1: layer_norm. Row read twice (second time from L1/L2), written once.
template <typename T, int MODE>
__global__ void norm_kernel(const T* x, const T* w, const T* b, T* y, int cols, float eps) {
  __shared__ float sh[32];
  constexpr int N = V<T>::n;
  const T* xr = x + (size_t)blockIdx.x * cols;
  T* yr = y + (size_t)blockIdx.x * cols;
  float s = 0.f, s2 = 0.f;
  for (int c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    V<T> v = ld(xr + c);
#pragma unroll
    for (int i = 0; i < N; ++i) { float t = f(v.x[i]); s += t; s2 += t * t; }
  }
  float mean = 0.f, rstd;
  if (MODE == 1) {
    mean = block_sum(s, sh) / cols;
    float var = block_sum(s2, sh) / cols - mean * mean;
    rstd = rsqrtf(fmaxf(var, 0.f) + eps);
  } else {
    rstd = rsqrtf(block_sum(s2, sh) / cols + eps);
  }
  for (int c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    V<T> v = ld(xr + c), wv = ld(w + c), o;
    V<T> bv;
    if (MODE == 1) bv = ld(b + c);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      float t = (f(v.x[i]) - mean) * rstd * f(wv.x[i]);
      if (MODE == 1) t += f(bv.x[i]);
      o.x[i] = T(t);
    }
    st(yr + c, o);
  }
}

template <typename T>
__global__ void softmax_kernel(const T* x, T* y, int cols) {
  __shared__ float sh[32];
  constexpr int N = V<T>::n;
  const T* xr = x + (size_t)blockIdx.x * cols;
  T* yr = y + (size_t)blockIdx.x * cols;
  float mx = -INFINITY;
  for (int c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    V<T> v = ld(xr + c);
#pragma unroll
    for (int i = 0; i < N; ++i) mx = fmaxf(mx, f(v.x[i]));
  }
  mx = block_max(mx, sh);
  float s = 0.f;
  for (int c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    V<T> v = ld(xr + c);
#pragma unroll
    for (int i = 0; i < N; ++i) s += __expf(f(v.x[i]) - mx);
  }
  float inv = 1.f / block_sum(s, sh);
  for (int c = threadIdx.x * N; c < cols; c += blockDim.x * N) {
    V<T> v = ld(xr + c), o;
#pragma unroll
    for (int i = 0; i < N; ++i) o.x[i] = T(__expf(f(v.x[i]) - mx) * inv);
    st(yr + c, o);
  }
}

__device__ __forceinline__ float silu(float x) { return x / (1.f + __expf(-x)); }
__device__ __forceinline__ float gelu(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678f)); }

// op 0 add, 1 mul (c = a op b), 2 silu, 3 gelu (c = f(a)), 4 silu_mul (a is [rows, 2*cols]).
template <typename T, int OP>
__global__ void elementwise_kernel(const T* a, const T* b, T* c, size_t rows, int cols) {
  constexpr int N = V<T>::n;
  size_t vec_per_row = cols / N, total = rows * vec_per_row;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    size_t r = i / vec_per_row, cv = (i % vec_per_row) * N;
    V<T> o;
    if (OP == 4) {
      V<T> g = ld(a + r * 2 * cols + cv), u = ld(a + r * 2 * cols + cols + cv);
#pragma unroll
      for (int j = 0; j < N; ++j) o.x[j] = T(silu(f(g.x[j])) * f(u.x[j]));
    } else {
      V<T> x = ld(a + r * cols + cv), y;
      if (OP < 2) y = ld(b + r * cols + cv);
#pragma unroll
      for (int j = 0; j < N; ++j) {
        float t = f(x.x[j]);
        o.x[j] = T(OP == 0 ? t + f(y.x[j]) : OP == 1 ? t * f(y.x[j]) : OP == 2 ? silu(t) : gelu(t));
      }
    }
    st(c + r * cols + cv, o);
  }
}

// Neox rotary, in place on q[tokens, heads, hd]; cache[max_pos, hd] = [cos(hd/2) | sin(hd/2)] (vLLM layout).
__global__ void rotary_kernel(__nv_bfloat16* q, const float* cache, const int* pos, int tokens, int heads, int hd) {
  int half = hd / 2, chunks = half / 8;
  size_t total = (size_t)tokens * heads * chunks;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    int ch = i % chunks;
    size_t th = i / chunks;
    int t = th / heads;
    __nv_bfloat16* base = q + th * hd + ch * 8;
    const float* cs = cache + (size_t)pos[t] * hd + ch * 8;
    V<__nv_bfloat16> x1 = ld(base), x2 = ld(base + half), o1, o2;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float c = cs[j], s = cs[half + j], a = f(x1.x[j]), b = f(x2.x[j]);
      o1.x[j] = __float2bfloat16(a * c - b * s);
      o2.x[j] = __float2bfloat16(b * c + a * s);
    }
    st(base, o1);
    st(base + half, o2);
  }
}

int row_threads(int cols, int per_thread) {
  int t = (cols / per_thread + 31) / 32 * 32;
  return std::max(32, std::min(1024, t));
}

template <typename T>
Variant make_rowwise(const Case& cs, const Ctx& ctx) {
  const int64_t R = cs.m, C = cs.n;
  DType d = cs.dtype;
  constexpr int N = V<T>::n;
  if (C % N) throw CudaFailure("cols must be a multiple of " + std::to_string(N));
  int in_mult = cs.kind == Kind::elementwise && cs.op == 4 ? 2 : 1;
  T* a = (T*)ctx.arena->take(R * C * in_mult * sizeof(T));
  T* b = (T*)ctx.arena->take(R * C * sizeof(T));
  T* w = (T*)ctx.arena->take(C * sizeof(T));
  T* bias = (T*)ctx.arena->take(C * sizeof(T));
  T* y = (T*)ctx.arena->take(R * C * sizeof(T));
  fill_random(a, R * C * in_mult, d, ctx.seed, -2.f, 2.f, ctx.stream);
  fill_random(b, R * C, d, ctx.seed + 1, -2.f, 2.f, ctx.stream);
  fill_random(w, C, d, ctx.seed + 2, 0.5f, 1.5f, ctx.stream);
  fill_random(bias, C, d, ctx.seed + 3, -0.1f, 0.1f, ctx.stream);
  g_mem_last = MemBufs{a, b, w, bias, y, nullptr, nullptr};
  Variant v;
  v.spec = cs.spec, v.impl = "loom";
  double ws = (double)R * C * sizeof(T) * (2 + in_mult);
  v.flush_l2 = needs_flush(ws, ctx);
  cudaStream_t s = ctx.stream;
  int th = row_threads((int)C, N);
  int grid_ew = (int)std::min<int64_t>((R * C / N + 255) / 256, (int64_t)ctx.sms * 16);
  switch (cs.kind) {
    case Kind::rms_norm: v.launch = [=] { norm_kernel<T, 0><<<R, th, 0, s>>>(a, w, bias, y, C, 1e-6f); }; break;
    case Kind::layer_norm: v.launch = [=] { norm_kernel<T, 1><<<R, th, 0, s>>>(a, w, bias, y, C, 1e-5f); }; break;
    case Kind::softmax: v.launch = [=] { softmax_kernel<T><<<R, th, 0, s>>>(a, y, C); }; break;
    case Kind::elementwise:
      switch (cs.op) {
        case 0: v.launch = [=] { elementwise_kernel<T, 0><<<grid_ew, 256, 0, s>>>(a, b, y, R, C); }; break;
        case 1: v.launch = [=] { elementwise_kernel<T, 1><<<grid_ew, 256, 0, s>>>(a, b, y, R, C); }; break;
        case 2: v.launch = [=] { elementwise_kernel<T, 2><<<grid_ew, 256, 0, s>>>(a, b, y, R, C); }; break;
        case 3: v.launch = [=] { elementwise_kernel<T, 3><<<grid_ew, 256, 0, s>>>(a, b, y, R, C); }; break;
        default: v.launch = [=] { elementwise_kernel<T, 4><<<grid_ew, 256, 0, s>>>(a, b, y, R, C); }; break;
      }
      break;
    default: throw CudaFailure("not a row-wise family");
  }
  return v;
}

}  // namespace

std::vector<Variant> prepare_memory(const Case& cs, const Ctx& ctx) {
  if (cs.kind == Kind::rotary) {
    const int64_t T = cs.m, H = cs.heads, D = cs.head_dim, max_pos = 8192;
    auto* q = (__nv_bfloat16*)ctx.arena->take(T * H * D * 2);
    auto* cache = (float*)ctx.arena->take(max_pos * D * 4);
    auto* pos = (int*)ctx.arena->take(T * 4);
    fill_random(q, T * H * D, DType::bf16, ctx.seed, -1.f, 1.f, ctx.stream);
    fill_random(cache, max_pos * D, DType::fp32, ctx.seed + 1, -1.f, 1.f, ctx.stream);
    fill_random_int(pos, T, (int)max_pos, ctx.seed + 2, ctx.stream);
    g_mem_last = MemBufs{q, nullptr, nullptr, nullptr, q, cache, pos};
    Variant v;
    v.spec = cs.spec, v.impl = "loom";
    v.flush_l2 = needs_flush(4.0 * T * H * D, ctx);
    cudaStream_t s = ctx.stream;
    int grid = (int)std::min<int64_t>((T * H * D / 16 + 255) / 256, (int64_t)ctx.sms * 16);
    v.launch = [=] { rotary_kernel<<<grid, 256, 0, s>>>(q, cache, pos, (int)T, (int)H, (int)D); };
    return {v};
  }
  switch (cs.dtype) {
    case DType::bf16: return {make_rowwise<__nv_bfloat16>(cs, ctx)};
    case DType::fp16: return {make_rowwise<__half>(cs, ctx)};
    case DType::fp32: return {make_rowwise<float>(cs, ctx)};
    default: throw CudaFailure("memory families support bf16, fp16, fp32");
  }
}

}  // namespace bench
