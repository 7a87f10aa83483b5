// Held-out validation of the wave tuner against exhaustive truth, an XGBoost cost model and fixed configs.
#include "wave/validate.h"

#include <iterator>
#include <map>
#include <set>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "core/error.h"
#include "kernels/kernel_spec.h"
#include "learned/forest.h"
#include "learned/xgb.h"
#include "wave/decide.h"
#include "wave/mapping.h"

namespace loom::wave {
namespace {

constexpr size_t kFeatures = 8;

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = size_t(std::ceil(q * double(v.size()))) - (q > 0 ? 1 : 0);
  return v[std::min(i, v.size() - 1)];
}

// XGBoost features of one (shape, config): log G, log L, waves, BM, BN, BK, stages, warps.
void features(const TuneShape& s, const TuneConfig& c, int sms, float* x) {
  const GridMap g = map_shape(s, c, sms);
  x[0] = float(std::log(double(std::max<int64_t>(1, g.ctas)))), x[1] = float(std::log(double(g.loop_iters)));
  x[2] = float(g.waves), x[3] = float(c.bm), x[4] = float(c.bn), x[5] = float(c.bk);
  x[6] = float(c.stages), x[7] = float(c.warps);
}

// Median nanoseconds per call of pick(shape) over the shapes (each timed over `reps` calls).
double time_ns(const std::vector<const TuneShape*>& shapes, int reps,
               const std::function<int(const TuneShape&)>& pick) {
  std::vector<double> per;
  volatile int sink = 0;
  for (const TuneShape* s : shapes) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) sink = sink + pick(*s);
    const auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / reps);
  }
  return quantile(per, 0.5);
}

}  // namespace

std::map<std::string, double> cublas_latencies(const std::vector<Corpus>& corpora, const std::string& gpu_key) {
  const Corpus* best = nullptr;
  for (const auto& c : corpora)
    if (c.gpu_key == gpu_key && (!best || c.sms > best->sms)) best = &c;
  std::map<std::string, double> out;
  if (!best) return out;
  for (const auto& row : best->rows) {
    if (row.impl != "cublaslt" || row.family != "gemm" || !(row.median_us > 0)) continue;
    KernelSpec spec = parse_kernel_spec(row.spec, best->path);
    if (spec.params.count("config") || (spec.params.count("dtype") && spec.params.at("dtype") != "bf16")) continue;
    try {
      out.emplace(tune_spec(parse_tune_shape(spec)), row.median_us);
    } catch (const InputError&) {
      // cuBLAS rows outside the tunable vocabulary (e.g. batched) are simply not compared.
    }
  }
  return out;
}

std::map<std::string, double> sweep_cublas_latencies(const std::vector<Corpus>& corpora, const std::string& gpu_key,
                                                     const std::string& target) {
  std::map<std::string, double> out;
  for (const auto& c : corpora) {
    auto tool = c.meta.find("tool");
    if (c.gpu_key != gpu_key || tool == c.meta.end() || tool->second != "gemm_sweep.py") continue;
    for (const auto& row : c.rows) {
      if (row.impl != "torch" || row.family != "gemm" || !(row.median_us > 0)) continue;
      KernelSpec spec = parse_kernel_spec(row.spec, c.path + ":case " + std::to_string(row.case_id));
      if (spec.params.count("config")) continue;
      spec.params["impl"] = "triton";  // the shape vocabulary of the Triton target (dtype bf16 or fp8)
      const TuneShape s = parse_tune_shape(spec);
      if (target_of(s) == target) out[tune_spec(s)] = row.median_us;
    }
  }
  return out;
}

std::map<std::string, double> engine_default_latencies(const std::vector<Corpus>& corpora, const std::string& gpu_key,
                                                       const std::string& target, int64_t sms) {
  std::map<std::string, std::pair<double, int>> sum;  // a shape measured twice: the mean, as the pool's rows
  for (const auto& c : corpora) {
    auto tool = c.meta.find("tool");
    if (c.gpu_key != gpu_key || tool == c.meta.end() || tool->second != "moe_sweep.py --configs") continue;
    // Defaults timed on a green-context partition were taken as the full chip's reference (round 17).
    if (c.sms != sms)
      throw InputError(c.path, "engine-default configs measured at #sms=" + std::to_string(c.sms) +
                                   ", the fit's pool at #sms=" + std::to_string(sms) +
                                   "; measure them on the same chip (or partition)");
    for (const auto& row : c.rows) {
      if (row.impl != "triton" || row.family != "moe" || !(row.median_us > 0)) continue;
      KernelSpec spec = parse_kernel_spec(row.spec, c.path + ":case " + std::to_string(row.case_id));
      auto cfg = spec.params.find("config");
      if (cfg == spec.params.end()) continue;
      spec.params["impl"] = "triton";
      const TuneShape s = parse_tune_shape(spec);
      if (target_of(s) != target) continue;
      parse_tune_config(target, cfg->second, spec.where);  // a misspelt name was skipped as "not a default"
      const std::string want = s.tokens <= s.experts ? "16x32x64_s3_w4_g1" : "64x64x32_s3_w4_g8";
      if (cfg->second != want) continue;
      auto& [total, n] = sum[tune_spec(s)];
      total += row.median_us, ++n;
    }
  }
  std::map<std::string, double> out;
  for (const auto& [key, v] : sum) out[key] = v.first / v.second;
  return out;
}

std::string config_outside(const Pool& fresh, const Pool& pool, const std::vector<Corpus>& corpora) {
  std::set<std::string> known;
  for (const auto& c : pool.configs) known.insert(c.name);
  for (const auto& c : fresh.configs) {
    if (known.count(c.name)) continue;
    for (const auto& corpus : corpora)
      for (const auto& row : corpus.rows)
        if (row.spec.find(" config=" + c.name) != std::string::npos)
          return ", config " + c.name + " (in " + corpus.path + ") is not the pool's";
    return ", config " + c.name + " is not the pool's";
  }
  return "";
}

void check_heldout_corpora(const std::vector<Corpus>& corpora, const std::string& gpu_key, const std::string& target,
                           int64_t sms) {
  if (target_impl(target) != "triton") return;
  const std::string base = base_family(target), sweep = base == "gemm" ? "gemm_sweep.py" : "moe_sweep.py";
  for (const auto& c : corpora) {
    if (std::none_of(c.rows.begin(), c.rows.end(), [&](const CorpusRow& r) {
          return r.impl == "triton" && r.family == base && r.spec.find(" config=") != std::string::npos;
        }))
      continue;
    auto tool = c.meta.find("tool");
    const std::string t = tool == c.meta.end() ? "" : tool->second;
    if (t != sweep && t != "moe_sweep.py --configs")
      throw InputError(c.path, (t.empty() ? std::string("no #tool=") : "#tool=" + t) +
                                   ": a held-out folder holds the grid (" + sweep +
                                   ") and the engines' defaults (moe_sweep.py --configs) only; move it out");
    if (c.gpu_key != gpu_key)
      throw InputError(c.path, "measured on " + (c.gpu_key.empty() ? c.gpu : c.gpu_key) + ", the fit is for " +
                                   gpu_key + "; give a held-out folder of this GPU's corpora");
  }
  if (base == "moe") engine_default_latencies(corpora, gpu_key, target, sms);  // its checks, before the fit
}

ValidationReport validate_tables(const Pool& pool, const std::vector<bool>& sampled, const TuneTables& tables,
                                 const std::map<std::string, double>& cublas, const ValidateOptions& opt) {
  ValidationReport r;
  r.gpu = pool.gpu, r.family = pool.family, r.sms = pool.sms, r.default_config = tables.default_config;
  r.pool_shapes = int64_t(pool.shapes.size()), r.incomplete_shapes = pool.incomplete_shapes;
  r.sampled_shapes = tables.sampled_shapes, r.samples = tables.samples, r.exhaustive_points = tables.exhaustive_points;
  std::vector<size_t> held;
  for (size_t s = 0; s < pool.shapes.size(); ++s)
    if (!sampled[s]) held.push_back(s);
  r.heldout_shapes = int64_t(held.size());
  if (held.empty()) throw InputError("--validate", "no held-out shapes; lower --sample-fraction");
  const size_t nc = pool.configs.size();
  int def = -1;
  for (size_t i = 0; i < nc; ++i)
    if (pool.configs[i].name == tables.default_config) def = int(i);
  if (def < 0) throw InputError("--validate", "default config " + tables.default_config + " was not measured");

  auto best_at = [&](size_t s) {
    return size_t(std::min_element(pool.us[s].begin(), pool.us[s].end()) - pool.us[s].begin());
  };
  auto best_us = [&](size_t s) { return pool.us[s][best_at(s)]; };
  auto score = [&](const std::string& name, const std::function<int(size_t)>& choose) {
    MethodResult m;
    m.method = name, m.shapes = int64_t(held.size());
    std::vector<double> ratios;
    double log_sum = 0, log_def = 0;
    int64_t optimal = 0;
    for (size_t s : held) {
      const double chosen = pool.us[s][size_t(choose(s))], best = best_us(s);
      ratios.push_back(chosen / best);
      log_sum += std::log(chosen / best), log_def += std::log(pool.us[s][size_t(def)] / chosen);
      optimal += chosen <= best;
    }
    m.geomean_ratio = std::exp(log_sum / double(held.size()));
    m.p95_ratio = quantile(ratios, 0.95), m.max_ratio = quantile(ratios, 1.0);
    m.optimal_share = double(optimal) / double(held.size());
    m.speedup_vs_default = std::exp(log_def / double(held.size()));
    return m;
  };
  std::vector<const TuneShape*> held_shapes;
  for (size_t s : held) held_shapes.push_back(&pool.shapes[s]);

  // Wave tuner, both extrapolation modes. Config indices of the compiled tables follow tables.configs = pool.configs.
  for (Extrapolation mode : {Extrapolation::ratio, Extrapolation::linear}) {
    const CompiledTables ct = compile_tables(tables, mode);
    const std::string name = mode == Extrapolation::ratio ? "wave tuner (ratio)" : "wave tuner (linear)";
    int64_t borrowed = 0;
    MethodResult m = score(name, [&](size_t s) {
      Choice c = decide(ct, pool.shapes[s]);
      borrowed += c.borrowed;
      if (mode == Extrapolation::ratio) {  // each shape's decision, for --per-shape and the batch bands below
        const TuneShape& sh = pool.shapes[s];
        const size_t b = best_at(s);
        r.per_shape.push_back({pool.keys[s], sh.family == "gemm" ? sh.m : sh.tokens, pool.configs[size_t(c.config)].name,
                               pool.configs[b].name, pool.us[s][size_t(c.config)], pool.us[s][b],
                               pool.us[s][size_t(def)]});
      }
      return c.config;
    });
    if (opt.time_decisions)
      m.decision_ns = time_ns(held_shapes, 2000, [&](const TuneShape& s) { return decide(ct, s).config; });
    if (mode == Extrapolation::ratio) {
      r.chosen_borrowed_share = double(borrowed) / double(held.size());
      std::vector<double> by_band[std::size(kBatchBands)];  // chosen/best of each held-out shape, by batch band
      for (const ShapeResult& x : r.per_shape) by_band[batch_band(x.rows)].push_back(x.chosen_us / x.best_us);
      for (size_t b = 0; b < std::size(kBatchBands); ++b) {
        const std::vector<double>& v = by_band[b];
        if (v.empty()) continue;
        double log_sum = 0;
        for (double x : v) log_sum += std::log(x);
        r.bands.push_back({kBatchBands[b], int64_t(v.size()), std::exp(log_sum / double(v.size())), quantile(v, 0.95),
                           quantile(v, 1.0)});
      }
      // Held-out error of each macro's predicted best latency.
      const auto macros = group_macros(pool.configs);
      std::vector<double> err, err_b;
      for (size_t s : held)
        for (size_t mi = 0; mi < ct.macros.size(); ++mi) {
          auto g =
              std::find_if(macros.begin(), macros.end(), [&](const auto& p) { return p.first == ct.macros[mi].name; });
          double truth = std::numeric_limits<double>::infinity();
          for (int i : g->second) truth = std::min(truth, pool.us[s][size_t(i)]);
          Choice info;
          const double e = std::abs(predict_macro(ct, mi, pool.shapes[s], &info) - truth) / truth;
          (info.borrowed ? err_b : err).push_back(e);
        }
      r.heldout_points = int64_t(err.size() + err_b.size()), r.heldout_borrowed = int64_t(err_b.size());
      std::vector<double> all = err;
      all.insert(all.end(), err_b.begin(), err_b.end());
      r.heldout_err_median = quantile(all, 0.5), r.heldout_err_p90 = quantile(all, 0.9);
      r.heldout_err_borrowed_median = quantile(err_b, 0.5);
    }
    r.methods.push_back(m);
  }

  // XGBoost cost model on the same sampled points (label: log latency); decision = argmin over every config.
  std::vector<float> x, y;
  for (size_t s = 0; s < pool.shapes.size(); ++s) {
    if (!sampled[s]) continue;
    for (size_t i = 0; i < nc; ++i) {
      x.resize(x.size() + kFeatures);
      features(pool.shapes[s], pool.configs[i], pool.sms, &x[x.size() - kFeatures]);
      y.push_back(float(std::log(pool.us[s][i])));
    }
  }
  XgbParams xp;
  xp.rounds = opt.xgb_rounds;
  const Forest forest = Forest::from_json(xgb_train(x, y.size(), kFeatures, y, xp));
  auto xgb_pick = [&](const TuneShape& shape) {
    float f[kFeatures];
    float best = std::numeric_limits<float>::infinity();
    int arg = 0;
    for (size_t i = 0; i < nc; ++i) {
      features(shape, pool.configs[i], pool.sms, f);
      const float p = forest.predict(f);
      if (p < best) best = p, arg = int(i);
    }
    return arg;
  };
  MethodResult xm = score("xgboost cost model", [&](size_t s) { return xgb_pick(pool.shapes[s]); });
  if (opt.time_decisions) xm.decision_ns = time_ns(held_shapes, 50, xgb_pick);
  r.methods.push_back(xm);

  // Fixed choices: the family default, and the best single config on the sampled shapes (in hindsight).
  r.methods.push_back(score("default " + tables.default_config, [&](size_t) { return def; }));
  std::vector<double> fixed_cost(nc, 0.0);
  for (size_t s = 0; s < pool.shapes.size(); ++s)
    if (sampled[s])
      for (size_t i = 0; i < nc; ++i) fixed_cost[i] += std::log(pool.us[s][i] / best_us(s));
  const int fixed = int(std::min_element(fixed_cost.begin(), fixed_cost.end()) - fixed_cost.begin());
  r.methods.push_back(score("best fixed " + pool.configs[size_t(fixed)].name, [&](size_t) { return fixed; }));

  // Fit quality of table 1.
  std::vector<double> r2, rms;
  for (const auto& m : tables.macros)
    for (const auto& b : m.fits) {
      ++r.fits;
      r.fits_full += b.fit.terms == 4;
      if (b.fit.samples >= 6) r2.push_back(b.fit.r2), rms.push_back(b.fit.rel_rms);
    }
  r.fit_r2_n = int64_t(r2.size());
  r.fit_r2_median = quantile(r2, 0.5), r.fit_rel_rms_median = quantile(rms, 0.5);

  // cuBLAS on the held-out shapes it also ran.
  r.reference = opt.reference;
  if (!cublas.empty()) {
    const CompiledTables ct = compile_tables(tables, Extrapolation::ratio);
    double lt = 0, lb = 0;
    for (size_t s : held) {
      auto it = cublas.find(pool.keys[s]);
      if (it == cublas.end()) continue;
      ++r.cublas_shapes;
      lt += std::log(pool.us[s][size_t(decide(ct, pool.shapes[s]).config)] / it->second);
      lb += std::log(best_us(s) / it->second);
    }
    if (r.cublas_shapes > 0)
      r.tuned_over_cublas = std::exp(lt / double(r.cublas_shapes)),
      r.best_over_cublas = std::exp(lb / double(r.cublas_shapes));
  }
  return r;
}

}  // namespace loom::wave
