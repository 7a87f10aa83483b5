// Wave model for large config spaces (the Triton fused-MoE kernel's 236 configs): one small ridge regression per
// config over wave features, T(c, s) = w_c . f(c, s), with
//   f = [W*L, W, G*L/slots, 1, B/1e8, L, X]
// G = CTAs that do work, L = K-loop iterations, slots = SMs * CTAs/SM of c, W = ceil(G/slots) (the wave count),
// B = bytes (BytesFeature, tables.h: by default the weights the shape must read, experts touched * N * K elements;
// the memory floor of small batches), X = G*L/slots * row_repeats for gemm (tiles taller than M re-read A's rows)
// and empty_programs / slots for moe (programs of the engines' upper-bound grid past the routed rows, which start and
// exit at once: most of the launch at decode batches).
// Fitted on the sampled shapes only, least squares on relative residuals (rows weighted 1/T), columns scaled to unit
// RMS, ridge lambda * n on the scaled coefficients (a handful of samples per config cannot pin six terms alone).
// The per-(macro, wave bucket) bilinear tables stay the method for loom-bench's 8-16 configs; with 30 macros x 8 micro
// configs their sparse cells and fixed micro choice lose 7-12% (models/tune/README.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "wave/fit.h"

namespace loom::wave {

/// Feature 4 of shape s, in units of 1e8: `kind` (tables.h) with m_tiles x n_tiles the config's tile grid (moe: M tiles
/// summed over experts); weights and operands ignore the tile counts.
double shape_bytes(const TuneShape& s, BytesFeature kind, double m_tiles, double n_tiles);
/// Extra loads per A row of a gemm tile when M < BM: BM/M - 1. The Triton GEMM wraps rows past M (offs_am % M, as
/// Triton's tutorial), so a tile of BM rows re-reads the M real ones; on H100 a 64-row tile at M = 1 runs 3x its M = 16
/// time (gemm-triton corpus, n=5120 k=1024: 15.0 vs 4.96 us). 0 for moe (its padded rows are masked, not wrapped).
double row_repeats(const TuneShape& s, int bm);
/// Programs of the moe kernel's launch that do no work: the engines size the grid for the upper bound of the padded
/// routed rows, cdiv(tokens*topk + experts*(BM-1), BM) x cdiv(N, BN), and programs past the routed rows return at once
/// (scripts/torch/tune/fused_moe_triton.py, as vLLM/SGLang). 0 for gemm.
double empty_programs(const TuneShape& s, int bm, int bn);
/// Features of shape s under config c on `sms` SMs (c.ctas_per_sm filled). work_floor_ctas > 0: the work term is
/// max(G, floor) * L / slots (below that many CTAs the per-SM bandwidth, not the chip's, bounds an iteration, so fewer
/// CTAs do not make the work cheaper).
ConfigCoef config_features(const TuneShape& s, const TuneConfig& c, int sms,
                           BytesFeature bytes = BytesFeature::weights, double work_floor_ctas = 0);
/// Fits every config's coefficients on the pool's sampled shapes.
/// dropped_feature >= 0 leaves that column out (its coefficient 0). keep_tolerance: a config never within
/// (1 + keep_tolerance) x the best on a sampled shape is pruned: its intercept is set to kPrunedIntercept (1e9 us), so
/// no decision picks it (decisions and exports need no change); >= 1e8: no pruning. bytes: what feature 4 counts.
/// nonneg: every coefficient >= 0 (each term is a cost: per wave-iteration, per wave, per unit of work, launch, per
/// byte, per iteration; a negative one lets a config look nearly free far from its samples). work_floor_ctas: as in
/// config_features. macro_prior: each config's ridge shrinks towards its macro's fit (the rows of every config with
/// the same BM x BN x BK pooled, fitted with the same lambda, sign constraint and features) instead of towards zero.
constexpr double kPrunedIntercept = 1e9;
ConfigModel fit_config_model(const Pool& pool, const std::vector<bool>& sampled, double lambda,
                             int dropped_feature = -1, double keep_tolerance = 1e9,
                             BytesFeature bytes = BytesFeature::weights, bool nonneg = false,
                             double work_floor_ctas = 0, bool macro_prior = false);
struct ConfigParams {
  double lambda = 0.03;
  int dropped_feature = -1;
  double keep_tolerance = 1e9;
  BytesFeature bytes = BytesFeature::weights;
  bool nonneg = false;
  double work_floor_ctas = 0;
  bool macro_prior = false;
};
/// Chooses (lambda, dropped feature, keep tolerance, bytes feature, sign constraint, work floor, macro prior) from the
/// grids by 4-fold cross-validation over the sampled shapes only (criterion: mean log(chosen/best), chosen = the argmin
/// of the predictions); held-out shapes are never used. Ties keep the earlier grid entry.
ConfigParams choose_config_params(const Pool& pool, const std::vector<bool>& sampled,
                                  const std::vector<double>& lambdas, const std::vector<int>& drops,
                                  const std::vector<double>& tolerances = {1e9},
                                  const std::vector<BytesFeature>& bytes = {BytesFeature::weights},
                                  const std::vector<bool>& nonnegs = {false},
                                  const std::vector<double>& work_floors = {0.0},
                                  const std::vector<bool>& priors = {false});
/// The name of a bytes feature ("weights", "operands", "tiles") and back (throws InputError(where, ...)).
std::string bytes_feature_name(BytesFeature b);
BytesFeature parse_bytes_feature(const std::string& s, const std::string& where);
/// Stratified sample: pool shapes sorted by routed rows per expert (tokens*topk/experts), then stage and key hash;
/// round(fraction * shapes) taken at even spacing (deterministic). For the Triton target, whose shapes span decode to
/// prefill batches: every regime gets samples.
std::vector<bool> select_stratified(const Pool& pool, double fraction);

nlohmann::ordered_json config_model_json(const ConfigModel& m, const std::vector<TuneConfig>& configs,
                                         bool moe = false);
/// Throws InputError(where, ...) when a config is missing, a row has the wrong length (a moe table's rows have 7
/// numbers; gemm tables from before the row-repeat feature may have 6), a coefficient is beyond +-1e9 (the pruned
/// intercept) or negative in a model fitted >= 0, 'lambda' is not in [0, 100], or 'features' names other features
/// than this loom's (a moe table fitted with another seventh feature would be read with this one's meaning).
ConfigModel config_model_from_json(const nlohmann::json& j, const std::vector<TuneConfig>& configs,
                                   const std::string& where, bool moe = false);

}  // namespace loom::wave
