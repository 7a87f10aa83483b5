// Helpers shared by the correctness checks (check.cu, check_memory.cu): copy a bf16 device buffer to host floats,
// and the relative L2 error against a float64 reference.
#pragma once
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <vector>
#include "common.h"

namespace bench {

/// n bf16 values from device memory, as floats.
inline std::vector<float> host_bf16(const void* d, size_t n) {
  std::vector<__nv_bfloat16> h(n);
  CK(cudaMemcpy(h.data(), d, n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i) f[i] = __bfloat162float(h[i]);
  return f;
}

/// ||out - ref|| / ||ref||; infinity when out holds a NaN (e.g. an unwritten, poisoned element).
inline double rel_err(const std::vector<float>& out, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(out[i])) return INFINITY;
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / std::max(den, 1e-30));
}

}  // namespace bench
