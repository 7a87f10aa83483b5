// Compiling the dual tables into dense arrays and deciding a config from them (see decide.h).
#include "wave/decide.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "core/error.h"

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

Choice decide(const CompiledTables& t, const TuneShape& s) {
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
