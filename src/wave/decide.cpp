// Compiling the dual tables into dense arrays and deciding a config from them (see decide.h).
#include "wave/decide.h"

#include <algorithm>
#include <bit>
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
  }
  // Lanes grouped by tile (BM x BN x BK: the same G, L and tile bytes for every shape; lanes.h), groups in order of
  // their first config. A pruned config (never near-best on a sample: 1e9 us intercept, config_model.h) can never be
  // the argmin, so it gets no lane: decisions are unchanged and tables that prune most configs decide that much faster.
  std::vector<Lanes::Group> groups;
  std::vector<double> inv;
  for (size_t i = 0; i < c.per_config.size(); ++i) {
    const auto& pc = c.per_config[i];
    inv.push_back(pc.inv_slots);
    if (pc.w[3] == kPrunedIntercept) continue;
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Lanes::Group& x) { return x.mn == pc.mn && x.ik == pc.ik; });
    if (g == groups.end()) g = groups.insert(groups.end(), Lanes::Group{pc.mn, pc.ik, pc.bm, {}});
    g->configs.push_back(int32_t(i));
  }
  c.lanes.build(groups, inv, t.config_model.coef);
  if (!c.per_config.empty() && c.lanes.real == 0)
    throw InputError(t.gpu + "-" + t.family, "every config of the per-config model is pruned; refit the tables");
  if (c.per_config.size() > 512)
    throw InputError(t.gpu + "-" + t.family, "more than 512 configs; the per-config model supports 512");
  if (c.pair_m.size() > 256)
    throw InputError(t.gpu + "-" + t.family,
                     "more than 256 distinct (BM, BN) pairs; the per-config model supports 256");
  if (c.tile_m.size() > 16 || c.tile_n.size() > 16 || c.tile_k.size() > 16)
    throw InputError(t.gpu + "-" + t.family, "more than 16 distinct tile sizes; the per-config model supports 16");
  c.bucket_of_wave.resize(1024);
  for (size_t w = 0; w < c.bucket_of_wave.size(); ++w)
    c.bucket_of_wave[w] = static_cast<uint8_t>(wave_bucket(int64_t(std::max<size_t>(1, w))));
  return c;
}

double predict_macro(const CompiledTables& t, size_t macro, const TuneShape& s, Choice* info) {
  const auto& m = t.macros[macro];
  const TiledGemm tg = tiled_gemm(s, t.moe);
  const int64_t g = tg.m_tiles(m.bm) * tile_count(tg.n, m.bn), l = tile_count(tg.k, m.bk);
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
  double em[16];  // moe: M tiles of the upper-bound grid per BM (empty_programs, config_model.h); gemm: 0
  double bytes = 0;
  bool per_pair = false;
  double work_floor = 0;  // CompiledTables::work_floor_ctas
  double ek = 0, n = 0, rows = 0, c_bytes = 0;
  double pair_bytes(double m_tiles, double n_tiles) const { return ek * (m_tiles * n + rows * n_tiles) + c_bytes; }
};

ShapeTiles shape_tiles(const CompiledTables& t, const TuneShape& s) {
  ShapeTiles st;
  const TiledGemm g = tiled_gemm(s, t.moe);
  const int64_t n = g.n, k = g.k, rows = g.rows;
  // Weight elements the shape reads (moe: of the experts its tokens touch).
  const double weights = t.moe ? double(std::min(s.experts, rows)) * double(n) * double(k) : double(n) * double(k);
  st.n = double(n), st.rows = double(rows), st.ek = t.elem_bytes * double(k) / 1e8;
  st.c_bytes = 2.0 * double(rows) * double(n) / 1e8;
  st.per_pair = t.bytes == BytesFeature::tiles;
  st.work_floor = t.work_floor_ctas;
  st.bytes = t.bytes == BytesFeature::operands ? (t.elem_bytes * (weights + double(rows) * double(k)) +
                                                  2.0 * double(rows) * double(n)) / 1e8
                                               : weights / 1e8;
  for (size_t i = 0; i < t.tile_m.size(); ++i) {
    const int bm = t.tile_m[i];
    st.mt[i] = double(g.m_tiles(bm));
    st.rr[i] = !t.moe && s.m > 0 && s.m < bm ? double(bm) / double(s.m) - 1.0 : 0.0;
    st.em[i] = t.moe ? double(g.launched_m_tiles(bm)) : 0.0;
  }
  for (size_t i = 0; i < t.tile_n.size(); ++i) st.nt[i] = double(tile_count(n, t.tile_n[i]));
  for (size_t i = 0; i < t.tile_k.size(); ++i) st.l[i] = double(tile_count(k, t.tile_k[i]));
  return st;
}

inline double config_us(const CompiledTables::Config& c, const ShapeTiles& st) {
  const double g = st.mt[c.im] * st.nt[c.in], l = st.l[c.ik];
  const double w = std::max(1.0, std::ceil(g * c.inv_slots - 1e-9));
  const double bytes = st.per_pair ? st.pair_bytes(st.mt[c.im], st.nt[c.in]) : st.bytes;
  const double empty = std::max(0.0, st.em[c.im] * st.nt[c.in] - g);  // moe; 0 for gemm
  const double us = c.w[0] * w * l + c.w[1] * w + c.w[2] * std::max(g, st.work_floor) * l * c.inv_slots + c.w[3] +
                    c.w[4] * bytes + c.w[5] * l + c.w[6] * g * l * c.inv_slots * st.rr[c.im] +
                    c.w[6] * empty * c.inv_slots;
  return us > 0.1 ? us : 0.1;  // a fit may dip below zero far outside its samples; never a free kernel
}


// The float inputs of the lanes: per (BM, BN) pair G (tile bytes, moe's empty programs), per BK L, and whether the
// row-repeat / empty-program terms are on.
struct ShapeFloats {
  float gp[256], bp[256], ep[256], lk[16];
  bool rows = false;  // some tile taller than M (gemm): the row-repeat term is not 0
  bool empty = false;  // moe: the empty-program term
  float inv_m = 0;
};

void shape_floats(const CompiledTables& t, const TuneShape& s, const ShapeTiles& st, ShapeFloats& f) {
  float mt[16], nt[16];
  for (size_t i = 0; i < t.tile_m.size(); ++i) mt[i] = float(st.mt[i]), f.rows = f.rows || st.rr[i] != 0;
  for (size_t i = 0; i < t.tile_n.size(); ++i) nt[i] = float(st.nt[i]);
  for (size_t i = 0; i < t.tile_k.size(); ++i) f.lk[i] = float(st.l[i]);
  for (size_t p = 0; p < t.pair_m.size(); ++p) {
    f.gp[p] = mt[t.pair_m[p]] * nt[t.pair_n[p]];
    if (st.per_pair) f.bp[p] = float(st.pair_bytes(st.mt[t.pair_m[p]], st.nt[t.pair_n[p]]));
    if (t.moe) {
      const double g = st.mt[t.pair_m[p]] * st.nt[t.pair_n[p]];
      f.ep[p] = float(std::max(0.0, st.em[t.pair_m[p]] * st.nt[t.pair_n[p]] - g));
    }
  }
  f.empty = t.moe;
  f.inv_m = f.rows ? float(1.0 / double(s.m)) : 0.0f;
}

}  // namespace

int decide_reference(const CompiledTables& t, const TuneShape& s) {
  if (t.per_config.empty()) return -1;
  const ShapeTiles st = shape_tiles(t, s);
  ShapeFloats f;
  shape_floats(t, s, st, f);
  int arg = -1;
  float best = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < t.per_config.size(); ++i) {
    const auto& c = t.per_config[i];
    if (c.w[3] == kPrunedIntercept) continue;
    const float g = f.gp[c.mn], l = f.lk[c.ik], inv = float(c.inv_slots), x = g * inv, floor = float(st.work_floor);
    const float w0 = float(c.w[0]), w1 = float(c.w[1]), w2 = float(c.w[2]), w3 = float(c.w[3]), w4 = float(c.w[4]),
                w5 = float(c.w[5]), w6 = float(c.w[6]);
    const float tr = float(int(x));
    const float w = std::max(1.0f, tr + (tr < x - 1e-6f ? 1.0f : 0.0f));
    const float xf = 0.5f * (g + floor + std::fabs(g - floor)) * inv;
    float v = w0 * w * l + w1 * w + w2 * xf * l + w3 + w4 * (st.per_pair ? f.bp[c.mn] : float(st.bytes)) + w5 * l;
    if (f.rows) {
      const float r = float(c.bm) * f.inv_m - 1.0f;
      v = v + w6 * x * l * (0.5f * (r + std::fabs(r)));
    }
    if (f.empty) v = v + w6 * f.ep[c.mn] * inv;
    const float us = std::max(v, 0.1f);
    if (us < best || arg < 0) best = us, arg = int(i);
  }
  return arg;
}

double predict_config(const CompiledTables& t, size_t i, const TuneShape& s) {
  return config_us(t.per_config[i], shape_tiles(t, s));
}

Choice decide(const CompiledTables& t, const TuneShape& s) {
  if (!t.per_config.empty()) {
    // Float lanes grouped by tile (lanes.h): every config's latency, then the argmin (ties: lowest index); the chosen
    // config's latency is then recomputed in double.
    const ShapeTiles st = shape_tiles(t, s);
    ShapeFloats f;
    shape_floats(t, s, st, f);
    const LaneInputs in{f.gp, f.bp, f.ep, f.lk, float(st.bytes), f.inv_m, float(st.work_floor), st.per_pair, f.rows,
                        f.empty};
    Choice best;
    best.config = lane_argmin(t.lanes, in);  // lanes skip pruned configs
    // Every lane NaN (only with pathological coefficients): the first unpruned config, as the plain loop picks.
    if (best.config < 0) best.config = decide_reference(t, s);
    if (best.config < 0) return Choice{};
    const auto& c = t.per_config[size_t(best.config)];
    best.predicted_us = config_us(c, st);
    // G and L as map_grid counts them (the tile counts are exact integers in double).
    best.ctas = int64_t(st.mt[c.im] * st.nt[c.in]), best.loop_iters = int64_t(st.l[c.ik]);
    best.waves = std::max<int64_t>(1, cdiv(best.ctas, c.slots));
    best.bucket = best.waves < int64_t(t.bucket_of_wave.size()) ? t.bucket_of_wave[size_t(best.waves)]
                                                                 : wave_bucket(best.waves);
    best.anchor = l_anchor(best.loop_iters);
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
