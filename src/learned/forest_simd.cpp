// SIMD batch walks of a forest's perfect-tree arrays: see learned/forest_simd.h.
#include "learned/forest_simd.h"

#ifdef LOOM_FOREST_SIMD
#include <immintrin.h>

#include <algorithm>
#include <vector>

namespace loom::forest_simd {
namespace {
constexpr size_t kVecRows = 8, kVecGroups = 4, kVec512Rows = 16;
// 64-row chunks a block of the AVX-512 walk: 2, 4, 6 and 8 measured within noise of each other, 12-16 slower (the
// block's transposed features and rows no longer stay near L1).
constexpr size_t kBlockChunks = 4;
// 32-row chunks a block of the AVX2 walk of deep forests (docs/speed-round12.md).
constexpr size_t kAvx2BlockChunks = 8;
}  // namespace

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

bool cpu_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

namespace {
// The constants of the AVX2 walk's lanes: row offsets of a vector's eight rows and the word's fields.
struct Avx2Lanes {
  __m256i row_off, feature_mask, default_left, pass_left;
};

// Chunk c of nc's share of the next tree's arrays (thresholds and words after this tree's `inner` slots, leaves after
// its `leaf_count`), prefetched into L2 while a block walks this tree: both walks of deep forests.
inline void prefetch_next_tree(const float* thr, const int32_t* word, const float* leaf, size_t inner,
                               size_t leaf_count, size_t c, size_t nc) {
  const size_t part_t = (inner * 4 + nc - 1) / nc, part_l = (leaf_count * 4 + nc - 1) / nc;
  const char* nt = reinterpret_cast<const char*>(thr + inner);
  const char* nw = reinterpret_cast<const char*>(word + inner);
  const char* nl = reinterpret_cast<const char*>(leaf + leaf_count);
  for (size_t b = c * part_t; b < std::min(inner * 4, (c + 1) * part_t); b += 64) {
    _mm_prefetch(nt + b, _MM_HINT_T1);
    _mm_prefetch(nw + b, _MM_HINT_T1);
  }
  for (size_t b = c * part_l; b < std::min(leaf_count * 4, (c + 1) * part_l); b += 64) _mm_prefetch(nl + b, _MM_HINT_T1);
}

// One tree of the AVX2 walk for one 32-row chunk (rows at x, stride floats apart): leaves each vector's lanes at
// their leaf slots (inner + leaf index). The first four levels (15 slots) take their thresholds and words from two
// 8-slot loads by an in-register permute, the fifth (16 slots) from two more and a blend; deeper levels gather them;
// every level gathers the rows' feature values. A lane at slot i goes to 2i+1 (left) or 2i+2 (right), right
// exactly when the scalar walk goes right (NaN: !default_left, else !(v < threshold)); pass-left slots below a leaf
// always go left, to the slot holding that leaf's value.
__attribute__((target("avx2"), always_inline)) inline void avx2_tree_slots(const float* thr, const int32_t* word,
                                                                          int32_t depth, const float* x, size_t stride,
                                                                          const Avx2Lanes& k, __m256i* slot) {
  const __m256i one = _mm256_set1_epi32(1), fifteen = _mm256_set1_epi32(15);
  // Slots 0-7 (levels 0-2, and slot 7) and 7-14 (level 3) in registers.
  const __m256 thr_lo = _mm256_loadu_ps(thr), thr_hi = _mm256_loadu_ps(thr + 7);
  const __m256i word_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word));
  const __m256i word_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word + 7));
  for (size_t g = 0; g < kVecGroups; ++g) slot[g] = _mm256_setzero_si256();
  for (int32_t d = 0; d < depth; ++d)
    for (size_t g = 0; g < kVecGroups; ++g) {
      __m256 threshold;
      __m256i w;
      if (d < 3) {
        threshold = _mm256_permutevar8x32_ps(thr_lo, slot[g]);
        w = _mm256_permutevar8x32_epi32(word_lo, slot[g]);
      } else if (d == 3) {  // slots 7-14: (slot + 1) mod 8 indexes the registers loaded from slot 7
        const __m256i s = _mm256_add_epi32(slot[g], one);
        threshold = _mm256_permutevar8x32_ps(thr_hi, s);
        w = _mm256_permutevar8x32_epi32(word_hi, s);
      } else if (d == 4) {  // slots 15-30: two 8-slot loads each, permuted, the upper half chosen by bit 3
        const __m256i s = _mm256_sub_epi32(slot[g], fifteen);
        const __m256i upper = _mm256_slli_epi32(s, 28);  // bit 3 to the sign bit
        threshold = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(thr + 15), s),
                                     _mm256_permutevar8x32_ps(_mm256_loadu_ps(thr + 23), s),
                                     _mm256_castsi256_ps(upper));
        w = _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word + 15)), s)),
            _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word + 23)), s)),
            _mm256_castsi256_ps(upper)));
      } else {
        threshold = _mm256_i32gather_ps(thr, slot[g], 4);
        w = _mm256_i32gather_epi32(word, slot[g], 4);
      }
      const float* rows = x + g * kVecRows * stride;
      const __m256 v = _mm256_i32gather_ps(rows, _mm256_add_epi32(k.row_off, _mm256_and_si256(w, k.feature_mask)), 4);
      const __m256i lt = _mm256_castps_si256(_mm256_cmp_ps(v, threshold, _CMP_LT_OQ));
      const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      const __m256i defl = _mm256_cmpeq_epi32(_mm256_and_si256(w, k.default_left), k.default_left);
      const __m256i pass = _mm256_cmpeq_epi32(_mm256_and_si256(w, k.pass_left), k.pass_left);
      const __m256i go_left = _mm256_or_si256(_mm256_or_si256(lt, pass), _mm256_and_si256(nan, defl));
      const __m256i right = _mm256_andnot_si256(go_left, one);
      slot[g] = _mm256_add_epi32(_mm256_add_epi32(slot[g], slot[g]), _mm256_add_epi32(one, right));
    }
}
}  // namespace

// Rows [0, n - n % 32) of predict_batch, eight rows per 256-bit vector, over the perfect-tree arrays (forest.h):
// `inner` = 2^depth - 1 slots per tree (avx2_tree_slots walks one tree). Each lane adds its tree's leaf to its own
// accumulator in tree order from base_score: the scalar walk's float additions in its order (no FMA, no
// reassociation). Returns the rows done.
// Forests of depth 9 and up (2.4 MB and more at 400 trees: beyond L2) walk blocks of kAvx2BlockChunks chunks tree by
// tree, each row's running sum kept in `out` between trees (the same additions in the same order), so a tree's
// arrays (~12 KB at depth 10) are read once per block instead of once per 32 rows, and the next tree's are
// prefetched into L2 while the block walks this one (as the AVX-512 walk; docs/speed-round12.md). Shallower
// forests stay in L2 and keep each chunk's sums in registers.
__attribute__((target("avx2"))) size_t walk_avx2(const float* thresholds, const uint32_t* words_u, const float* leaves,
                                                 int32_t depth, size_t trees, float base_score, const float* x,
                                                 size_t n, size_t stride, uint32_t feature_bits,
                                                 uint32_t default_left_bit, uint32_t pass_left_bit, float* out) {
  const int32_t* words = reinterpret_cast<const int32_t*>(words_u);
  const size_t inner = (size_t(1) << depth) - 1, leaf_count = size_t(1) << depth;
  const Avx2Lanes lanes{_mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm256_set1_epi32(static_cast<int>(stride))),
                        _mm256_set1_epi32(static_cast<int>(feature_bits)),
                        _mm256_set1_epi32(static_cast<int>(default_left_bit)),
                        _mm256_set1_epi32(static_cast<int>(pass_left_bit))};
  const __m256i inner_v = _mm256_set1_epi32(static_cast<int>(inner));
  size_t r = 0;
  if (depth < 9) {
    for (; r + kAvx2Chunk <= n; r += kAvx2Chunk) {
      __m256 acc[kVecGroups];
      for (size_t g = 0; g < kVecGroups; ++g) acc[g] = _mm256_set1_ps(base_score);
      for (size_t t = 0; t < trees; ++t) {
        __m256i slot[kVecGroups];
        avx2_tree_slots(thresholds + t * inner, words + t * inner, depth, x + r * stride, stride, lanes, slot);
        const float* leaf = leaves + t * leaf_count;
        for (size_t g = 0; g < kVecGroups; ++g)
          acc[g] = _mm256_add_ps(acc[g], _mm256_i32gather_ps(leaf, _mm256_sub_epi32(slot[g], inner_v), 4));
      }
      for (size_t g = 0; g < kVecGroups; ++g) _mm256_storeu_ps(out + r + g * kVecRows, acc[g]);
    }
    return r;
  }
  while (r + kAvx2Chunk <= n) {
    const size_t nc = std::min(kAvx2BlockChunks, (n - r) / kAvx2Chunk);
    std::fill(out + r, out + r + nc * kAvx2Chunk, base_score);
    for (size_t t = 0; t < trees; ++t) {
      const float* thr = thresholds + t * inner;
      const int32_t* word = words + t * inner;
      const float* leaf = leaves + t * leaf_count;
      for (size_t c = 0; c < nc; ++c) {
        if (t + 1 < trees) prefetch_next_tree(thr, word, leaf, inner, leaf_count, c, nc);
        const size_t rc = r + c * kAvx2Chunk;
        __m256i slot[kVecGroups];
        avx2_tree_slots(thr, word, depth, x + rc * stride, stride, lanes, slot);
        // The row's running sum plus this tree's leaf: the scalar walk's additions in tree order.
        for (size_t g = 0; g < kVecGroups; ++g) {
          float* o = out + rc + g * kVecRows;
          _mm256_storeu_ps(o, _mm256_add_ps(_mm256_loadu_ps(o),
                                            _mm256_i32gather_ps(leaf, _mm256_sub_epi32(slot[g], inner_v), 4)));
        }
      }
    }
    r += nc * kAvx2Chunk;
  }
  return r;
}

// GCC 12 warns that its own AVX-512 intrinsics (gathers, permutes: an undefined pass-through operand inside the
// header) may use an uninitialised value (GCC bug 105593); nothing here reads one.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// A 64-row chunk of rows (stride floats apart) transposed into cols: feature f's 64 values at cols[64 f].
__attribute__((target("avx512f"), always_inline)) inline void transpose_chunk(const float* x, size_t stride,
                                                                             __m512i row_off, float* cols) {
  for (size_t f = 0; f < stride; ++f)
    for (size_t g = 0; g < kVecGroups; ++g)
      _mm512_storeu_ps(cols + f * kAvx512Chunk + g * kVec512Rows,
                       _mm512_i32gather_ps(row_off, x + g * kVec512Rows * stride + f, 4));
}

// Levels 0-2 (slots 0-6) of one tree for a chunk, from its transposed features: every lane of a level-0 vector is at
// slot 0, and at levels 1-2 at one of 2 or 4 slots, so each of those 7 nodes compares one contiguous 16-row load of
// its feature with the walk's rule (left when v < threshold, at a pass-left slot, or missing where the split defaults
// left), and each lane keeps the decision of the node it is at. Sets each vector's slot at level 3 (7-14).
__attribute__((target("avx512f"), always_inline)) inline void top3_slots(const float* thr, const int32_t* word,
                                                                        const float* cols, uint32_t feature_bits,
                                                                        uint32_t default_left_bit,
                                                                        uint32_t pass_left_bit, __m512i* slot) {
  __mmask16 left[7][kVecGroups];  // node j's decision for each lane: go left
  for (size_t j = 0; j < 7; ++j) {
    const uint32_t wj = static_cast<uint32_t>(word[j]);
    const float* col = cols + (wj & feature_bits) * kAvx512Chunk;
    const __m512 tj = _mm512_set1_ps(thr[j]);
    const __mmask16 pass = (wj & pass_left_bit) ? 0xFFFF : 0, defl = (wj & default_left_bit) ? 0xFFFF : 0;
    for (size_t g = 0; g < kVecGroups; ++g) {
      const __m512 v = _mm512_loadu_ps(col + g * kVec512Rows);
      left[j][g] = static_cast<__mmask16>(_mm512_cmp_ps_mask(v, tj, _CMP_LT_OQ) | pass |
                                          (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) & defl));
    }
  }
  const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2), four = _mm512_set1_epi32(4);
  const __m512i seven = _mm512_set1_epi32(7);
  for (size_t g = 0; g < kVecGroups; ++g) {
    const __mmask16 a = left[0][g];
    const __mmask16 b = static_cast<__mmask16>((a & left[1][g]) | (~a & left[2][g]));
    const __mmask16 c = static_cast<__mmask16>((a & b & left[3][g]) | (a & ~b & left[4][g]) |
                                               (~a & b & left[5][g]) | (~a & ~b & left[6][g]));
    // slot 7 + 4 (right at level 0) + 2 (right at 1) + 1 (right at 2)
    __m512i sl = _mm512_mask_add_epi32(seven, static_cast<__mmask16>(~a), seven, four);
    sl = _mm512_mask_add_epi32(sl, static_cast<__mmask16>(~b), sl, two);
    slot[g] = _mm512_mask_add_epi32(sl, static_cast<__mmask16>(~c), sl, one);
  }
}

// Slot k (0-127) of 128 words at q for each lane: four two-source permutes of 32 words, bits 5 and 6 of k (b5, b6)
// picking one.
__attribute__((target("avx512f"), always_inline)) inline __m512i permute128(const int32_t* q, __m512i k, __mmask16 b5,
                                                                           __mmask16 b6) {
  const __m512i p0 = _mm512_permutex2var_epi32(_mm512_loadu_si512(q), k, _mm512_loadu_si512(q + 16));
  const __m512i p1 = _mm512_permutex2var_epi32(_mm512_loadu_si512(q + 32), k, _mm512_loadu_si512(q + 48));
  const __m512i p2 = _mm512_permutex2var_epi32(_mm512_loadu_si512(q + 64), k, _mm512_loadu_si512(q + 80));
  const __m512i p3 = _mm512_permutex2var_epi32(_mm512_loadu_si512(q + 96), k, _mm512_loadu_si512(q + 112));
  return _mm512_mask_blend_epi32(b6, _mm512_mask_blend_epi32(b5, p0, p1), _mm512_mask_blend_epi32(b5, p2, p3));
}

// The AVX-512 form of walk_avx2: sixteen rows a vector, four vectors a tree, masks instead of compare vectors.
// Levels 0-3 (slots 0-14) permute one 16-slot register, level 4 (slots 15-30) another, level 5 (slots 31-62) two
// through a two-source permute, level 6 (slots 63-126) four through two permutes and a blend, level 7 (slots 127-254)
// eight through four and three blends, level 8 (slots 255-510) sixteen through eight and seven blends (from L1: up to
// here two gathers cost more than the permutes on the AVX-512 host, see docs/speed-round11.md); deeper levels
// gather. The same lane decisions and the same additions per lane.
__attribute__((target("avx512f"))) size_t walk_avx512(const float* thresholds, const uint32_t* words_u,
                                                     const float* leaves, int32_t depth, size_t trees,
                                                     float base_score, const float* x, size_t n, size_t stride,
                                                     uint32_t feature_bits, uint32_t default_left_bit,
                                                     uint32_t pass_left_bit, float* out) {
  const int32_t* words = reinterpret_cast<const int32_t*>(words_u);
  const size_t inner = (size_t(1) << depth) - 1, leaf_count = size_t(1) << depth;
  const __m512i row_off = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(static_cast<int>(stride)));
  const __m512i feature_mask = _mm512_set1_epi32(static_cast<int>(feature_bits));
  const __m512i default_left = _mm512_set1_epi32(static_cast<int>(default_left_bit));
  const __m512i pass_left = _mm512_set1_epi32(static_cast<int>(pass_left_bit));
  const __m512i one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2);
  const __m512i inner_v = _mm512_set1_epi32(static_cast<int>(inner));
  const __m512i fifteen = _mm512_set1_epi32(15), thirty_one = _mm512_set1_epi32(31);
  const __m512i thirty_two = _mm512_set1_epi32(32), sixty_three = _mm512_set1_epi32(63);
  const __m512i sixty_four = _mm512_set1_epi32(64), one_two_seven = _mm512_set1_epi32(127);
  const __m512i one_two_eight = _mm512_set1_epi32(128), two_five_five = _mm512_set1_epi32(255);
  // Levels 0-2 without gathers (top3_slots) where the forest has them and the transposed chunk is at most 256 KB.
  const bool top3 = depth >= 3 && stride <= 1024;
  // Chunks of a block walk tree by tree (tree-major), each row's sum kept in `out` between trees: one tree's arrays
  // (~12 KB at depth 10; the forest's 4.9 MB do not fit L2) are read once per block instead of once per chunk, and
  // stay in L1/L2 while the block's chunks walk it. The transposed block stays within ~256 KB.
  // Only for forests whose arrays outgrow L2 (depth 9 and up: 2.4 MB and more at 400 trees); a depth-6 forest
  // (~300 KB) stays in L2 anyway and its chunks walk one at a time, as before.
  const size_t max_chunks = depth >= 9 ? kBlockChunks : 1;
  // The same forests prefetch the next tree's arrays into L2 while the block walks this one, a share per chunk.
  const bool prefetch = depth >= 9;
  const size_t block_chunks = top3 ? std::max<size_t>(1, std::min<size_t>(max_chunks, 1024 / stride)) : max_chunks;
  thread_local std::vector<float> cols;
  if (top3) cols.resize(stride * kAvx512Chunk * block_chunks);
  size_t r = 0;
  while (r + kAvx512Chunk <= n) {
    const size_t nc = std::min(block_chunks, (n - r) / kAvx512Chunk);
    for (size_t c = 0; c < nc; ++c) {
      if (top3)
        transpose_chunk(x + (r + c * kAvx512Chunk) * stride, stride, row_off, cols.data() + c * stride * kAvx512Chunk);
      for (size_t g = 0; g < kVecGroups; ++g)
        _mm512_storeu_ps(out + r + c * kAvx512Chunk + g * kVec512Rows, _mm512_set1_ps(base_score));
    }
    for (size_t t = 0; t < trees; ++t) {
      const float* thr = thresholds + t * inner;
      const int32_t* word = words + t * inner;
      // Registers for the levels the forest has (the arrays are padded by 32 slots past the last tree, and a level
      // exists only where the tree has its slots): slots 0-15, 15-30, 31-46 and 47-62.
      const __m512 thr0 = _mm512_loadu_ps(thr);
      const __m512i word0 = _mm512_loadu_si512(word);
      __m512 thr1 = _mm512_setzero_ps(), thr2 = thr1, thr3 = thr1;
      __m512i word1 = _mm512_setzero_si512(), word2 = word1, word3 = word1;
      if (depth >= 5) thr1 = _mm512_loadu_ps(thr + 15), word1 = _mm512_loadu_si512(word + 15);
      if (depth >= 6) {
        thr2 = _mm512_loadu_ps(thr + 31), word2 = _mm512_loadu_si512(word + 31);
        thr3 = _mm512_loadu_ps(thr + 47), word3 = _mm512_loadu_si512(word + 47);
      }
      const int32_t d_perm = depth >= 7 ? 7 : 6;  // level 6 (slots 63-126) from four registers an array too
      const int32_t d_perm7 = depth >= 8 ? 8 : d_perm;  // level 7 (slots 127-254) from eight registers an array
      const int32_t d_perm8 = depth >= 9 ? 9 : d_perm7;  // level 8 (slots 255-510) from sixteen
      for (size_t c = 0; c < nc; ++c) {
        const size_t rc = r + c * kAvx512Chunk;
        if (prefetch && t + 1 < trees)
          prefetch_next_tree(thr, word, leaves + t * leaf_count, inner, leaf_count, c, nc);
        __m512i slot[kVecGroups];
        for (size_t g = 0; g < kVecGroups; ++g) slot[g] = _mm512_setzero_si512();
        int32_t d0 = 0;
        if (top3)
          top3_slots(thr, word, cols.data() + c * stride * kAvx512Chunk, feature_bits, default_left_bit, pass_left_bit,
                     slot),
              d0 = 3;
        for (int32_t d = d0; d < depth; ++d)
          for (size_t g = 0; g < kVecGroups; ++g) {
            __m512 threshold;
            __m512i w;
            if (d < 4) {
              threshold = _mm512_permutexvar_ps(slot[g], thr0);
              w = _mm512_permutexvar_epi32(slot[g], word0);
            } else if (d == 4) {
              const __m512i k = _mm512_sub_epi32(slot[g], fifteen);
              threshold = _mm512_permutexvar_ps(k, thr1);
              w = _mm512_permutexvar_epi32(k, word1);
            } else if (d == 5) {  // k in 0-31: bit 4 picks the second register
              const __m512i k = _mm512_sub_epi32(slot[g], thirty_one);
              threshold = _mm512_permutex2var_ps(thr2, k, thr3);
              w = _mm512_permutex2var_epi32(word2, k, word3);
            } else if (d < d_perm) {  // k in 0-63: bits 0-4 index a register pair, bit 5 picks the pair
              const __m512i k = _mm512_sub_epi32(slot[g], sixty_three);
              const __mmask16 upper = _mm512_test_epi32_mask(k, thirty_two);
              threshold = _mm512_mask_blend_ps(
                  upper, _mm512_permutex2var_ps(_mm512_loadu_ps(thr + 63), k, _mm512_loadu_ps(thr + 79)),
                  _mm512_permutex2var_ps(_mm512_loadu_ps(thr + 95), k, _mm512_loadu_ps(thr + 111)));
              w = _mm512_mask_blend_epi32(
                  upper, _mm512_permutex2var_epi32(_mm512_loadu_si512(word + 63), k, _mm512_loadu_si512(word + 79)),
                  _mm512_permutex2var_epi32(_mm512_loadu_si512(word + 95), k, _mm512_loadu_si512(word + 111)));
            } else if (d < d_perm7) {  // level 7 (slots 127-254): four register pairs, bits 5-6 pick the pair
              const __m512i k = _mm512_sub_epi32(slot[g], one_two_seven);
              const __mmask16 b5 = _mm512_test_epi32_mask(k, thirty_two), b6 = _mm512_test_epi32_mask(k, sixty_four);
              threshold = _mm512_castsi512_ps(permute128(reinterpret_cast<const int32_t*>(thr) + 127, k, b5, b6));
              w = permute128(word + 127, k, b5, b6);
            } else if (d < d_perm8) {  // level 8 (slots 255-510): sixteen registers an array, bits 5-7 pick one
              const __m512i k = _mm512_sub_epi32(slot[g], two_five_five);
              const __mmask16 b5 = _mm512_test_epi32_mask(k, thirty_two), b6 = _mm512_test_epi32_mask(k, sixty_four);
              const __mmask16 b7 = _mm512_test_epi32_mask(k, one_two_eight);
              const int32_t* q = reinterpret_cast<const int32_t*>(thr) + 255;
              threshold = _mm512_castsi512_ps(
                  _mm512_mask_blend_epi32(b7, permute128(q, k, b5, b6), permute128(q + 128, k, b5, b6)));
              w = _mm512_mask_blend_epi32(b7, permute128(word + 255, k, b5, b6), permute128(word + 383, k, b5, b6));
            } else {
              threshold = _mm512_i32gather_ps(slot[g], thr, 4);
              w = _mm512_i32gather_epi32(slot[g], word, 4);
            }
            const float* rows = x + (rc + g * kVec512Rows) * stride;
            const __m512 v = _mm512_i32gather_ps(_mm512_add_epi32(row_off, _mm512_and_si512(w, feature_mask)), rows, 4);
            const __mmask16 lt = _mm512_cmp_ps_mask(v, threshold, _CMP_LT_OQ);
            const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            const __mmask16 defl = _mm512_cmpeq_epi32_mask(_mm512_and_si512(w, default_left), default_left);
            const __mmask16 pass = _mm512_cmpeq_epi32_mask(_mm512_and_si512(w, pass_left), pass_left);
            const __mmask16 go_left = static_cast<__mmask16>(lt | pass | (nan & defl));
            // 2 * slot + 2 (right), minus one where the lane goes left
            const __m512i right_child = _mm512_add_epi32(_mm512_add_epi32(slot[g], slot[g]), two);
            slot[g] = _mm512_mask_sub_epi32(right_child, go_left, right_child, one);
          }
        const float* leaf = leaves + t * leaf_count;
        // The row's running sum plus this tree's leaf: the scalar walk's additions in tree order.
        for (size_t g = 0; g < kVecGroups; ++g) {
          float* o = out + rc + g * kVec512Rows;
          _mm512_storeu_ps(
              o, _mm512_add_ps(_mm512_loadu_ps(o), _mm512_i32gather_ps(_mm512_sub_epi32(slot[g], inner_v), leaf, 4)));
        }
      }
    }
    r += nc * kAvx512Chunk;
  }
  return r;
}
#pragma GCC diagnostic pop

}  // namespace loom::forest_simd
#endif
