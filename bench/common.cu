// Implementation of common.h: CUDA error translation, hash-based random fills, the device arena.
#include "common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <string>

namespace bench {

void throw_cuda(cudaError_t e, const char* expr, const char* file, int line) {
  CudaFailure f(std::string(file) + ":" + std::to_string(line) + ": " + expr + " -> " + cudaGetErrorName(e) +
                " (" + cudaGetErrorString(e) + ")");
  // These leave the context unusable: the sweep must stop rather than log garbage.
  f.sticky = e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
             e == cudaErrorIllegalInstruction || e == cudaErrorHardwareStackError || e == cudaErrorUnknown;
  throw f;
}

void throw_cu(CUresult e, const char* expr, const char* file, int line) {
  CudaFailure f(std::string(file) + ":" + std::to_string(line) + ": " + expr + " -> CUresult " + std::to_string((int)e) +
                " (see cuda.h)");
  f.sticky = e == CUDA_ERROR_ILLEGAL_ADDRESS || e == CUDA_ERROR_LAUNCH_FAILED;
  throw f;
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp8: return "fp8";  // loom vocabulary (e4m3 inputs, bf16 output)
  }
  return "?";
}

size_t dtype_bytes(DType d) {
  switch (d) {
    case DType::bf16: case DType::fp16: return 2;
    case DType::fp32: case DType::tf32: return 4;
    case DType::fp8: return 1;
  }
  return 0;
}

namespace {
__device__ __forceinline__ float hash_unit(uint64_t i, uint64_t seed) {  // splitmix64 -> [0,1)
  uint64_t z = i + seed * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (float)(z >> 40) * (1.0f / 16777216.0f);
}

template <typename T>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed, float lo, float hi) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = lo + (hi - lo) * hash_unit(i, seed);
    if (v == 0.0f) v = 0.5f * hi;  // never exact zeros
    p[i] = T(v);
  }
}

__global__ void fill_int_kernel(int* p, size_t n, int mod, uint64_t seed) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = (int)(hash_unit(i, seed) * mod) % mod;
}
}  // namespace

void fill_random(void* p, size_t n, DType d, uint64_t seed, float lo, float hi, cudaStream_t s) {
  if (n == 0) return;
  int blocks = (int)std::min<size_t>((n + 255) / 256, 4096);
  switch (d) {
    case DType::bf16: fill_kernel<<<blocks, 256, 0, s>>>((__nv_bfloat16*)p, n, seed, lo, hi); break;
    case DType::fp16: fill_kernel<<<blocks, 256, 0, s>>>((__half*)p, n, seed, lo, hi); break;
    case DType::fp32: case DType::tf32: fill_kernel<<<blocks, 256, 0, s>>>((float*)p, n, seed, lo, hi); break;
    case DType::fp8: fill_kernel<<<blocks, 256, 0, s>>>((__nv_fp8_e4m3*)p, n, seed, lo, hi); break;
  }
  CK_LAUNCH();
}

void fill_random_int(int* p, size_t n, int mod, uint64_t seed, cudaStream_t s) {
  if (n == 0) return;
  int blocks = (int)std::min<size_t>((n + 255) / 256, 4096);
  fill_int_kernel<<<blocks, 256, 0, s>>>(p, n, mod, seed);
  CK_LAUNCH();
}

void Arena::init(size_t bytes) {
  CK(cudaMalloc(&base_, bytes));
  cap_ = bytes;
  used_ = 0;
}

void* Arena::take(size_t bytes) {
  size_t off = (used_ + 255) / 256 * 256;
  if (off + bytes > cap_)
    throw CudaFailure("arena full: case needs " + std::to_string((off + bytes) >> 20) + " MiB of " +
                      std::to_string(cap_ >> 20) + " MiB; raise the arena size or shrink the shape");
  used_ = off + bytes;
  return base_ + off;
}

}  // namespace bench
