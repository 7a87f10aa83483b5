// Compiling the dual tables into dense arrays and deciding a config from them (see decide.h).
#include "wave/decide.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "core/error.h"
#include "wave/config_model.h"

namespace loom::wave {
namespace {

// Geometric centre of a wave bucket's range (the open last bucket: its lower edge x 1.3).
double bucket_center(int b) {
  const auto& e = wave_bucket_edges();
  const double lo = double(e[size_t(b)]);
  const double hi = size_t(b) + 1 < e.size() ? double(e[size_t(b) + 1] - 1) : lo * 1.3;
  return std::sqrt(lo * hi);
}

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

Extrapolation parse_extrapolation(const std::string& s, const std::string& where) {
  if (s == "ratio") return Extrapolation::ratio;
  if (s == "linear") return Extrapolation::linear;
  throw InputError(where, "'" + s + "' is not an extrapolation mode; use ratio or linear");
}

CompiledTables compile_tables(const TuneTables& t, Extrapolation mode) {
  CompiledTables c;
  c.gpu = t.gpu, c.family = t.family, c.sms = t.sms, c.mode = mode, c.moe = base_family(t.family) == "moe";
  c.buckets = static_cast<int>(wave_bucket_edges().size());
  std::map<std::string, int> index;
  for (const auto& cfg : t.configs) {
    index[cfg.name] = static_cast<int>(c.configs.size());
    c.configs.push_back(cfg.name);
  }
  for (const auto& m : t.macros) {
    if (m.fits.empty() || m.configs.empty()) continue;
    CompiledTables::Macro cm;
    cm.name = m.macro;
    cm.bm = m.bm, cm.bn = m.bn, cm.bk = m.bk;
    cm.slots = int64_t(t.sms) * std::max(1, m.ctas_per_sm);
    cm.cells.resize(size_t(c.buckets));
    for (int b = 0; b < c.buckets; ++b) {
      const BucketEntry* src = nullptr;
      double best = std::numeric_limits<double>::infinity();
      for (const auto& e : m.fits) {
        if (e.bucket == b) { src = &e; break; }
        const double dist = std::abs(std::log(bucket_center(b)) - std::log(std::max(1.0, e.fit.mean_waves)));
        if (dist < best) best = dist, src = &e;
      }
      auto& cell = cm.cells[size_t(b)];
      cell.a = src->fit.a, cell.b = src->fit.b, cell.c = src->fit.c, cell.d = src->fit.d;
      cell.floor_us = 0.5 * src->fit.min_us;
      cell.ref_waves = src->bucket == b ? 0.0 : std::max(1.0, src->fit.mean_waves);
    }
    auto find_config = [&](const std::string& name) {
      auto it = index.find(name);
      if (it == index.end()) throw InputError(t.gpu + "-" + t.family, "table2 names unknown config '" + name + "'");
      return it->second;
    };
    const int fallback = find_config(m.configs.front());
    cm.micro.assign(size_t(c.buckets) * kLAnchors, fallback);
    for (int b = 0; b < c.buckets; ++b)
      for (int a = 0; a < kLAnchors; ++a) {
        int best_cost = std::numeric_limits<int>::max();
        for (const auto& u : m.micros) {  // same bucket first, then the nearest anchor
          const int cost = std::abs(u.bucket - b) * kLAnchors * 2 + std::abs(u.anchor - a);
          if (cost < best_cost) best_cost = cost, cm.micro[size_t(b) * kLAnchors + size_t(a)] = find_config(u.config);
        }
      }
    c.macros.push_back(std::move(cm));
  }
  if (c.macros.empty()) throw InputError(t.gpu + "-" + t.family, "no macro config has a fitted wave bucket");
  auto slot_of = [](std::vector<int>& v, int x) {
    auto it = std::find(v.begin(), v.end(), x);
    if (it == v.end()) v.push_back(x), it = v.end() - 1;
    return uint8_t(it - v.begin());
  };
  c.bytes = t.config_model.bytes, c.work_floor_ctas = t.config_model.work_floor_ctas;
  c.elem_bytes = target_dtype(t.family) == "fp8" ? 1.0 : 2.0;
  for (size_t i = 0; i < t.config_model.coef.size(); ++i) {
    const TuneConfig& tc = t.configs[i];
    CompiledTables::Config pc;
    pc.bm = tc.bm, pc.bn = tc.bn, pc.bk = tc.bk;
    pc.im = slot_of(c.tile_m, tc.bm), pc.in = slot_of(c.tile_n, tc.bn), pc.ik = slot_of(c.tile_k, tc.bk);
    pc.slots = int64_t(t.sms) * std::max(1, tc.ctas_per_sm);
    pc.inv_slots = 1.0 / double(pc.slots);
    pc.w = t.config_model.coef[i];
    size_t pair = 0;
    while (pair < c.pair_m.size() && !(c.pair_m[pair] == pc.im && c.pair_n[pair] == pc.in)) ++pair;
    if (pair == c.pair_m.size()) c.pair_m.push_back(pc.im), c.pair_n.push_back(pc.in);
    pc.mn = uint8_t(pair);
    c.per_config.push_back(pc);
    // A pruned config (never near-best on a sample: 1e9 us intercept, config_model.h) can never be the argmin, so it
    // gets no lane: decisions are unchanged and tables that prune most configs decide that much faster.
    if (pc.w[3] == kPrunedIntercept) continue;
    auto& L = c.lanes;
    L.config.push_back(uint16_t(i));
    L.im.push_back(pc.im), L.in.push_back(pc.in), L.ik.push_back(pc.ik), L.inv_slots.push_back(float(pc.inv_slots));
    L.mn.push_back(uint8_t(pair));
    L.w0.push_back(float(pc.w[0])), L.w1.push_back(float(pc.w[1])), L.w2.push_back(float(pc.w[2]));
    L.w3.push_back(float(pc.w[3])), L.w4.push_back(float(pc.w[4])), L.w5.push_back(float(pc.w[5]));
    L.w6.push_back(float(pc.w[6])), L.bm.push_back(float(tc.bm));
  }
  if (!c.per_config.empty() && c.lanes.config.empty())
    throw InputError(t.gpu + "-" + t.family, "every config of the per-config model is pruned; refit the tables");
  if (c.per_config.size() > 512)
    throw InputError(t.gpu + "-" + t.family, "more than 512 configs; the per-config model supports 512");
  if (c.pair_m.size() > 256)
    throw InputError(t.gpu + "-" + t.family, "more than 256 distinct (BM, BN) pairs; the per-config model supports 256");
  if (c.tile_m.size() > 16 || c.tile_n.size() > 16 || c.tile_k.size() > 16)
    throw InputError(t.gpu + "-" + t.family, "more than 16 distinct tile sizes; the per-config model supports 16");
  c.bucket_of_wave.resize(1024);
  for (size_t w = 0; w < c.bucket_of_wave.size(); ++w)
    c.bucket_of_wave[w] = static_cast<uint8_t>(wave_bucket(int64_t(std::max<size_t>(1, w))));
  return c;
}

double predict_macro(const CompiledTables& t, size_t macro, const TuneShape& s, Choice* info) {
  const auto& m = t.macros[macro];
  int64_t g, l;
  if (t.moe) {
    const int64_t n = s.stage == 2 ? s.hidden : 2 * s.inter, k = s.stage == 2 ? s.inter : s.hidden;
    const int64_t rows = s.tokens * s.topk, q = rows / s.experts, r = rows % s.experts;
    g = (r * cdiv(q + 1, m.bm) + (s.experts - r) * cdiv(q, m.bm)) * cdiv(n, m.bn);
    l = cdiv(k, m.bk);
  } else {
    g = cdiv(s.m, m.bm) * cdiv(s.n, m.bn);
    l = cdiv(s.k, m.bk);
  }
  const int64_t w = g > 0 ? cdiv(g, m.slots) : 1;
  const int b = w < int64_t(t.bucket_of_wave.size()) ? t.bucket_of_wave[size_t(w)] : t.buckets - 1;
  const auto& c = m.cells[size_t(b)];
  double gg = double(g), ll = double(l), scale = 1.0;
  if (c.ref_waves > 0 && t.mode == Extrapolation::ratio) {
    scale = c.ref_waves / double(w);
    gg *= scale;
  }
  double us = c.a * gg * ll + c.b * gg + c.c * ll + c.d;
  if (us < c.floor_us) us = c.floor_us;
  us /= scale;
  if (info) {
    info->ctas = g, info->loop_iters = l, info->waves = w, info->bucket = b;
    info->anchor = l_anchor(l);
    info->borrowed = c.ref_waves > 0;
  }
  return us;
}

namespace {

// Per-shape quantities of the per-config model, computed once per distinct tile size.
// Feature 4 (config_model.cpp shape_bytes, in units of 1e8): `bytes` when it does not depend on the config, else
// (tiles) ek * (M tiles * n + rows * N tiles) + c_bytes.
struct ShapeTiles {
  double mt[16], nt[16], l[16];
  double rr[16];  // row_repeats (config_model.h) per BM: gemm tiles taller than M
  double bytes = 0;
  bool per_pair = false;
  double work_floor = 0;  // CompiledTables::work_floor_ctas
  double ek = 0, n = 0, rows = 0, c_bytes = 0;
  double pair_bytes(double m_tiles, double n_tiles) const { return ek * (m_tiles * n + rows * n_tiles) + c_bytes; }
};

ShapeTiles shape_tiles(const CompiledTables& t, const TuneShape& s) {
  ShapeTiles st;
  int64_t n, k, rows = 0, q = 0, r = 0;
  double weights;  // weight elements the shape reads (moe: of the experts its tokens touch)
  if (t.moe) {
    n = s.stage == 2 ? s.hidden : 2 * s.inter, k = s.stage == 2 ? s.inter : s.hidden;
    rows = s.tokens * s.topk, q = rows / s.experts, r = rows % s.experts;
    weights = double(std::min(s.experts, rows)) * double(n) * double(k);
  } else {
    n = s.n, k = s.k, rows = s.m;
    weights = double(s.n) * double(s.k);
  }
  st.n = double(n), st.rows = double(rows), st.ek = t.elem_bytes * double(k) / 1e8;
  st.c_bytes = 2.0 * double(rows) * double(n) / 1e8;
  st.per_pair = t.bytes == BytesFeature::tiles;
  st.work_floor = t.work_floor_ctas;
  st.bytes = t.bytes == BytesFeature::operands ? (t.elem_bytes * (weights + double(rows) * double(k)) +
                                                  2.0 * double(rows) * double(n)) / 1e8
                                               : weights / 1e8;
  for (size_t i = 0; i < t.tile_m.size(); ++i) {
    const int bm = t.tile_m[i];
    st.mt[i] = double(t.moe ? r * cdiv(q + 1, bm) + (s.experts - r) * cdiv(q, bm) : cdiv(s.m, bm));
    st.rr[i] = !t.moe && s.m > 0 && s.m < bm ? double(bm) / double(s.m) - 1.0 : 0.0;
  }
  for (size_t i = 0; i < t.tile_n.size(); ++i) st.nt[i] = double(cdiv(n, t.tile_n[i]));
  for (size_t i = 0; i < t.tile_k.size(); ++i) st.l[i] = double(cdiv(k, t.tile_k[i]));
  return st;
}

inline double config_us(const CompiledTables::Config& c, const ShapeTiles& st) {
  const double g = st.mt[c.im] * st.nt[c.in], l = st.l[c.ik];
  const double w = std::max(1.0, std::ceil(g * c.inv_slots - 1e-9));
  const double bytes = st.per_pair ? st.pair_bytes(st.mt[c.im], st.nt[c.in]) : st.bytes;
  const double us = c.w[0] * w * l + c.w[1] * w + c.w[2] * std::max(g, st.work_floor) * l * c.inv_slots + c.w[3] +
                    c.w[4] * bytes + c.w[5] * l + c.w[6] * g * l * c.inv_slots * st.rr[c.im];
  return us > 0.1 ? us : 0.1;  // a fit may dip below zero far outside its samples; never a free kernel
}

// Every config's latency over contiguous float lanes. kPairBytes: feature 4 per lane (bs, BytesFeature::tiles), else
// the shape's `bytes`; kRows: the row-repeat term (gemm shapes with M below some BM), else left out (its value is 0):
// each decision runs only the gathers and terms it needs. The first six terms sum in the order they were first summed.
template <bool kPairBytes, bool kRows>
inline __attribute__((always_inline)) void lane_costs(const CompiledTables::Lanes& L, const float* __restrict gs,
                                                      const float* __restrict ls, const float* __restrict bs,
                                                      float bytes, float inv_m, float floor, size_t lanes,
                                                      float* __restrict us) {
  // __restrict: with 13 arrays GCC's run-time alias checks would exceed its limit (10) and the loop stay scalar (3x).
  const float* __restrict inv = L.inv_slots.data();
  const float *__restrict w0 = L.w0.data(), *__restrict w1 = L.w1.data(), *__restrict w2 = L.w2.data(),
              *__restrict w3 = L.w3.data(), *__restrict w4 = L.w4.data(), *__restrict w5 = L.w5.data(),
              *__restrict w6 = L.w6.data(), *__restrict bm = L.bm.data();
  for (size_t i = 0; i < lanes; ++i) {
    const float g = gs[i], l = ls[i], x = g * inv[i];
    const float tr = float(int(x));  // x > 0: ceil without SSE4.1's roundps
    const float w = std::max(1.0f, tr + (tr < x - 1e-6f ? 1.0f : 0.0f));
    // The work term's CTAs, max(G, floor) without a compare (GCC 12 leaves a second select unvectorised); exact when
    // floor is 0 (g + g halved).
    const float xf = 0.5f * (g + floor + std::fabs(g - floor)) * inv[i];
    float v = w0[i] * w * l + w1[i] * w + w2[i] * xf * l + w3[i] + w4[i] * (kPairBytes ? bs[i] : bytes) + w5[i] * l;
    if constexpr (kRows) {
      const float r = bm[i] * inv_m - 1.0f;  // row_repeats: BM/M - 1 when M < BM, else 0 (max without a compare)
      v = v + w6[i] * x * l * (0.5f * (r + std::fabs(r)));
    }
    us[i] = std::max(v, 0.1f);
  }
}

// The lanes' latencies, then the argmin (ties: lowest index). Compiled twice: AVX2 (8 floats a step, where the CPU has
// it; no FMA, so the sums round exactly as the SSE2 build's) and the baseline.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
size_t lane_argmin(const CompiledTables::Lanes& L, const float* gs, const float* ls, const float* bs, float bytes,
                   float inv_m, float floor, size_t lanes, float* us, bool pair_bytes, bool rows) {
  if (pair_bytes && rows) lane_costs<true, true>(L, gs, ls, bs, bytes, inv_m, floor, lanes, us);
  else if (pair_bytes) lane_costs<true, false>(L, gs, ls, bs, bytes, inv_m, floor, lanes, us);
  else if (rows) lane_costs<false, true>(L, gs, ls, bs, bytes, inv_m, floor, lanes, us);
  else lane_costs<false, false>(L, gs, ls, bs, bytes, inv_m, floor, lanes, us);
  // The argmin without a loop-carried index: 8 independent lanes keep their minimum and its first index.
  const size_t padded = (lanes + 7) / 8 * 8;
  for (size_t i = lanes; i < padded; ++i) us[i] = std::numeric_limits<float>::infinity();
  float m8[8];
  int32_t i8[8];
  for (int j = 0; j < 8; ++j) m8[j] = us[j], i8[j] = j;
  for (size_t i = 8; i < padded; i += 8)
    for (int j = 0; j < 8; ++j) {
      const bool lt = us[i + size_t(j)] < m8[j];  // strict: a lane keeps its earliest minimum
      m8[j] = lt ? us[i + size_t(j)] : m8[j];
      i8[j] = lt ? int32_t(i) + j : i8[j];
    }
  size_t arg = size_t(i8[0]);
  for (int j = 1; j < 8; ++j)
    if (m8[j] < us[arg] || (m8[j] == us[arg] && size_t(i8[j]) < arg)) arg = size_t(i8[j]);
  return arg;
}

}  // namespace

double predict_config(const CompiledTables& t, size_t i, const TuneShape& s) {
  return config_us(t.per_config[i], shape_tiles(t, s));
}

Choice decide(const CompiledTables& t, const TuneShape& s) {
  if (!t.per_config.empty()) {
    Choice best;
    best.predicted_us = std::numeric_limits<double>::infinity();
    // Float lanes: every config's latency in one branch-free loop, then the argmin (ties: lowest index); the chosen
    // config's latency is then recomputed in double.
    const ShapeTiles st = shape_tiles(t, s);
    const auto& L = t.lanes;
    const size_t n = L.w0.size();
    float mt[16], nt[16], lk[16];
    for (int i = 0; i < 16; ++i) mt[i] = float(st.mt[i]), nt[i] = float(st.nt[i]), lk[i] = float(st.l[i]);
    // Two passes: the tile-count gathers alone, then the arithmetic over contiguous arrays, which the compiler
    // vectorises (4 floats a lane with SSE2).
    alignas(32) float gs[512], ls[512], bs[512], us[512];
    const size_t lanes = std::min<size_t>(n, 512);
    float gp[256], bp[256];
    bool rows = false;  // some tile taller than M (gemm): the row-repeat term is not 0
    for (size_t i = 0; i < t.tile_m.size(); ++i) rows = rows || st.rr[i] != 0;
    for (size_t p = 0; p < t.pair_m.size(); ++p) {
      gp[p] = mt[t.pair_m[p]] * nt[t.pair_n[p]];
      if (st.per_pair) bp[p] = float(st.pair_bytes(st.mt[t.pair_m[p]], st.nt[t.pair_n[p]]));
    }
    if (st.per_pair)  // one pass for both gathers of the pair
      for (size_t i = 0; i < lanes; ++i) gs[i] = gp[L.mn[i]], bs[i] = bp[L.mn[i]], ls[i] = lk[L.ik[i]];
    else
      for (size_t i = 0; i < lanes; ++i) gs[i] = gp[L.mn[i]], ls[i] = lk[L.ik[i]];
    const float inv_m = rows ? float(1.0 / double(s.m)) : 0.0f;
    const size_t arg = lane_argmin(L, gs, ls, bs, float(st.bytes), inv_m, float(st.work_floor), lanes, us, st.per_pair,
                                   rows);
    best.config = int(L.config[arg]);  // lanes skip pruned configs
    best.predicted_us = config_us(t.per_config[size_t(best.config)], st);
    const auto& c = t.per_config[size_t(best.config)];
    const GridMap g = map_grid(s, c.bm, c.bn, c.bk);
    best.ctas = g.ctas, best.loop_iters = g.loop_iters, best.waves = std::max<int64_t>(1, cdiv(g.ctas, c.slots));
    best.bucket = wave_bucket(best.waves), best.anchor = l_anchor(best.loop_iters);
    return best;
  }
  Choice best;
  best.predicted_us = std::numeric_limits<double>::infinity();
  size_t best_macro = 0;
  for (size_t i = 0; i < t.macros.size(); ++i) {
    const double us = predict_macro(t, i, s, nullptr);
    if (us < best.predicted_us) best.predicted_us = us, best_macro = i;
  }
  const double us = best.predicted_us;
  predict_macro(t, best_macro, s, &best);
  best.predicted_us = us;
  best.config = t.macros[best_macro].micro[size_t(best.bucket) * kLAnchors + size_t(best.anchor)];
  return best;
}

}  // namespace loom::wave
