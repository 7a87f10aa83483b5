// `loom tune --family gemm-cublaslt`: fit, validate and export the wave model of cuBLASLt's algorithm configs
// (src/wave/lt_model.h) from a sweep of bench/cublaslt/cublaslt_sweep.cu (traces/tune/<gpu>/cublaslt-sweep.csv.gz).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands_tune.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/file_io.h"
#include "hw/catalog.h"
#include "wave/lt_model.h"
#include "wave/tables.h"

namespace loom::cli {
namespace {

using namespace loom::wave;

constexpr const char* kSweepFile = "cublaslt-sweep.csv.gz";

// --traces names the sweep file itself, or a folder holding <gpu>/cublaslt-sweep.csv.gz (traces/tune) or it.
std::string sweep_path(const std::string& traces, const std::string& gpu) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(traces)) return traces;
  for (const fs::path& p : {fs::path(traces) / gpu / kSweepFile, fs::path(traces) / "tune" / gpu / kSweepFile,
                            fs::path(traces) / kSweepFile})
    if (fs::is_regular_file(p)) return p.string();
  throw InputError(traces, std::string("no ") + kSweepFile + " for GPU '" + gpu +
                               "' (looked in DIR/<gpu>/, DIR/tune/<gpu>/, DIR/); collect one with "
                               "scripts/cublaslt-collect.sh");
}

struct LtFit {
  LtSweep sweep;
  std::vector<bool> sampled;
  LtModel model;
  std::optional<LtPlan> plan;  ///< --partial-shapes: the two-stage plan
};

LtFit fit(const Args& args, const std::string& gpu) {
  double fraction = 0.05;
  if (auto x = args.number("--sample-fraction")) {
    if (*x <= 0 || *x >= 1) throw InputError("--sample-fraction", "must be in (0, 1), e.g. 0.05");
    fraction = *x;
  }
  std::optional<double> lambda;
  if (auto x = args.number("--lambda")) {
    if (!(*x >= 0 && *x <= 100)) throw InputError("--lambda", "must be in [0, 100], e.g. 0.03");
    lambda = *x;
  }
  int partial = 0;
  if (auto x = args.number("--partial-shapes")) {
    if (!(*x >= 1 && *x <= 100000) || *x != double(int(*x)))
      throw InputError("--partial-shapes", "must be a whole number of shapes >= 1, e.g. 190");
    partial = int(*x);
  }
  LtFit f;
  f.sweep = read_lt_sweep(sweep_path(args.require("--traces"), gpu));
  if (partial > 0) {
    // Two-stage plan: every config on `fraction` of the shapes, then the 16-config dominating set and heuristic #0
    // on `partial` more; the hybrid's neighbour gate reads them (lt_hybrid.cpp).
    f.plan = lt_plan_two_stage(f.sweep, fraction, partial, 16);
    f.sampled = f.plan->sampled;
    const double lam =
        lambda ? *lambda : choose_lt_params(f.sweep, f.plan->full, {0.001, 0.01, 0.1, 1.0}, {1e9}).lambda;
    f.model = fit_lt_two_stage(f.sweep, *f.plan, lam);
    return f;
  }
  f.sampled = lt_select(f.sweep, fraction);
  // lambda, pruning, dominating-set size and the hybrid's switch margin by 4-fold cross-validation over the sampled
  // shapes only (never the held-out ones). Set sizes <= 64 keep a decision under 0.5 us (~4 ns per config); margin
  // -1 = the model alone, >= 0 = hybrid with heuristic #0 (queried by the dispatcher, cached per shape), gated by
  // the wave model (neighbours 0) or by the 1-3 nearest sampled shapes' measured gains.
  const std::vector<double> lambdas = lambda ? std::vector<double>{*lambda}
                                             : std::vector<double>{0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0};
  const LtParams p = choose_lt_params(f.sweep, f.sampled, lambdas, {0.0, 0.01, 0.03, 0.1, 1e9}, {8, 16, 32, 64},
                                      {-1, 0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5}, {0, 1, 2, 3});
  f.model = fit_lt_model(f.sweep, f.sampled, p.lambda, p.keep_tolerance, p.keep_configs, p.switch_margin,
                         p.switch_neighbours);
  return f;
}

std::string fixed(double v, int digits) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string validation_text(const std::string& gpu, const LtFit& f, const LtValidation& v) {
  std::string o = "gemm-cublaslt wave tuner, " + gpu + " (" + std::to_string(f.sweep.sms) + " SMs, " +
                  f.sweep.gpu_name + "), sweep " + f.sweep.path + "\n";
  o += "  configs " + std::to_string(f.sweep.configs.size()) + "; shapes " + std::to_string(f.sweep.shapes.size()) +
       " complete (" + std::to_string(f.sweep.incomplete_shapes) + " incomplete left out)\n";
  o += "  sampled " + std::to_string(v.sampled) + " shapes, " + std::to_string(v.sampled_points) + " of " +
       std::to_string(v.points) + " measured points (" + fixed(100.0 * double(v.sampled_points) / double(v.points), 2) +
       "%; " + fixed(100.0 * v.grid_time_share, 2) + "% of the grid's GPU time); lambda " + fixed(f.model.lambda, 3) +
       ", keep tolerance " + (f.model.keep_tolerance > 1e8 ? std::string("none") : fixed(f.model.keep_tolerance, 2)) +
       ", dominating set " + (f.model.keep_configs > 0 ? std::to_string(f.model.keep_configs) : std::string("none")) +
       ", hybrid switch margin " +
       (f.model.switch_margin >= 0 ? fixed(f.model.switch_margin, 2) : std::string("none (model alone)")) +
       (f.model.switch_margin < 0 ? std::string()
        : f.model.switch_neighbours > 0
            ? ", gate: " + std::to_string(f.model.switch_neighbours) + " nearest sampled shapes' measured gain"
            : std::string(", gate: the wave model")) +
       " (4-fold CV on the sampled shapes); " + std::to_string(compile_lt(f.model).config.size()) +
       " configs admissible\n";
  if (f.plan)
    o += "  two-stage plan: every config on " +
         std::to_string(std::count(f.plan->full.begin(), f.plan->full.end(), true)) + " shapes, the " +
         std::to_string(f.plan->set.size()) + "-config dominating set + heuristic #0 on " +
         std::to_string(std::count(f.plan->partial.begin(), f.plan->partial.end(), true)) + " more\n";
  o += "  held out " + std::to_string(v.heldout) + " shapes (truth: every valid config measured)\n";
  o += "  wave tuner   chosen/best geomean " + fixed(v.geomean, 3) + "  p95 " + fixed(v.p95, 3) + "  max " +
       fixed(v.max, 2) + "  optimal " + fixed(100 * v.optimal_share, 1) + "%  refused choices " +
       std::to_string(v.invalid_choices) + "\n";
  if (f.model.switch_margin >= 0)
    o += "  hybrid: table config chosen over heuristic #0 on " + fixed(100 * v.switched_share, 1) +
         "% of the held-out shapes; the model alone (no heuristic #0) geomean " + fixed(v.model_geomean, 3) + "  p95 " +
         fixed(v.model_p95, 3) + "\n";
  o += "  nearest sampled shape's best (baseline) geomean " + fixed(v.nn_geomean, 3) + "  p95 " + fixed(v.nn_p95, 3) +
       "  speedup over heuristic #0 " + fixed(v.nn_speedup_vs_heur0, 3) + "x\n";
  o += "  heuristic #0 chosen/best geomean " + fixed(v.heur0_geomean, 3) + "  p95 " + fixed(v.heur0_p95, 3) + "\n";
  o += "  speedup over cuBLASLt heuristic #0: " + fixed(v.speedup_vs_heur0, 3) + "x (oracle " +
       fixed(v.oracle_vs_heur0, 3) + "x)\n";
  o += "  decision " + fixed(v.decision_ns / 1000, 3) + " us (median, one core); cublasLtMatmulAlgoGetHeuristic " +
       fixed(v.heur_query_us, 1) + " us (median, on the device host" +
       (f.model.switch_margin >= 0 ? std::string("; the hybrid's dispatcher queries it once per new shape)") : ")") +
       "\n";
  o += "  heuristic #0's config rebuilt with AlgoInit / as returned: " + fixed(v.rebuilt_vs_returned, 3) + "\n";
  return o;
}

nlohmann::ordered_json validation_json(const std::string& gpu, const LtFit& f, const LtValidation& v) {
  return {{"schema", "loom.tune_validate_cublaslt/1"},
          {"gpu", gpu},
          {"family", "gemm-cublaslt"},
          {"sms", f.sweep.sms},
          {"sweep", f.sweep.path},
          {"configs", f.sweep.configs.size()},
          {"shapes", f.sweep.shapes.size()},
          {"sampled_shapes", v.sampled},
          {"heldout_shapes", v.heldout},
          {"points", v.points},
          {"sampled_points", v.sampled_points},
          {"grid_time_share", v.grid_time_share},
          {"lambda", f.model.lambda},
          {"keep_tolerance", f.model.keep_tolerance},
          {"keep_configs", f.model.keep_configs},
          {"switch_margin", f.model.switch_margin},
          {"switch_neighbours", f.model.switch_neighbours},
          {"switched_share", v.switched_share},
          {"model_geomean", v.model_geomean},
          {"model_p95", v.model_p95},
          {"admissible_configs", compile_lt(f.model).config.size()},
          {"geomean", v.geomean},
          {"p95", v.p95},
          {"max", v.max},
          {"optimal_share", v.optimal_share},
          {"refused_choices", v.invalid_choices},
          {"heur0_geomean", v.heur0_geomean},
          {"heur0_p95", v.heur0_p95},
          {"speedup_vs_heur0", v.speedup_vs_heur0},
          {"oracle_vs_heur0", v.oracle_vs_heur0},
          {"nearest_geomean", v.nn_geomean},
          {"nearest_p95", v.nn_p95},
          {"nearest_speedup_vs_heur0", v.nn_speedup_vs_heur0},
          {"decision_ns", v.decision_ns},
          {"heur_query_us", v.heur_query_us},
          {"rebuilt_vs_returned", v.rebuilt_vs_returned}};
}

}  // namespace

int run_tune_cublaslt(const Args& args) {
  const std::string gpu = args.require("--gpu");
  Catalog::load().get(gpu);  // validates the name
  const std::string tables = args.get("--tables", tables_path(gpu, "gemm-cublaslt"));
  if (args.has("--fit")) {
    const LtFit f = fit(args, gpu);
    const std::string out = args.require("--out");  // cmd_tune refused --fit without it
    write_file(out, lt_model_json(f.model).dump(1) + "\n");
    emit("gemm-cublaslt: " + std::to_string(f.model.configs.size()) + " configs fitted on " +
         std::to_string(f.model.sampled_shapes) + " of " + std::to_string(f.model.pool_shapes) +
         " shapes (lambda " + fixed(f.model.lambda, 3) + "); tables written to " + out + "\n");
    return 0;
  }
  if (args.has("--validate")) {
    const LtFit f = fit(args, gpu);
    const LtValidation v =
        validate_lt(f.sweep, f.sampled, f.model, !args.has("--no-timing"), f.plan ? &*f.plan : nullptr);
    emit(args.format("`loom tune --validate`", {"table", "json"}) == "json" ? validation_json(gpu, f, v).dump(1) + "\n"
                                                                            : validation_text(gpu, f, v));
    return 0;
  }
  if (args.has("--export")) {
    emit("wrote " + export_lt(load_lt_model(tables), gpu, args.require("--out")) + "\n");
    return 0;
  }
  throw InputError("--family", "gemm-cublaslt takes --fit, --validate or --export (decisions: the exported header)");
}

}  // namespace loom::cli
