// Shared helpers of loom-bench: error checking that throws (so one failing case is skipped, not fatal),
// dtypes, and the per-case execution context every family runner receives.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace bench {

/// Thrown by the CHECK macros; the sweep logs it, marks the case skipped and goes on.
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
  bool sticky = false;  ///< true when the context is unusable (illegal address, launch failure)
};

[[noreturn]] void throw_cuda(cudaError_t e, const char* expr, const char* file, int line);
[[noreturn]] void throw_cu(CUresult e, const char* expr, const char* file, int line);

#define CK(expr)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (expr);                                                               \
    if (e_ != cudaSuccess) ::bench::throw_cuda(e_, #expr, __FILE__, __LINE__);             \
  } while (0)
#define CU(expr)                                                                           \
  do {                                                                                     \
    CUresult e_ = (expr);                                                                  \
    if (e_ != CUDA_SUCCESS) ::bench::throw_cu(e_, #expr, __FILE__, __LINE__);              \
  } while (0)
/// After a kernel launch: the launch error (bad config) surfaces here.
#define CK_LAUNCH() CK(cudaGetLastError())

enum class DType { bf16, fp16, fp32, tf32, fp8 };
const char* dtype_name(DType d);
size_t dtype_bytes(DType d);  ///< storage bytes of one element (tf32 is stored as fp32)

/// Fills `n` elements at `p` with hash-based uniform values in [lo, hi) (never zeros), on `s`.
void fill_random(void* p, size_t n, DType d, uint64_t seed, float lo, float hi, cudaStream_t s);
/// Fills `n` ints with values in [0, mod).
void fill_random_int(int* p, size_t n, int mod, uint64_t seed, cudaStream_t s);

/// A bump allocator over one big device allocation; reset() between cases.
class Arena {
 public:
  void init(size_t bytes);
  void* take(size_t bytes);  ///< 256-byte aligned; throws CudaFailure when the arena is full
  void reset() { used_ = 0; }
  size_t capacity() const { return cap_; }
 private:
  char* base_ = nullptr;
  size_t cap_ = 0, used_ = 0;
};

/// What a family runner needs: the stream of the (green) context, the arena, the device's L2 size.
struct Ctx {
  cudaStream_t stream = nullptr;
  Arena* arena = nullptr;
  size_t l2_bytes = 0;
  int sms = 0;
  uint64_t seed = 1;
};

}  // namespace bench
