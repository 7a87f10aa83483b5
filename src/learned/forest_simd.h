// The SIMD batch walks of Forest::predict_batch (learned/forest.cpp) over its perfect-tree arrays (forest.h,
// Forest::Perfect), chosen at run time (the build stays baseline x86-64). Internal to src/learned.
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom::forest_simd {

#if defined(__x86_64__) && defined(__GNUC__)
#define LOOM_FOREST_SIMD 1
/// Rows the AVX2 walk takes at a time (four vectors of eight) and the AVX-512 walk (four vectors of sixteen).
inline constexpr size_t kAvx2Chunk = 32, kAvx512Chunk = 64;

bool cpu_has_avx2();
bool cpu_has_avx512();

/// Rows [0, n - n % chunk) of a batch, each row's sum of its trees' leaves added in tree order from base_score in
/// its own lane: the scalar walk's float additions in its order. Return the rows done. `feature_bits`,
/// `default_left_bit` and `pass_left_bit` pick the fields of a word; row offsets (15 x stride + feature) must fit
/// 32-bit lanes (stride < 2^24).
size_t walk_avx2(const float* thresholds, const uint32_t* words, const float* leaves, int32_t depth, size_t trees,
                 float base_score, const float* x, size_t n, size_t stride, uint32_t feature_bits,
                 uint32_t default_left_bit, uint32_t pass_left_bit, float* out);
size_t walk_avx512(const float* thresholds, const uint32_t* words, const float* leaves, int32_t depth, size_t trees,
                   float base_score, const float* x, size_t n, size_t stride, uint32_t feature_bits,
                   uint32_t default_left_bit, uint32_t pass_left_bit, float* out);
#endif

}  // namespace loom::forest_simd
