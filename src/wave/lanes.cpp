// The per-config decision loop over tile groups, transposed (see lanes.h).
#include "wave/lanes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace loom::wave {

void Lanes::build(const std::vector<Group>& groups, const std::vector<double>& inv,
                  const std::vector<ConfigCoef>& coef) {
  blocks = (groups.size() + kLaneWidth - 1) / kLaneWidth, slots = 0, real = 0;
  for (const Group& g : groups) slots = std::max(slots, g.configs.size());
  const size_t groups_padded = blocks * kLaneWidth, lanes = blocks * slots * kLaneWidth;
  mn.assign(groups_padded, 0), ik.assign(groups_padded, 0), bm.assign(groups_padded, 0.0f);
  config.assign(lanes, kNoConfig), inv_slots.assign(lanes, 0.0f);
  for (auto* w : {&w0, &w1, &w2, &w4, &w5, &w6}) w->assign(lanes, 0.0f);
  w3.assign(lanes, std::numeric_limits<float>::infinity());
  for (size_t q = 0; q < groups.size(); ++q) {
    const Group& g = groups[q];
    mn[q] = g.mn, ik[q] = g.ik, bm[q] = float(g.bm);
    for (size_t k = 0; k < g.configs.size(); ++k) {
      const size_t i = ((q / kLaneWidth) * slots + k) * kLaneWidth + q % kLaneWidth;
      const auto c = size_t(g.configs[k]);
      const ConfigCoef& w = coef[c];
      config[i] = g.configs[k], inv_slots[i] = float(inv[c]);
      w0[i] = float(w[0]), w1[i] = float(w[1]), w2[i] = float(w[2]), w3[i] = float(w[3]);
      w4[i] = float(w[4]), w5[i] = float(w[5]), w6[i] = float(w[6]);
      ++real;
    }
  }
}

namespace {

// Eight floats / ints: GCC's vector extensions, one AVX2 instruction or two SSE2 ones per operation. Plain IEEE
// operations in the order written (no FMA is enabled in either build), so every lane rounds as the scalar expression.
// The helpers are always inlined, so the 32-byte vectors never cross a call (GCC's ABI note does not apply).
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));

inline __attribute__((always_inline)) F8 load(const float* p) {
  F8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline __attribute__((always_inline)) I8 load(const int32_t* p) {
  I8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline __attribute__((always_inline)) F8 splat(float x) { return F8{x, x, x, x, x, x, x, x}; }

inline __attribute__((always_inline)) F8 fabs8(F8 x) { return (F8)((I8)x & 0x7fffffff); }  // std::fabs, bit for bit

// Every lane, then a running argmin per lane position (value, then config index). kPairBytes: feature 4 per tile
// pair (BytesFeature::tiles), else the shape's; kRows: the row-repeat term (gemm shapes with M below some BM);
// kEmpty: moe's empty-program term (w6 E / slots, E the pair's programs without work).
// A lane's latency is, term for term and in this order (decide_reference):
//   x = G / slots, W = max(1, ceil(x)), xf = max(G, floor) / slots
//   T = max(0.1, w0 W L + w1 W + w2 xf L + w3 + w4 B + w5 L [+ w6 x L max(0, BM/M - 1)] [+ w6 E / slots])
template <bool kPairBytes, bool kRows, bool kEmpty>
inline __attribute__((always_inline)) int argmin_lanes(const Lanes& L, const LaneInputs& in) {
  constexpr size_t kW = Lanes::kLaneWidth;
  const F8 one = splat(1.0f), floor = splat(in.floor), half = splat(0.5f), tenth = splat(0.1f), eps = splat(1e-6f);
  F8 best = splat(std::numeric_limits<float>::infinity());
  I8 best_cfg = I8{} + Lanes::kNoConfig;
  for (size_t v = 0; v < L.blocks; ++v) {
    // The block's 8 groups: G, L, bytes gathered from the per-pair / per-BK values, then whole-vector terms.
    alignas(32) float gq[kW], lq[kW], bq[kW], eq[kW];
    for (size_t j = 0; j < kW; ++j) {
      const size_t q = v * kW + j;
      gq[j] = in.g_pair[L.mn[q]], lq[j] = in.l_tile[L.ik[q]], bq[j] = kPairBytes ? in.bytes_pair[L.mn[q]] : in.bytes;
      eq[j] = kEmpty ? in.empty_pair[L.mn[q]] : 0.0f;
    }
    const F8 gv = load(gq), lv = load(lq), bv = load(bq), ev = load(eq);
    const F8 hv = half * (gv + floor + fabs8(gv - floor));  // max(G, floor) without a compare; exact when floor is 0
    F8 rv{};
    if constexpr (kRows) {
      const F8 r = load(&L.bm[v * kW]) * splat(in.inv_m) - one;  // row_repeats: BM/M - 1 when M < BM, else 0
      rv = half * (r + fabs8(r));
    }
    for (size_t k = 0, i = v * L.slots * kW; k < L.slots; ++k, i += kW) {
      const F8 inv = load(&L.inv_slots[i]);
      const F8 x = gv * inv;
      const F8 tr = __builtin_convertvector(__builtin_convertvector(x, I8), F8);  // x > 0: truncation, no roundps
      const F8 up = tr + (tr < x - eps ? one : F8{});
      const F8 w = one < up ? up : one;  // std::max(1.0f, up)
      const F8 xf = hv * inv;
      F8 t = load(&L.w0[i]) * w * lv + load(&L.w1[i]) * w + load(&L.w2[i]) * xf * lv + load(&L.w3[i]) +
             load(&L.w4[i]) * bv + load(&L.w5[i]) * lv;
      if constexpr (kRows) t = t + load(&L.w6[i]) * x * lv * rv;
      if constexpr (kEmpty) t = t + load(&L.w6[i]) * ev * inv;
      const F8 us = t < tenth ? tenth : t;  // std::max(t, 0.1f): never a free kernel
      const I8 cfg = load(&L.config[i]);
      const I8 lt = (us < best) | ((us == best) & (cfg < best_cfg));
      best = lt ? us : best;
      best_cfg = lt ? cfg : best_cfg;
    }
  }
  float m = best[0];
  int32_t arg = best_cfg[0];
  for (size_t j = 1; j < kW; ++j)
    if (best[j] < m || (best[j] == m && best_cfg[j] < arg)) m = best[j], arg = best_cfg[j];
  return arg == Lanes::kNoConfig ? -1 : arg;
}

}  // namespace

// Compiled twice: AVX2 where the CPU has it (no FMA, so sums round exactly as the baseline's) and the SSE2 baseline.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
int lane_argmin(const Lanes& lanes, const LaneInputs& in) {
  if (in.empty) return in.pair_bytes ? argmin_lanes<true, false, true>(lanes, in)
                                     : argmin_lanes<false, false, true>(lanes, in);
  if (in.pair_bytes && in.rows) return argmin_lanes<true, true, false>(lanes, in);
  if (in.pair_bytes) return argmin_lanes<true, false, false>(lanes, in);
  if (in.rows) return argmin_lanes<false, true, false>(lanes, in);
  return argmin_lanes<false, false, false>(lanes, in);
}

}  // namespace loom::wave
