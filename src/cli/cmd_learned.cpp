// `loom train` and `loom validate`: the learned efficiency model from the trace corpus, and the accuracy report
// (and CI gate) on three splits, with roofline and analytical baselines side by side.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/commands_collectives.h"
#include "cli/commands_validate_e2e.h"
#include "cli/commands_validate_serving.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "kernels/shape.h"
#include "learned/corpus.h"
#include "learned/predictor.h"
#include "learned/transfer.h"
#include "learned/uncertainty.h"
#include "learned/validate.h"

namespace loom::cli {

namespace {

struct Loaded {
  MeasurementSet measurements;
  Dataset dataset;
};

Loaded load(const std::string& traces_dir) {
  Loaded l;
  Progress p("reading corpus");
  l.measurements = load_measurements(traces_dir);
  p.finish(std::to_string(l.measurements.rows.size()) + " kernels from " + std::to_string(l.measurements.files.size()) +
           " files");
  for (const auto& [why, n] : l.measurements.skipped) progress_note("  skipped " + std::to_string(n) + ": " + why);
  Catalog catalog = Catalog::load();
  Progress f("analysing kernels");
  l.dataset = build_dataset(l.measurements.rows, catalog, [&](size_t d, size_t t) { f.update(d, t); });
  int skipped = 0;
  for (const auto& [why, n] : l.dataset.skipped) skipped += n;
  f.finish(std::to_string(l.dataset.samples.size()) + " usable, " + std::to_string(skipped) + " skipped");
  // Nothing usable: one line with the commonest reason (the skip lines printed before the refusal made it several
  // lines of stderr; probe round 10).
  if (l.dataset.samples.empty()) {
    std::string why_most;
    int most = 0, all_skipped = skipped;
    for (const auto& [why, n] : l.measurements.skipped) all_skipped += n;
    for (const auto* reasons : {&l.measurements.skipped, &l.dataset.skipped})
      for (const auto& [why, n] : *reasons)
        if (n > most) most = n, why_most = why;
    throw InputError(traces_dir, "no usable measured kernels" +
                                     (most ? " (" + std::to_string(all_skipped) + " skipped; " + std::to_string(most) +
                                                 ": " + why_most.substr(0, 200) + ")"
                                           : std::string()) +
                                     "; see traces/README.md");
  }
  for (const auto& [why, n] : l.dataset.skipped) progress_note("  skipped " + std::to_string(n) + ": " + why);
  return l;
}

constexpr int kMaxDepth = 16;

// The committed model's depths: GEMMs (cuBLAS's kernel choice by shape, dtype and alignment over ~300k rows) fit
// deeper trees; docs/gemm-heldout.md ("8-level GEMM trees", then "10-level GEMM trees") has the comparisons,
// chosen by the shapes split (cross-validation over the training corpus), not by the held-out sets.
std::map<std::string, int> default_depths() { return {{"gemm", 10}}; }

// `--max-depth gemm=8,moe=7`: trees per family (an unlisted family keeps the default of 6).
std::map<std::string, int> parse_depths(const std::string& v) {
  const std::string form = "FAMILY=DEPTH with a kernel family (e.g. gemm=8)";
  std::map<std::string, int> out;
  for_each_key_value(v, "--max-depth", form, [&](const KeyValue& kv) {
    const auto& names = family_names();
    if (std::find(names.begin(), names.end(), kv.key) == names.end())
      throw InputError("--max-depth", "'" + kv.item + "' is not " + form);
    int depth = 0;
    const std::string& d = kv.value;
    auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), depth);
    if (d.empty() || ec != std::errc() || ptr != d.data() + d.size() || depth < 1 || depth > kMaxDepth)
      throw InputError("--max-depth", "'" + kv.item + "': the depth must be an integer from 1 to " +
                                          std::to_string(kMaxDepth));
    out.emplace(kv.key, depth);  // a repeated family is refused by for_each_key_value
  });
  return out;
}

TrainOptions options_from(const Args& args) {
  TrainOptions opt;
  opt.per_family = !args.has("--global");
  opt.params.rounds = static_cast<int>(args.integer("--rounds", 1, 100000, opt.params.rounds));
  opt.params.seed = static_cast<uint64_t>(args.integer("--seed", 0, int64_t{1} << 62, int64_t(opt.params.seed)));
  opt.depth_by_family = args.has("--max-depth") ? parse_depths(args.get("--max-depth")) : default_depths();
  return opt;
}

// The depths a model was trained with, from its manifest (absent: every family at 6, as models before them).
std::map<std::string, int> depths_of(const nlohmann::json& options, const std::string& manifest) {
  std::map<std::string, int> out;
  if (!options.contains("max_depth_by_family")) return out;
  const auto& m = options["max_depth_by_family"];
  const auto& names = family_names();
  if (!m.is_object())
    throw InputError(manifest, "options.max_depth_by_family is not an object; retrain with `loom train`");
  for (const auto& [family, d] : m.items())
    if (std::find(names.begin(), names.end(), family) == names.end() || !d.is_number_integer() ||
        d.get<int64_t>() < 1 || d.get<int64_t>() > kMaxDepth)
      throw InputError(manifest, "options.max_depth_by_family." + family +
                                     " is not a kernel family with a depth of 1 to " + std::to_string(kMaxDepth) +
                                     "; retrain with `loom train`");
    else
      out[family] = d.get<int>();
  return out;
}

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"n", s.n}, {"mape", s.mape}, {"median_ape", s.median_ape}, {"p90_ape", s.p90_ape}, {"max_ape", s.max_ape}};
}

nlohmann::json report_json(const ValidationReport& r, bool with_points) {
  nlohmann::json j;
  for (const auto& s : r.splits)
    j["splits"].push_back({{"split", s.split},
                           {"description", s.description},
                           {"model_fingerprint", s.model_fingerprint},
                           {"roofline", stats_json(s.roofline)},
                           {"analytical", stats_json(s.analytical)},
                           {"learned", stats_json(s.learned)}});
  for (const auto& g : r.groups)
    j["groups"].push_back({{"split", g.split},
                           {"family", g.family},
                           {"gpu", g.gpu},
                           {"sms", g.sms},
                           {"roofline", stats_json(g.roofline)},
                           {"analytical", stats_json(g.analytical)},
                           {"learned", stats_json(g.learned)}});
  for (const auto& w : r.worst)
    j["worst"].push_back({{"spec", w.spec}, {"gpu", w.gpu}, {"sms", w.sms}, {"measured_us", w.measured_us},
                          {"predicted_us", w.predicted_us}, {"ape", w.ape}});
  // Per-kernel points (shapes and held-out-GPU splits) for `loom report --validation`'s scatter and roofline.
  if (with_points) {
    j["points"] = nlohmann::json::array();
    for (const auto& p : r.points)
      j["points"].push_back({{"split", p.split}, {"spec", p.spec}, {"family", p.family}, {"gpu", p.gpu},
                             {"sms", p.sms}, {"measured_us", p.measured_us},
                             {"predicted_us",
                              {{"learned", p.learned_us},
                               {"analytical", p.analytical_us},
                               {"roofline", p.roofline_us}}}});
  }
  return j;
}

std::string report_text(const ValidationReport& r) {
  Table splits{
      {"split", "kernels", "roofline MAPE", "analytical MAPE", "learned MAPE", "learned median", "learned p90"},
      {},
      {false, true, true, true, true, true, true}};
  for (const auto& s : r.splits)
    splits.add({s.split, std::to_string(s.learned.n), fmt(s.roofline.mape, 3) + "%", fmt(s.analytical.mape, 3) + "%",
                fmt(s.learned.mape, 3) + "%", fmt(s.learned.median_ape, 3) + "%", fmt(s.learned.p90_ape, 3) + "%"});
  Table groups{{"split", "family", "gpu", "sms", "n", "roofline", "analytical", "learned MAPE", "median", "p90", "max"},
               {},
               {false, false, false, true, true, true, true, true, true, true, true}};
  for (const auto& g : r.groups)
    groups.add({g.split, g.family, g.gpu, std::to_string(g.sms), std::to_string(g.learned.n),
                fmt(g.roofline.mape, 3) + "%", fmt(g.analytical.mape, 3) + "%", fmt(g.learned.mape, 3) + "%",
                fmt(g.learned.median_ape, 3) + "%", fmt(g.learned.p90_ape, 3) + "%", fmt(g.learned.max_ape, 3) + "%"});
  Table worst{
      {"gpu", "sms", "measured us", "predicted us", "error", "kernel"}, {}, {false, true, true, true, true, false}};
  for (size_t i = 0; i < r.worst.size() && i < 10; ++i) {
    const auto& w = r.worst[i];
    worst.add({w.gpu, std::to_string(w.sms), fmt(w.measured_us), fmt(w.predicted_us), fmt(w.ape, 3) + "%", w.spec});
  }
  return "Accuracy by split (MAPE = mean absolute percentage error of kernel latency)\n\n" + splits.text() +
         "\nBy family x GPU x partition\n\n" + groups.text() + "\nWorst learned predictions\n\n" + worst.text();
}

// Per family, a family's forest needs min_family_samples training kernels (half for a family@impl forest); a corpus
// where none reaches that trained no forest at all and wrote an analytical-only model with exit 0 (probe round 9,
// left; refused in round 10). --global (one forest over every family, no minimum) is the way to train on it.
void require_a_family_forest(const Dataset& ds, const std::vector<size_t>& rows, const TrainOptions& opt,
                             const std::string& traces) {
  if (!opt.per_family) return;
  std::map<std::string, size_t> n;
  for (size_t r : rows) n[model_key(ds.samples[r].m.family, impl_class(ds.samples[r].m.impl))] += 1;
  for (const auto& [key, count] : n)
    if (count >= (key.find('@') != std::string::npos ? opt.min_family_samples / 2 : opt.min_family_samples)) return;
  std::vector<std::pair<size_t, std::string>> by_size;
  for (const auto& [key, count] : n) by_size.push_back({count, key});
  std::sort(by_size.rbegin(), by_size.rend());
  std::string list;
  for (size_t i = 0; i < by_size.size() && i < 6; ++i)
    list += (list.empty() ? "" : ", ") + by_size[i].second + " " + std::to_string(by_size[i].first);
  if (by_size.size() > 6) list += ", ... (" + std::to_string(by_size.size()) + " in all)";
  throw InputError(traces, "no kernel family has the " + std::to_string(opt.min_family_samples) +
                               " training kernels a family's forest needs (" + list +
                               "): the model would be analytical only; give a larger corpus, or --global for one "
                               "forest over every family");
}

}  // namespace

int cmd_train(const Argv& argv) {
  Args args(argv, {"--traces", "--out", "--seed", "--rounds", "--max-depth"}, {"--global", "--force"});
  args.no_positionals("train");
  const std::string traces = args.get("--traces", data_dir() + "/traces");
  // The committed model is only rewritten on purpose: without --out, --force is required.
  if (!args.has("--out") && !args.has("--force"))
    throw InputError("--out", "train writes a model directory: give --out DIR, or --force to overwrite the committed "
                              "model (" + default_model_dir() + ")");
  const std::string out = args.get("--out", default_model_dir());
  refuse_stdout_output("--out", out, "cannot hold a model folder; give a folder");
  refuse_control_bytes_in_path(out);
  TrainOptions opt = options_from(args);
  // A bad --out is refused now, not after minutes of training (`--out /dev/null` trained, then failed to save).
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec))
    throw InputError("--out", "'" + out + "' exists and is not a directory; give a folder for the model files");
  Loaded l = load(traces);
  std::vector<Split> splits = make_splits(l.dataset, opt.params.seed);
  // A corpus of a few shapes leaves one side of the shapes split empty: the model was trained on nothing (or tested
  // on nothing) and written with empty accuracy tables, exit 0. Refused before anything is written.
  if (splits.empty() || splits[0].train.empty() || splits[0].test.empty())
    throw InputError(traces, std::to_string(l.dataset.samples.size()) +
                                 " usable kernels are too few to train on 4 in 5 "
                                 "shapes and test on the rest; give a larger corpus (see traces/README.md)");
  require_a_family_forest(l.dataset, splits[0].train, opt, traces);
  // Created only now: a refused corpus left an empty --out folder behind (probe round 9).
  std::filesystem::create_directories(out);
  Progress p("training (shapes split)");
  EfficiencyModel model = EfficiencyModel::train(
      l.dataset, splits[0].train, opt, [&](size_t d, size_t t, const std::string& what) { p.update(d, t, what); });
  p.finish("fingerprint " + model.fingerprint());
  model.save(out);

  // Validate every split, and the other model layout (global vs per family) on the shapes split for comparison.
  Progress v("validating");
  ValidationReport rep = validate(l.dataset, splits, opt, &model, [&](const std::string& s) { v.update(0, 0, s); });
  TrainOptions other = opt;
  other.per_family = !opt.per_family;
  ValidationReport alt = validate(l.dataset, {splits[0]}, other);
  v.finish();

  nlohmann::json manifest;
  manifest["schema"] = "loom-efficiency-manifest 1";
  manifest["corpus"] = {{"dir", traces}, {"hash", l.measurements.corpus_hash}, {"files", l.measurements.files},
                        {"kernels", l.dataset.samples.size()}};
  manifest["features"] = l.dataset.feature_names;
  manifest["options"] = {{"per_family", opt.per_family}, {"seed", opt.params.seed}, {"rounds", opt.params.rounds},
                         {"max_depth", opt.params.max_depth}, {"max_depth_by_family", opt.depth_by_family},
                         {"eta", opt.params.eta},
                         {"achievable_quantile", opt.achievable_quantile}};
  manifest["split"] = splits[0].description;
  manifest["fingerprint"] = model.fingerprint();
  manifest["validation"] = report_json(rep, false);
  manifest["transfer_weights"] = rep.transfer_weights;
  // The layout comparison needs a shapes split with test rows (a corpus of public data sets alone has none).
  const bool have_shapes = !rep.splits.empty() && rep.splits[0].split == "shapes" && !alt.splits.empty();
  if (have_shapes)
    manifest["layout_comparison"] = {
        {"chosen", opt.per_family ? "per_family" : "global"},
        {opt.per_family ? "per_family_shapes_mape" : "global_shapes_mape", rep.splits[0].learned.mape},
        {opt.per_family ? "global_shapes_mape" : "per_family_shapes_mape", alt.splits[0].learned.mape}};
  // Regression thresholds for the CI gate: today's learned MAPE per split, plus a margin for run-to-run noise.
  for (const auto& s : rep.splits) manifest["thresholds"][s.split] = s.learned.mape * 1.10 + 0.5;
  write_file((std::filesystem::path(out) / "manifest.json").string(), manifest.dump(2) + "\n");
  // What the corpus measured per family, and the held-out error bands: `predict --interval` reads it.
  Coverage::from(l.dataset, rep).save(out);
  // How far the learned correction is trusted on an architecture a family was never measured on (predictions read it).
  TransferWeights transfer;
  transfer.weight = rep.transfer_weights;
  for (const auto& s : l.dataset.samples) transfer.architectures[s.m.family].insert(s.architecture);
  transfer.save(out);
  emit(report_text(rep));
  if (have_shapes)
    emit("\nlayout: per-family MAPE (shapes) " +
         fmt(opt.per_family ? rep.splits[0].learned.mape : alt.splits[0].learned.mape, 3) + "%, global " +
         fmt(opt.per_family ? alt.splits[0].learned.mape : rep.splits[0].learned.mape, 3) + "%\n");
  emit("model written to " + out + "\n");
  return 0;
}

int cmd_validate(const Argv& argv) {
  if (std::find(argv.begin(), argv.end(), "--e2e") != argv.end()) return cmd_validate_e2e(argv);
  if (std::find(argv.begin(), argv.end(), "--serving") != argv.end()) return cmd_validate_serving(argv);
  if (std::find(argv.begin(), argv.end(), "--collectives") != argv.end()) return cmd_validate_collectives(argv);
  Args args(argv, {"--traces", "--model-dir", "--max-mape", "--format", "--out"}, {"--check", "--leave-one-gpu-out"});
  if (args.has("--out")) {
    refuse_stdout_output("--out", args.get("--out"),
                         "also receives the validation table (use --format json for its JSON)");
    check_output_file(args.get("--out"));
  }
  args.no_positionals("validate");
  const std::optional<double> max_mape = args.number("--max-mape");  // checked before minutes of retraining
  if (max_mape && *max_mape <= 0) throw InputError("--max-mape", "must be a percentage > 0");
  const std::string traces = args.get("--traces", data_dir() + "/traces");
  const std::string dir = args.get("--model-dir", default_model_dir());
  const std::string format = args.format("`loom validate`", {"table", "json"});
  EfficiencyModel model = EfficiencyModel::load(dir);
  nlohmann::json manifest;
  {
    manifest = nlohmann::json::parse(read_data_file(dir + "/manifest.json", "missing; retrain with `loom train`"),
                                     nullptr, false);
    if (manifest.is_discarded()) throw InputError(dir + "/manifest.json", "malformed JSON; retrain with `loom train`");
  }
  TrainOptions opt;
  opt.per_family = manifest["options"].value("per_family", true);
  opt.params.seed = manifest["options"].value("seed", 42ull);
  opt.params.rounds = manifest["options"].value("rounds", opt.params.rounds);
  opt.depth_by_family = depths_of(manifest["options"], dir + "/manifest.json");
  Loaded l = load(traces);
  if (!l.dataset.samples.empty() && model.feature_names() != l.dataset.feature_names)
    throw InputError(dir + "/model.json", "the model was trained on other features than loom computes now (" +
                                              std::to_string(model.feature_names().size()) + " vs " +
                                              std::to_string(l.dataset.feature_names.size()) +
                                              "); retrain with `loom train` before validating it");
  // --leave-one-gpu-out adds one split per GPU (one training each: minutes per GPU), so it is opt-in.
  std::vector<Split> splits = make_splits(l.dataset, opt.params.seed, "h200", args.has("--leave-one-gpu-out"));
  int rc = 0;
  std::vector<std::string> failures;
  if (args.has("--check")) {
    if (manifest["corpus"].value("hash", "") != l.measurements.corpus_hash)
      failures.push_back("corpus hash " + l.measurements.corpus_hash + " != manifest's " +
                         manifest["corpus"].value("hash", "") + " (corpus changed: retrain with `loom train`)");
    Progress p("retraining to check the committed model");
    EfficiencyModel again = EfficiencyModel::train(
        l.dataset, splits[0].train, opt, [&](size_t d, size_t t, const std::string& w) { p.update(d, t, w); });
    p.finish();
    if (again.fingerprint() == model.fingerprint()) {
      std::fprintf(stderr, "loom: validate: retrained model is bit-identical to the committed one (%s)\n",
                   model.fingerprint().c_str());
    } else {
      // Another CPU or libm can change the last bits of a tree split; what matters is that the committed model
      // predicts what the corpus teaches. Compare predictions on every corpus kernel.
      double worst = 0;
      for (const auto& smp : l.dataset.samples) {
        const std::string key = model_key(smp.m.family, impl_class(smp.m.impl));
        auto a = model.predict_log_ratio(key, smp.x.data());
        auto b = again.predict_log_ratio(key, smp.x.data());
        if (a.has_value() != b.has_value()) worst = 1e9;
        else if (a) worst = std::max(worst, std::fabs(*a - *b));
      }
      std::fprintf(stderr, "loom: validate: retrained model differs in its bits (%s vs %s); largest prediction "
                   "difference %.2e in log latency\n", again.fingerprint().c_str(), model.fingerprint().c_str(), worst);
      if (worst > 1e-3)
        failures.push_back(
            "retrained model predicts up to " + fmt(100 * (std::exp(worst) - 1), 3) +
            "% differently from the committed one (model does not match the corpus: retrain with `loom train`)");
    }
  }
  Progress v("validating");
  ValidationReport rep = validate(l.dataset, splits, opt, &model, [&](const std::string& s) { v.update(0, 0, s); });
  v.finish();
  for (const auto& s : rep.splits) {
    if (args.has("--check") && manifest["thresholds"].contains(s.split) &&
        s.learned.mape > manifest["thresholds"][s.split].get<double>())
      failures.push_back("split " + s.split + ": learned MAPE " + fmt(s.learned.mape, 3) + "% > threshold " +
                         fmt(manifest["thresholds"][s.split].get<double>(), 3) + "%");
    if (max_mape && s.learned.mape > *max_mape)
      failures.push_back("split " + s.split + ": learned MAPE " + fmt(s.learned.mape, 3) + "% > --max-mape " +
                         fmt(*max_mape, 3));
  }
  nlohmann::json j = report_json(rep, true);
  j["corpus_hash"] = l.measurements.corpus_hash;
  j["model_fingerprint"] = model.fingerprint();
  j["failures"] = failures;
  j["schema"] = "loom.validate/1";
  if (args.has("--out"))
    write_file(args.get("--out"), j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (format == "json") emit(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  else emit(report_text(rep));
  for (const auto& f : failures) std::fprintf(stderr, "loom: validate: %s\n", f.c_str());
  if (!failures.empty()) rc = 1;
  return rc;
}

}  // namespace loom::cli
