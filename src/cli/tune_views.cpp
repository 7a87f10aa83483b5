// Text and JSON views of `loom tune` results (see tune_views.h).
#include "cli/tune_views.h"

#include <algorithm>
#include <cstdio>

#include "cli/table.h"

namespace loom::cli {
namespace {

using namespace loom::wave;

std::string wave_range(int bucket) {
  const auto& e = wave_bucket_edges();
  const int64_t lo = e[size_t(bucket)];
  if (size_t(bucket) + 1 >= e.size()) return std::to_string(lo) + "+";
  const int64_t hi = e[size_t(bucket) + 1] - 1;
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

std::string timing(double ns) {
  if (ns <= 0) return "-";
  return ns < 1000 ? fmt(ns, 0) + " ns" : ns < 1e6 ? fmt(ns / 1e3, 1) + " us" : fmt(ns / 1e6, 2) + " ms";
}

}  // namespace

std::string fixed(double x, int digits) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

std::string per_shape_csv(const ValidationReport& r) {
  std::string out = csv_row({"shape", "rows", "band", "chosen", "chosen_us", "best", "best_us", "default_us",
                             "chosen_over_best"});
  for (const ShapeResult& x : r.per_shape)
    out += csv_row({x.shape, std::to_string(x.rows), kBatchBands[batch_band(x.rows)], x.chosen, fixed(x.chosen_us, 3),
                    x.best, fixed(x.best_us, 3), fixed(x.default_us, 3), fixed(x.chosen_us / x.best_us, 4)});
  return out;
}

std::string fit_summary_text(const TuneTables& t, int64_t incomplete_shapes) {
  int fits = 0, full = 0;
  for (const auto& m : t.macros)
    for (const auto& b : m.fits) ++fits, full += b.fit.terms == 4;
  std::string s = t.gpu + " " + t.family + " (" + std::to_string(t.sms) + " SMs): " + std::to_string(t.pool_shapes) +
                  " shapes with every config measured (" + std::to_string(incomplete_shapes) +
                  " incomplete left out), " + std::to_string(t.configs.size()) + " configs in " +
                  std::to_string(t.macros.size()) + " macros\n";
  s += "sampled " + std::to_string(t.sampled_shapes) + " shapes = " + std::to_string(t.samples) + " measurements (" +
       fmt(100.0 * double(t.samples) / double(std::max<int64_t>(1, t.exhaustive_points)), 3) + "% of the " +
       std::to_string(t.exhaustive_points) + "-point exhaustive grid); anchors chosen from the measured pool\n";
  s += "table 1: " + std::to_string(fits) + " (macro, wave bucket) fits, " + std::to_string(full) +
       " with all four terms\n";
  return s;
}

std::string validation_text(const ValidationReport& r) {
  std::string s = "loom tune --validate: " + r.gpu + " " + r.family + " (" + std::to_string(r.sms) + " SMs)\n";
  s += "pool " + std::to_string(r.pool_shapes) + " shapes x all configs (" + std::to_string(r.incomplete_shapes) +
       " incomplete left out); sampled " + std::to_string(r.sampled_shapes) + " shapes = " + std::to_string(r.samples) +
       " of " + std::to_string(r.exhaustive_points) + " points (" +
       fmt(100.0 * double(r.samples) / double(std::max<int64_t>(1, r.exhaustive_points)), 3) +
       "%), chosen from the measured pool, not by a --plan run; held out " + std::to_string(r.heldout_shapes) +
       " shapes\n\n";
  Table t;
  t.columns = {"method", "chosen/best geomean", "p95", "max", "optimal", "speedup vs default", "decision"};
  t.right_align = {false, true, true, true, true, true, true};
  for (const auto& m : r.methods)
    t.add({m.method, fmt(m.geomean_ratio, 4), fmt(m.p95_ratio, 4), fmt(m.max_ratio, 4),
           fmt(100 * m.optimal_share, 3) + "%", fmt(m.speedup_vs_default, 4) + "x", timing(m.decision_ns)});
  s += t.text();
  if (!r.bands.empty()) {  // where the losses sit: decode-like batches vs prefill
    Table bt;
    bt.columns = {std::string("wave tuner (ratio) by ") + (r.family.rfind("gemm", 0) == 0 ? "M" : "tokens"), "shapes",
                  "chosen/best geomean", "p95", "max"};
    bt.right_align = {false, true, true, true, true};
    for (const auto& b : r.bands)
      bt.add({b.band, std::to_string(b.shapes), fmt(b.geomean_ratio, 4), fmt(b.p95_ratio, 4), fmt(b.max_ratio, 4)});
    s += "\n" + bt.text();
  }
  s += "\nbilinear fits: " + std::to_string(r.fits) + " (macro, wave bucket) cells, " + std::to_string(r.fits_full) +
       " with 4 terms; " +
       (r.fit_r2_n > 0 ? "in-sample R^2 median " + fmt(r.fit_r2_median, 4) + ", relative RMS residual median " +
                             fmt(100 * r.fit_rel_rms_median, 3) + "% (over " + std::to_string(r.fit_r2_n) +
                             " cells with >= 6 samples)\n"
                       : "no cell has >= 6 samples (in-sample R^2 not meaningful)\n");
  s += "held-out error of each macro's best latency: median " + fmt(100 * r.heldout_err_median, 3) + "%, p90 " +
       fmt(100 * r.heldout_err_p90, 3) + "% over " + std::to_string(r.heldout_points) + " points (" +
       std::to_string(r.heldout_borrowed) + " in unsampled wave buckets, median " +
       fmt(100 * r.heldout_err_borrowed_median, 3) + "%); chosen macro extrapolated in " +
       fmt(100 * r.chosen_borrowed_share, 3) + "% of decisions\n";
  if (r.cublas_shapes > 0 && r.reference == "cuBLAS")
    s += "cuBLAS (cublasLt, wgmma kernels) on " + std::to_string(r.cublas_shapes) +
         " held-out shapes: loom tuned / cuBLAS latency geomean " + fmt(r.tuned_over_cublas, 3) +
         "x, loom best / cuBLAS " + fmt(r.best_over_cublas, 3) + "x (loom's mma.sync kernels vs cuBLAS's own pick)\n";
  else if (r.cublas_shapes > 0 && r.reference.rfind("cuBLAS", 0) == 0)
    s += r.reference + " on " + std::to_string(r.cublas_shapes) + " held-out shapes: Triton tuned / cuBLAS latency "
         "geomean " + fmt(r.tuned_over_cublas, 3) + "x, Triton best / cuBLAS " + fmt(r.best_over_cublas, 3) + "x\n";
  else if (r.cublas_shapes > 0)
    s += r.reference + " on " + std::to_string(r.cublas_shapes) + " held-out shapes: loom tuned / default latency "
         "geomean " + fmt(r.tuned_over_cublas, 3) + "x (speedup " + fmt(1 / r.tuned_over_cublas, 3) +
         "x), best / default " + fmt(r.best_over_cublas, 3) + "x (the default measured in its own run: "
         "moe_sweep.py --configs beside the pool or the held-out grid)\n";
  return s;
}

nlohmann::ordered_json validation_json(const ValidationReport& r) {
  nlohmann::ordered_json j{{"schema", "loom.tune_validate/1"}, {"gpu", r.gpu}, {"family", r.family}, {"sms", r.sms},
                           {"default_config", r.default_config},
                           {"pool_shapes", r.pool_shapes}, {"incomplete_shapes", r.incomplete_shapes},
                           {"sampled_shapes", r.sampled_shapes}, {"heldout_shapes", r.heldout_shapes},
                           {"samples", r.samples}, {"exhaustive_points", r.exhaustive_points},
                           {"anchors_from", "measured pool (not a --plan run)"}};
  for (const auto& m : r.methods)
    j["methods"].push_back({{"method", m.method}, {"shapes", m.shapes}, {"geomean_ratio", m.geomean_ratio},
                            {"p95_ratio", m.p95_ratio}, {"max_ratio", m.max_ratio}, {"optimal_share", m.optimal_share},
                            {"speedup_vs_default", m.speedup_vs_default}, {"decision_ns", m.decision_ns}});
  for (const auto& b : r.bands)
    j["by_batch"].push_back({{"band", b.band}, {"shapes", b.shapes}, {"geomean_ratio", b.geomean_ratio},
                             {"p95_ratio", b.p95_ratio}, {"max_ratio", b.max_ratio}});
  j["fit"] = {{"cells", r.fits}, {"cells_4_terms", r.fits_full}, {"r2_median", r.fit_r2_median},
              {"rel_rms_median", r.fit_rel_rms_median}, {"cells_with_6_samples", r.fit_r2_n},
              {"heldout_err_median", r.heldout_err_median}, {"heldout_err_p90", r.heldout_err_p90},
              {"heldout_points", r.heldout_points}, {"heldout_borrowed", r.heldout_borrowed},
              {"heldout_err_borrowed_median", r.heldout_err_borrowed_median},
              {"chosen_borrowed_share", r.chosen_borrowed_share}};
  if (r.cublas_shapes > 0)
    j[r.reference.rfind("cuBLAS", 0) == 0 ? "cublas" : "engine_default"] = {
        {"reference", r.reference},
        {"shapes", r.cublas_shapes},
        {"tuned_over_reference", r.tuned_over_cublas},
        {"best_over_reference", r.best_over_cublas}};
  return j;
}

std::string decision_text(const CompiledTables& t, const TuneShape& s, const Choice& c, double median_ns, int reps) {
  const std::string cfg = t.configs[size_t(c.config)];
  Table tb;
  tb.columns = {"field", "value"};
  tb.add({"gpu", t.gpu + " (" + std::to_string(t.sms) + " SMs)"});
  tb.add({"kernel", tune_spec(s)});
  tb.add({"config", cfg});
  tb.add({"grid", "G=" + std::to_string(c.ctas) + " L=" + std::to_string(c.loop_iters) + " waves=" +
                      std::to_string(c.waves) + " (bucket " + wave_range(c.bucket) + ", L anchor " +
                      std::to_string(1 << c.anchor) + ")" + (c.borrowed ? ", extrapolated" : "")});
  tb.add({"predicted", fmt(c.predicted_us, 4) + " us"});
  tb.add({"decision", reps > 0 ? timing(median_ns) + " (median of " + std::to_string(reps) + " x 1000, one core)"
                               : "not timed (--reps 0)"});
  return tb.text();
}

nlohmann::ordered_json decision_json(const CompiledTables& t, const TuneShape& s, const Choice& c, double median_ns,
                                     int reps) {
  nlohmann::ordered_json j{{"schema", "loom.tune/1"}, {"gpu", t.gpu}, {"kernel", tune_spec(s)},
                           {"config", t.configs[size_t(c.config)]},
                           {"ctas", c.ctas}, {"loop_iters", c.loop_iters}, {"waves", c.waves},
                           {"wave_bucket", wave_range(c.bucket)}, {"l_anchor", 1 << c.anchor},
                           {"extrapolated", c.borrowed}, {"predicted_us", c.predicted_us}};
  if (reps > 0) j["decision_ns"] = median_ns, j["decision_reps"] = reps;
  return j;
}

}  // namespace loom::cli
