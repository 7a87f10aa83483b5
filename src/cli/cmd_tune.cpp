// `loom tune`: the wave model's CLI. A decision from the committed tables (--kernel), the sparse sampling plan
// (--plan), fitting the tables from the corpus (--fit), held-out validation (--validate) and export (--export).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands_tune.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/table.h"
#include "cli/tune_views.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "trace/trace.h"
#include "wave/config_model.h"
#include "wave/decide.h"
#include "wave/export.h"
#include "wave/fit.h"
#include "wave/plan.h"
#include "wave/tune_request.h"
#include "wave/validate.h"

namespace loom::cli {
namespace {

using namespace loom::wave;

struct Setup {
  std::string gpu_key, family;
  GpuSpec gpu;
};

Setup setup(const Args& args, bool need_family) {
  Setup s;
  s.gpu_key = args.require("--gpu");
  s.gpu = Catalog::load().get(s.gpu_key);  // validates the name ("unknown GPU ...; try `loom gpus`")
  if (need_family) {
    s.family = args.require("--family");
    check_tune_family(s.family, "--family");
  }
  return s;
}

std::string tables_file(const Args& args, const Setup& s) {
  return args.get("--tables", tables_path(s.gpu_key, s.family));
}

// Pool, anchors and tables from the corpus (shared by --fit and --validate).
struct Fitted {
  std::vector<Corpus> corpora;
  Pool pool;
  std::vector<bool> sampled;
  TuneTables tables;
};

/// `check_pool`, where given, sees the pool before the (slow) fit: a held-out grid that cannot be scored against it is
/// refused at once, not after the fit (a gemm-triton fit takes about 45 s).
Fitted fit_from_traces(const Args& args, const Setup& s, const std::function<void(const Pool&)>& check_pool = {}) {
  Fitted f;
  const std::string traces = args.require("--traces");
  AnchorOptions opt;  // checked before the (slow) corpus read
  if (auto x = args.number("--sample-fraction")) {
    if (*x <= 0 || *x >= 1) throw InputError("--sample-fraction", "must be in (0, 1), e.g. 0.25");
    opt.fraction = *x;
  }
  // A count: a whole number (2.5 was truncated to 2, 1e30 cast to int out of range; round 13).
  if (args.has("--anchors-per-bucket")) opt.per_bucket = int(args.integer("--anchors-per-bucket", 1, 100000, 4));
  double lambda = 0.03;
  if (auto x = args.number("--lambda")) {
    if (!(*x >= 0 && *x <= 100)) throw InputError("--lambda", "must be in [0, 100], e.g. 0.03");
    lambda = *x;
  }
  Progress read("reading corpus");
  f.corpora = read_corpus_dir(traces);
  read.finish(std::to_string(f.corpora.size()) + " corpus files");
  f.pool = load_pool(f.corpora, s.gpu, s.gpu_key, s.family, "--traces " + traces);  // the folder, in its errors
  if (check_pool) check_pool(f.pool);
  // The Triton target (236 configs): stratified shapes at 5% of the grid by default and the per-config ridge model;
  // loom-bench's targets: greedy anchors and the macro tables only.
  const bool per_config = target_impl(s.family) == "triton";
  f.sampled = per_config ? select_stratified(f.pool, args.has("--sample-fraction") ? opt.fraction : 0.05)
                         : select_anchors(f.pool, opt);
  Progress fit("fitting " + s.gpu_key + " " + s.family + " tables");
  f.tables = build_tables(f.pool, f.sampled, default_config(s.family), [&](size_t d, size_t t) { fit.update(d, t); });
  // The Triton GEMM: lambda and one optional left-out feature by 4-fold CV over the sampled shapes only (moe-triton
  // keeps lambda 0.03 and every feature, chosen on its prototype split; models/tune/README.md) and fits every
  // coefficient >= 0, which gemm-triton's CV may also choose: each term is a cost, and a negative one let a config
  // look nearly free far from its samples (an H100 fp8 16x256x64 predicted at -40 us for 2,048 tokens, measured 197).
  ConfigParams cp{lambda, -1, 1e9, BytesFeature::weights, per_config && base_family(s.family) == "moe"};
  if (per_config && base_family(s.family) == "gemm" && !args.has("--lambda"))
    cp = choose_config_params(f.pool, f.sampled, {0.003, 0.01, 0.03, 0.1, 0.3}, {-1, 2, 4, 5}, {1e9, 0.1, 0.05, 0.02},
                              {BytesFeature::weights, BytesFeature::operands, BytesFeature::tiles}, {false, true},
                              {0.0, double(f.pool.sms / 4), double(f.pool.sms / 2)}, {false, true});
  if (per_config)
    f.tables.config_model =
        fit_config_model(f.pool, f.sampled, cp.lambda, cp.dropped_feature, cp.keep_tolerance, cp.bytes, cp.nonneg,
                         cp.work_floor_ctas, cp.macro_prior);
  fit.finish(std::to_string(f.tables.macros.size()) + " macro configs from " + std::to_string(f.tables.sampled_shapes) +
             " sampled shapes");
  return f;
}

int run_plan(const Args& args) {
  Setup s = setup(args, true);
  std::vector<TuneConfig> known;
  try {
    known = load_tables(tables_file(args, s), s.gpu_key, s.family).configs;  // measured registers, when tables exist
  } catch (const InputError&) {
    // No tables yet: occupancy from 128 registers per thread (stated in the plan header). Tables asked for by name
    // (--tables FILE) that cannot be used are an error, not a silent fallback.
    if (args.has("--tables")) throw;
  }
  PlanStats st;
  const auto lines = make_plan(s.family, bench_configs(s.family, s.gpu, known), s.gpu.sms, &st);
  std::string text = "# loom tune --plan --gpu " + s.gpu_key + " --family " + s.family + ": " +
                     std::to_string(st.points) + " (shape, config) points on " + std::to_string(st.shapes) +
                     " shapes, " + std::to_string(st.macro_buckets) + " (macro, wave bucket) cells" +
                     (known.empty() ? "; registers assumed 128/thread" : "; registers from the committed tables") +
                     "\n# run: loom-bench --plan FILE\n";
  for (const auto& l : lines) text += l + "\n";
  if (args.has("--out") && !is_stdout_path(args.get("--out"))) {
    write_file(args.get("--out"), text);
    std::printf("%zu plan points (%zu shapes) written to %s\n", st.points, st.shapes, args.get("--out").c_str());
  } else {
    emit(text);
  }
  return 0;
}

int run_fit(const Args& args) {
  Setup s = setup(args, true);
  Fitted f = fit_from_traces(args, s);
  const std::string out = args.require("--out");  // cmd_tune refused --fit without it
  save_tables(f.tables, out);
  emit(fit_summary_text(f.tables, f.pool.incomplete_shapes) + "tables written to " + out + "\n");
  return 0;
}

/// Out-of-sample check: the fit's pool (sampled shapes train, the rest are held out as usual) plus every shape of a
/// separately measured exhaustive grid (--heldout-traces, e.g. loom-bench --families tune --tune-seed 7), all held
/// out. Fresh shapes that happen to be in the pool already are skipped. --heldout-only: the pool's own held-out shapes
/// are left out, so only the separate grid is scored (a blind test of a method frozen before it was measured).
/// read_fresh_heldout reads the grid and checks it against the pool (before the fit); use_fresh_heldout merges it.
Pool read_fresh_heldout(const Args& args, const Setup& s, const Pool& pool, std::vector<Corpus>& corpora) {
  const std::string dir = args.get("--heldout-traces");
  corpora = read_corpus_dir(dir);
  Pool fresh = load_pool(corpora, s.gpu, s.gpu_key, s.family, "--heldout-traces " + dir);
  // A grid measured on another SM count (a green-context partition) times other kernels' waves: scored against the
  // pool's tables it was silently taken as the full chip's (round 16).
  if (fresh.sms != pool.sms)
    throw InputError(dir, "held-out grid was measured at #sms=" + std::to_string(fresh.sms) +
                              ", the fit's pool at #sms=" + std::to_string(pool.sms) +
                              "; measure it on the same chip (or partition)");
  if (fresh.configs.size() != pool.configs.size())
    throw InputError(dir, "held-out grid has " + std::to_string(fresh.configs.size()) + " configs, the fit's pool " +
                              std::to_string(pool.configs.size()) + config_outside(fresh, pool, corpora) +
                              "; measure it with the same loom-bench");
  // The same configs in another order (a sweep's order follows its compile workers) are put in the pool's order.
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < fresh.configs.size(); ++i) at[fresh.configs[i].name] = i;
  std::vector<size_t> from(pool.configs.size());
  for (size_t i = 0; i < pool.configs.size(); ++i) {
    const auto it = at.find(pool.configs[i].name);
    if (it == at.end())
      throw InputError(dir, "held-out grid lacks the pool's config " + pool.configs[i].name +
                                "; measure it with the same config space");
    from[i] = it->second;
  }
  for (auto& row : fresh.us) {
    std::vector<double> ordered(from.size());
    for (size_t i = 0; i < from.size(); ++i) ordered[i] = row[from[i]];
    row = std::move(ordered);
  }
  // Without --heldout-only such a grid added nothing and the pool's own score came back as if it had (round 16).
  const std::set<std::string> seen(pool.keys.begin(), pool.keys.end());
  if (std::all_of(fresh.keys.begin(), fresh.keys.end(), [&](const std::string& k) { return seen.count(k) > 0; }))
    throw InputError(dir, "no complete shape of the held-out grid is new to the fit's pool (" +
                              std::to_string(fresh.shapes.size()) + " complete, " +
                              std::to_string(fresh.incomplete_shapes) + " missing a config); nothing to score");
  check_heldout_corpora(corpora, s.gpu_key, s.family, pool.sms);
  return fresh;
}

void use_fresh_heldout(Fitted& f, Pool fresh, const Args& args) {
  Pool merged = f.pool;
  merged.shapes.clear(), merged.keys.clear(), merged.us.clear();
  std::vector<bool> sampled;
  std::set<std::string> seen(f.pool.keys.begin(), f.pool.keys.end());
  const bool only_fresh = args.has("--heldout-only");
  for (size_t i = 0; i < f.pool.shapes.size(); ++i)
    if (f.sampled[i] || !only_fresh) {
      merged.shapes.push_back(f.pool.shapes[i]), merged.keys.push_back(f.pool.keys[i]);
      merged.us.push_back(f.pool.us[i]), sampled.push_back(f.sampled[i]);
    }
  for (size_t i = 0; i < fresh.shapes.size(); ++i)
    if (!seen.count(fresh.keys[i]))
      merged.shapes.push_back(fresh.shapes[i]), merged.keys.push_back(fresh.keys[i]), merged.us.push_back(fresh.us[i]),
          sampled.push_back(false);
  merged.incomplete_shapes = fresh.incomplete_shapes;
  f.pool = std::move(merged);
  f.sampled = std::move(sampled);
}

int run_validate(const Args& args) {
  if (args.has("--per-shape")) {  // checked before the fit: a bad path costs no work
    refuse_stdout_output("--per-shape", args.get("--per-shape"), "would mix the CSV with the report; give a file");
    check_output_file(args.get("--per-shape"));
  }
  Setup s = setup(args, true);
  std::optional<Pool> fresh;  // read and checked before the fit
  std::vector<Corpus> fresh_corpora;  // its folder's corpora: the engines' default configs measured beside it
  Fitted f = fit_from_traces(args, s, [&](const Pool& pool) {
    if (args.has("--heldout-traces")) fresh = read_fresh_heldout(args, s, pool, fresh_corpora);
  });
  if (fresh) use_fresh_heldout(f, std::move(*fresh), args);
  ValidateOptions opt;
  opt.time_decisions = !args.has("--no-timing");
  std::map<std::string, double> reference;
  if (s.family == "gemm") reference = cublas_latencies(f.corpora, s.gpu_key);
  if (base_family(s.family) == "gemm" && target_impl(s.family) == "triton") {
    reference = sweep_cublas_latencies(f.corpora, s.gpu_key, s.family);
    opt.reference = "cuBLAS (F.linear beside the sweep)";
  } else if (target_impl(s.family) == "triton") {
    // The defaults measured beside the pool (traces/tune) and beside a held-out grid (its own folder), each shape once.
    reference = engine_default_latencies(f.corpora, s.gpu_key, s.family, f.pool.sms);
    for (const auto& [key, us] : engine_default_latencies(fresh_corpora, s.gpu_key, s.family, f.pool.sms))
      reference.emplace(key, us);
    opt.reference = "engine default (vLLM get_default_config: 16x32x64 G1 if M <= E, else 64x64x32 G8)";
  }
  Progress p("validating on held-out shapes");
  const auto report = validate_tables(f.pool, f.sampled, f.tables, reference, opt);
  p.finish(std::to_string(report.heldout_shapes) + " held-out shapes");
  if (args.has("--per-shape")) write_file(args.get("--per-shape"), per_shape_csv(report));
  if (args.format("`loom tune --validate`", {"table", "json"}) == "json") {
    emit(validation_json(report).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return 0;
  }
  std::string text = validation_text(report);
  if (const ConfigModel& cm = f.tables.config_model; !cm.coef.empty()) {
    char b[64];
    std::snprintf(b, sizeof b, "%g", cm.lambda);
    int dropped = -1, pruned = 0;  // a feature left out of the fit: its coefficient is 0 for every config
    for (const ConfigCoef& c : cm.coef) pruned += c[3] == kPrunedIntercept;
    // Row repeats are 0 for moe shapes (no column to leave out there).
    for (int j = 0; j < (base_family(s.family) == "gemm" ? kConfigFeatures : kConfigFeatures - 1); ++j)
      if (std::all_of(cm.coef.begin(), cm.coef.end(),
                      [&](const ConfigCoef& c) { return c[size_t(j)] == 0.0 || c[3] == kPrunedIntercept; }))
        dropped = j;
    char fb[32];
    std::snprintf(fb, sizeof fb, "%g", cm.work_floor_ctas);
    text += "per-config model: lambda " + std::string(b) + (cm.macro_prior ? " towards its macro's pooled fit" : "") +
            (cm.nonneg ? ", coefficients >= 0" : "") +
            (cm.work_floor_ctas > 0 ? ", work floor " + std::string(fb) + " CTAs" : "") + ", bytes feature " +
            bytes_feature_name(cm.bytes) + ", features " +
            (dropped >= 0 ? std::string("all but ") + kConfigFeatureNames[dropped] : std::string("all")) +
            (pruned ? ", " + std::to_string(cm.coef.size() - size_t(pruned)) + " of " +
                          std::to_string(cm.coef.size()) + " configs choosable (the others never near-best on a sample)"
                    : std::string(", every config choosable")) +
            (base_family(s.family) == "gemm" && !args.has("--lambda") ? " (4-fold CV on the sampled shapes)\n"
                                                                       : "\n");
  }
  emit(text);
  return 0;
}

int run_export(const Args& args) {
  Setup s = setup(args, true);
  const TuneTables t = load_tables(tables_file(args, s), s.gpu_key, s.family);
  emit("wrote " + export_tables(t, args.require("--out")) + "\n");
  return 0;
}

int run_decide(const Args& args) {
  Setup s = setup(args, false);
  KernelSpec spec = parse_kernel_spec(args.require("--kernel"));
  const TuneShape shape = parse_tune_request(spec, s.gpu);
  s.family = target_of(shape);
  const TuneTables t = load_tables(tables_file(args, s), s.gpu_key, s.family);
  const CompiledTables ct = compile_tables(t, parse_extrapolation(args.get("--extrapolate", "ratio"), "--extrapolate"));
  const Choice c = decide(ct, shape);
  int reps = 1001;
  reps = int(args.integer("--reps", 0, 100000, reps));
  double median_ns = 0;
  if (reps > 0) {  // median over `reps` batches of 1000 decisions, on this one core
    std::vector<double> ns;
    volatile int sink = 0;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 1000; ++i) sink = sink + decide(ct, shape).config;
      ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 1000);
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    median_ns = ns[ns.size() / 2];
  }
  emit(
      args.format("`loom tune --kernel`", {"table", "json"}) == "json"
          ? decision_json(ct, shape, c, median_ns, reps).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n"
          : decision_text(ct, shape, c, median_ns, reps));
  return 0;
}

}  // namespace

int cmd_tune(const std::vector<std::string>& argv) {
  Args args(argv,
            {"--gpu", "--family", "--kernel", "--traces", "--out", "--tables", "--format", "--sample-fraction",
             "--extrapolate", "--reps", "--anchors-per-bucket", "--heldout-traces", "--model", "--tp", "--dtype",
             "--export-moe-configs", "--lambda", "--partial-shapes", "--per-shape"},
            {"--plan", "--fit", "--validate", "--export", "--no-timing", "--heldout-only"});
  args.no_positionals("tune");
  const int modes = args.has("--plan") + args.has("--fit") + args.has("--validate") + args.has("--export") +
                    args.has("--export-moe-configs");
  if (modes > 1)
    throw InputError("tune", "give at most one of --plan, --fit, --validate, --export, --export-moe-configs");
  if (args.has("--export-moe-configs")) {
    args.only("`loom tune --export-moe-configs`", {"--export-moe-configs", "--gpu", "--model", "--tp", "--dtype",
                                                    "--tables"});
    refuse_stdout_output("--export-moe-configs", args.get("--export-moe-configs"),
                         "cannot hold a folder of config files; give a folder");
    return run_export_moe_configs(args);
  }
  for (const char* f : {"--model", "--tp", "--dtype"})
    if (args.has(f)) throw InputError(f, "only with --export-moe-configs DIR");
  // Each mode reads its own flags; one given to the wrong mode (e.g. --sample-fraction with --plan) is refused.
  if (args.has("--plan"))
    args.only("`loom tune --plan`", {"--plan", "--gpu", "--family", "--tables", "--out", "--format"});
  if (args.has("--fit"))
    args.only("`loom tune --fit`", {"--fit", "--gpu", "--family", "--traces", "--sample-fraction",
                                    "--anchors-per-bucket", "--lambda", "--format", "--out", "--partial-shapes"});
  if (args.has("--validate"))
    args.only("`loom tune --validate`", {"--validate", "--gpu", "--family", "--traces", "--sample-fraction",
                                         "--anchors-per-bucket", "--lambda", "--format", "--heldout-traces",
                                         "--no-timing", "--partial-shapes", "--heldout-only", "--per-shape"});
  if (args.has("--heldout-only") && !args.has("--heldout-traces"))
    throw InputError("--heldout-only", "scores only the grid of --heldout-traces DIR; give that folder");
  if (args.has("--export")) args.only("`loom tune --export`", {"--export", "--gpu", "--family", "--tables", "--out",
                                                               "--format"});
  if (modes == 0) args.only("`loom tune --kernel`", {"--kernel", "--gpu", "--tables", "--extrapolate", "--reps",
                                                      "--format"});
  // --plan writes loom-bench's plan file and --fit/--export write tables: each has one text output.
  if (args.has("--plan")) args.format("`loom tune --plan` (loom-bench's plan file, one kernel a line)", {"table"});
  if (args.has("--fit") || args.has("--export")) args.format("`loom tune --fit/--export`", {"table"});
  // `--out -` is stdout where the mode writes one file and prints nothing else (--plan); --fit prints its summary
  // there, and --export writes a header and its JSON.
  if (args.has("--fit")) {
    // --fit writes new tables: without --out it wrote over the committed ones (models/tune/<gpu>-<family>.json)
    // without a word (round 14). As `train`, it needs --out; regenerating a committed table names that path.
    if (!args.has("--out"))
      throw InputError("--out", "required with --fit (it no longer writes over the committed tables unasked); give "
                                "--out FILE, or --out models/tune/" + args.get("--gpu", "GPU").substr(0, 40) + "-" +
                                args.get("--family", "FAMILY").substr(0, 40) +
                                ".json to regenerate the committed table");
    refuse_stdout_output("--out", args.get("--out"), "also receives the fit summary; give a file");
    check_output_file(args.get("--out"));  // before the fit: /dev/full or a missing folder cost seconds of work
  }
  if (args.has("--export"))
    refuse_stdout_output("--out", args.get("--out"), "cannot hold the exported files; give a folder");
  // cuBLASLt's algorithm configs have their own model and sweep format (cmd_tune_cublaslt.cpp).
  if (args.get("--family") == "gemm-cublaslt") {
    if (args.has("--per-shape"))
      throw InputError("--per-shape", "not with --family gemm-cublaslt (its validation has its own report)");
    return run_tune_cublaslt(args);
  }
  if (args.has("--partial-shapes")) throw InputError("--partial-shapes", "only with --family gemm-cublaslt");
  if (args.has("--plan")) return run_plan(args);
  if (args.has("--fit")) return run_fit(args);
  if (args.has("--validate")) return run_validate(args);
  if (args.has("--export")) return run_export(args);
  if (!args.has("--kernel"))
    throw InputError("tune",
                     "missing --kernel SPEC (or one of --plan, --fit, --validate, --export); see `loom --help`");
  return run_decide(args);
}

}  // namespace loom::cli
