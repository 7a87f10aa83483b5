// Wave model of cuBLASLt's algorithm configs (`loom tune --family gemm-cublaslt`): one ridge regression per config
// over wave features (as the Triton fused-MoE target, config_model.h), G and L from the config's tile and split-K,
// plus a validity rule per config learnt from the sampled shapes, and held-out validation against heuristic #0.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "wave/lt_sweep.h"

namespace loom::wave {

/// f = [W*L, W, G*L/SMs, 1, bytes/1e8, L, splitK partial bytes/1e8]. cuBLAS sees F.linear as m = N, n = M, so
/// G = ceil(N/BM) * ceil(M/BN) * splitK, L = ceil(K / (splitK * BK)), W = ceil(G / SMs) (one CTA per SM: Hopper's
/// cuBLASLt kernels use most of the shared memory), bytes = 2(NK + MK + MN), partial bytes = 4 MN splitK (splitK > 1).
constexpr int kLtFeatures = 7;
using LtCoef = std::array<double, kLtFeatures>;
LtCoef lt_features(const LtShape& s, const LtConfig& c, int sms);

struct LtModel {
  std::string gpu, source;
  int sms = 0;
  double lambda = 0, keep_tolerance = 1e9;
  int keep_configs = 0;  ///< > 0: only the greedy dominating set of this many configs may be chosen (lt_greedy_set)
  /// Hybrid with cuBLASLt's heuristic #0 (the dispatcher queries it): >= 0: the model's pick replaces heuristic #0's
  /// config only where its predicted latency is below (1 - switch_margin) x heuristic #0's config's predicted latency
  /// (a config with coefficients fitted on samples), else heuristic #0 runs; < 0: the model's pick always (no hybrid).
  double switch_margin = -1;
  /// Hybrid gate: 0 = the wave model (pick vs heuristic #0's config, both predicted); k > 0 = the nearest measured
  /// shapes: the k sampled shapes nearest in (log M, log N, log K), where each config's latency over heuristic #0's
  /// was measured; the config with the lowest mean log ratio replaces heuristic #0 when below log(1 - switch_margin).
  int switch_neighbours = 0;
  std::vector<std::array<int64_t, 3>> ref_shapes;   ///< the sampled shapes (m, n, k), when switch_neighbours > 0
  std::vector<std::vector<double>> ref_log_ratio;   ///< [ref][config] log(T / heuristic #0's T); NaN: not run
  int64_t sampled_shapes = 0, pool_shapes = 0;
  std::vector<LtConfig> configs;
  std::vector<LtCoef> coef;
  /// Validity rule (from the data): config c may be chosen when K / splitK > max_refused_k_per_split[c], the largest
  /// K / splitK at which AlgoCheck refused it on a sampled shape (it refuses split-K configs whose K slices get too
  /// short); 0 when never refused on a sample, +inf when never accepted on one (never chosen).
  std::vector<double> max_refused_k_per_split;
};

/// Shapes sampled for the fit: sorted by M (then a hash of the shape), round(fraction * shapes) at even spacing.
std::vector<bool> lt_select(const LtSweep& sw, double fraction);
/// Fits every config on the sampled shapes where it ran (relative residuals, scaled columns, ridge lambda * n).
/// Pruning: a config never within `keep_tolerance` of the best on a sampled shape is never chosen (its validity
/// bound is +inf): with ~500 configs and ~20 samples, most configs' fits are noise that an argmin would pick.
/// keep_configs > 0 additionally restricts the choice to lt_greedy_set(sw, sampled, keep_configs).
LtModel fit_lt_model(const LtSweep& sw, const std::vector<bool>& sampled, double lambda, double keep_tolerance = 1e9,
                     int keep_configs = 0, double switch_margin = -1, int switch_neighbours = 0);
/// Greedy dominating set: up to `size` configs, each added to cut most the sum over sampled shapes of
/// log(best member's latency / best latency) (a shape no member runs costs heuristic #0's, else log 2); stops early
/// when no config lowers it. Returns config indices in the order added.
std::vector<int> lt_greedy_set(const LtSweep& sw, const std::vector<bool>& sampled, int size);
struct LtParams {
  double lambda = 0.03, keep_tolerance = 1e9;
  int keep_configs = 0;
  double switch_margin = -1;
  int switch_neighbours = 0;
};
/// Chooses (lambda, keep_tolerance, keep_configs, switch_margin) from the grids by 4-fold cross-validation over the
/// sampled shapes only (criterion: mean log(chosen/best) on each fold's left-out sampled shapes, heuristic #0's
/// latency where it runs); held-out shapes are never looked at.
LtParams choose_lt_params(const LtSweep& sw, const std::vector<bool>& sampled, const std::vector<double>& lambdas,
                          const std::vector<double>& tolerances, const std::vector<int>& set_sizes = {0},
                          const std::vector<double>& margins = {-1}, const std::vector<int>& neighbours = {0});

/// Compiled for decisions: structure of arrays over configs; the distinct tiles and K steps (splitK * BK) are
/// divided once per decision (at most kLtMaxDistinct of each), the wave count by a reciprocal with an exact fix-up.
constexpr size_t kLtMaxDistinct = 1024;
struct LtCompiled {
  int64_t sms = 0;
  double inv_sms = 0;
  std::vector<std::array<int64_t, 2>> tiles;  ///< distinct (BM, BN)
  std::vector<int64_t> ksteps;                ///< distinct splitK * BK
  std::vector<int32_t> tile_of, kstep_of;
  std::vector<int32_t> config;                ///< model config index of each compiled (admissible) config
  std::vector<int64_t> splitk;
  std::vector<double> max_refused_k;
  std::vector<LtCoef> coef;
  double switch_margin = -1;
  /// Every model config (for heuristic #0's prediction): bm, bn, bk, splitK; coefficients; fitted on a sample.
  std::vector<std::array<int64_t, 4>> geom_all;
  std::vector<LtCoef> coef_all;
  std::vector<char> fitted;
  /// Neighbour gate (switch_neighbours > 0): reference shapes in log2 space, their log ratios per compiled config.
  int neighbours = 0;
  std::vector<std::array<double, 3>> ref_log_shape;
  std::vector<std::vector<double>> ref_log_ratio;   ///< [ref][compiled config]
};
/// The neighbour gate's choice (lt_hybrid.cpp): compiled config index or -1 (heuristic #0).
int decide_lt_neighbours(const LtCompiled& c, int64_t m, int64_t n, int64_t k);
/// Fills m.ref_shapes / m.ref_log_ratio from the sampled shapes (lt_hybrid.cpp).
void fit_lt_neighbours(const LtSweep& sw, const std::vector<bool>& sampled, LtModel& m);
/// Compiles the neighbour gate's references into c (lt_hybrid.cpp).
void compile_lt_neighbours(const LtModel& m, LtCompiled& c);

/// Two-stage sparse plan (lt_hybrid.cpp): every config on the `full` shapes (lt_select at full_fraction), then only the
/// greedy dominating set (lt_greedy_set over the full shapes, `set_size`) and heuristic #0 on `partial_shapes` more
/// shapes at even spacing over M (the rest of lt_select's order).
struct LtPlan {
  std::vector<bool> full, partial, sampled;  ///< sampled = full or partial (never held out)
  std::vector<int> set;
};
LtPlan lt_plan_two_stage(const LtSweep& sw, double full_fraction, int partial_shapes, int set_size);
/// The hybrid of a two-stage plan: wave fits, validity rule and set from the full shapes (lambda as given), the
/// neighbour gate's references from every sampled shape (partial ones: the set's configs only); neighbours (1-3) and
/// margin by 4-fold CV over the sampled shapes (criterion: mean log(chosen / heuristic #0), what partial shapes know).
LtModel fit_lt_two_stage(const LtSweep& sw, const LtPlan& plan, double lambda);
LtCompiled compile_lt(const LtModel& m);
/// Index of the config with the lowest predicted latency among those the validity rule admits; -1 when none.
/// Hybrid models (switch_margin >= 0) take heur0 = the model config index of heuristic #0's config (-1: not in the
/// tables) and return -1 (run heuristic #0) unless the pick's predicted gain over it exceeds the margin.
int decide_lt(const LtCompiled& c, int64_t m, int64_t n, int64_t k, int heur0 = -1);

nlohmann::ordered_json lt_model_json(const LtModel& m);
/// Throws InputError(where, "<field>: ...") on a missing or malformed field.
LtModel lt_model_from_json(const nlohmann::json& j, const std::string& where);
/// Reads a tables file written by `loom tune --fit --family gemm-cublaslt` (lt_model_from_json's errors).
LtModel load_lt_model(const std::string& path);

/// The C header of the exported tables: table 1 = per-config coefficients and geometry, table 2 = the cuBLASLt
/// attributes that rebuild each config (AlgoInit + ConfigSetAttribute), and an inline `<prefix>_pick(m, n, k)` that
/// makes the same choice as decide_lt. `prefix` e.g. "loom_tune_h200_gemm_cublaslt".
std::string export_lt_header(const LtModel& m, const std::string& prefix);
/// Writes DIR/<prefix>.h and DIR/<gpu>-gemm-cublaslt.json; returns the two paths joined by ", ".
std::string export_lt(const LtModel& m, const std::string& gpu_key, const std::string& dir);

struct LtValidation {
  int64_t heldout = 0, sampled = 0, points = 0, sampled_points = 0;
  double geomean = 0, p95 = 0, max = 0, optimal_share = 0;  ///< chosen / best measured
  double speedup_vs_heur0 = 0;       ///< geomean heuristic #0 (as returned) / chosen
  double oracle_vs_heur0 = 0;        ///< geomean heuristic #0 / best: the most any selector could gain
  double heur0_geomean = 0, heur0_p95 = 0;  ///< heuristic #0 / best
  double rebuilt_vs_returned = 0;    ///< geomean of heuristic #0's config rebuilt with AlgoInit / the returned struct
  int64_t invalid_choices = 0;       ///< chosen config refused on the shape (counted at heuristic #0's latency)
  double switched_share = 0;         ///< hybrid: share of held-out shapes where a table config replaced heuristic #0
  double model_geomean = 0, model_p95 = 0;  ///< hybrid: the model's own pick on every shape (no heuristic #0)
  double decision_ns = 0, heur_query_us = 0;  ///< median decision; median cublasLtMatmulAlgoGetHeuristic time
  double grid_time_share = 0;        ///< GPU time of the sampled shapes' configs / the whole grid's
  /// Baseline: the best config of the nearest sampled shape (log M, log N, log K), refused -> heuristic #0.
  double nn_geomean = 0, nn_p95 = 0, nn_speedup_vs_heur0 = 0;
};
/// Validation on the shapes not sampled, with every valid config measured as truth.
/// plan (two-stage): partial shapes count only the set's configs and heuristic #0 as measured points.
LtValidation validate_lt(const LtSweep& sw, const std::vector<bool>& sampled, const LtModel& m, bool time_decisions,
                         const LtPlan* plan = nullptr);

}  // namespace loom::wave
