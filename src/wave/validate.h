// Wave model, step 6: validation on held-out shapes (never sampled) with exhaustive truth: chosen/best latency of
// the wave tuner (both extrapolation modes), an XGBoost cost model trained on the same sampled points, the family's
// fixed default and the best fixed config; decision times; held-out error of the bilinear model; cuBLAS comparison.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/trace.h"
#include "wave/fit.h"

namespace loom::wave {

struct MethodResult {
  std::string method;
  int64_t shapes = 0;
  double geomean_ratio = 0;   ///< geomean of chosen / best measured latency
  double p95_ratio = 0, max_ratio = 0;
  double optimal_share = 0;   ///< share of shapes where the chosen config is the measured best
  double speedup_vs_default = 0;  ///< geomean of default latency / chosen latency
  double decision_ns = 0;     ///< median time of one decision (0 = not timed: fixed choices)
};

/// The wave tuner's chosen/best over the held-out shapes of one batch band (rows a launch: moe tokens, gemm M).
struct BandResult {
  std::string band;  ///< "1-3", "4-16", "17-128", ">128"
  int64_t shapes = 0;
  double geomean_ratio = 0, p95_ratio = 0, max_ratio = 0;
};
/// Batch bands (rows a launch: moe tokens, gemm M): decode-like batches carry most of the Triton MoE losses.
inline constexpr const char* kBatchBands[] = {"1-3", "4-16", "17-128", ">128"};
/// Index into kBatchBands of a batch of `rows`.
inline int batch_band(int64_t rows) { return rows <= 3 ? 0 : rows <= 16 ? 1 : rows <= 128 ? 2 : 3; }

/// One held-out shape as the wave tuner (ratio) decided it: `loom tune --validate --per-shape FILE`.
struct ShapeResult {
  std::string shape;        ///< the pool's key (the shape's spec without config)
  int64_t rows = 0;         ///< rows a launch: moe tokens, gemm M
  std::string chosen, best;  ///< config names: the tuner's choice and the measured best
  double chosen_us = 0, best_us = 0, default_us = 0;  ///< measured latencies (default: the family's fixed default)
};

struct ValidationReport {
  std::string gpu, family, default_config;
  int sms = 0;
  int64_t pool_shapes = 0, sampled_shapes = 0, heldout_shapes = 0, incomplete_shapes = 0;
  int64_t samples = 0, exhaustive_points = 0;
  std::vector<MethodResult> methods;
  std::vector<BandResult> bands;  ///< the wave tuner (ratio) by batch band, bands with held-out shapes only
  std::vector<ShapeResult> per_shape;  ///< the wave tuner (ratio) on every held-out shape, in the pool's order
  // Bilinear model quality.
  int64_t fits = 0, fits_full = 0;     ///< (macro, bucket) fits, and those with all four terms
  double fit_r2_median = 0;            ///< over fits with >= 6 samples
  int64_t fit_r2_n = 0;
  double fit_rel_rms_median = 0;       ///< in-sample relative RMS residual, same fits
  double heldout_err_median = 0, heldout_err_p90 = 0;  ///< |pred - truth| / truth of each macro's best latency
  double heldout_err_borrowed_median = 0;               ///< same, cells extrapolated from another wave bucket
  int64_t heldout_borrowed = 0, heldout_points = 0;
  double chosen_borrowed_share = 0;   ///< decisions whose chosen macro's bucket was extrapolated
  // A reference implementation on the held-out shapes it also ran: cuBLAS (gemm: an impl=cublaslt row of the same
  // m n k; gemm-triton: F.linear beside the sweep) or the engines' default fused-MoE config (moe-triton).
  std::string reference = "cuBLAS";
  int64_t cublas_shapes = 0;
  double tuned_over_cublas = 0, best_over_cublas = 0;  ///< geomeans of loom latency / cuBLAS latency
};

/// cuBLAS latencies of the gemm shapes in the corpus of `gpu_key` with the most SMs: tune_spec(shape) -> median_us.
std::map<std::string, double> cublas_latencies(const std::vector<Corpus>& corpora, const std::string& gpu_key);

/// cuBLAS latencies (F.linear / torch._scaled_mm, impl torch) measured beside the Triton GEMM sweep on the same
/// operands (gemm_sweep.py corpora of `gpu_key`), for the shapes of `target` (gemm-triton[-fp8]): tune_spec -> us.
std::map<std::string, double> sweep_cublas_latencies(const std::vector<Corpus>& corpora, const std::string& gpu_key,
                                                     const std::string& target);

/// The serving engines' default fused-MoE config latency of the moe-triton shapes measured by
/// `moe_sweep.py --configs` (scripts/tune-moe-check.sh): vLLM's get_default_config without a tuned file,
/// 16x32x64 GROUP_SIZE_M 1 for M <= E, else 64x64x32 GROUP_SIZE_M 8 (4 warps, 3 stages). tune_spec(shape) -> us
/// (a shape measured twice: the mean, as in the pool). Throws InputError for such a corpus measured at another SM
/// count than `sms` (the pool's) or holding a config name outside the target's space.
std::map<std::string, double> engine_default_latencies(const std::vector<Corpus>& corpora, const std::string& gpu_key,
                                                       const std::string& target, int64_t sms);

/// ", config X (in FILE) is not the pool's": the first config of a held-out grid outside the pool's space ("" if none).
std::string config_outside(const Pool& fresh, const Pool& pool, const std::vector<Corpus>& corpora);

/// Checks a Triton target's held-out folder: every corpus with the target's rows (impl triton, config=) is the grid
/// (the family's sweep tool) or the engines' defaults measured beside it (`moe_sweep.py --configs`), of `gpu_key`, and
/// the defaults pass engine_default_latencies' checks at `sms`; a tool-less or another GPU's corpus there was left out
/// without a word, so its defaults silently dropped out of the report (round 17). Throws InputError naming the file.
void check_heldout_corpora(const std::vector<Corpus>& corpora, const std::string& gpu_key, const std::string& target,
                           int64_t sms);

struct ValidateOptions {
  std::string reference = "cuBLAS";  ///< name of the reference latencies passed to validate_tables
  bool time_decisions = true;
  int xgb_rounds = 300;
};

/// Validates tables fitted on `sampled` against every other pool shape. Throws InputError if nothing is held out.
ValidationReport validate_tables(const Pool& pool, const std::vector<bool>& sampled, const TuneTables& tables,
                                 const std::map<std::string, double>& cublas, const ValidateOptions& opt = {});

}  // namespace loom::wave
