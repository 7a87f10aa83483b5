// `loom whatif`: one serving request on many GPUs (ranked by tokens/s) plus a resource-sensitivity table.
#include <algorithm>
#include <thread>
#include <cmath>
#include <sstream>

#include "cli/commands_e2e.h"
#include "cli/serving_args.h"
#include "cli/whatif_capacity.h"
#include "cli/common.h"
#include "cli/interval.h"
#include "cli/table.h"
#include "core/error.h"
#include "e2e/op_graph.h"
#include "e2e/whatif.h"

namespace loom::cli {

namespace {

// A plain decimal integer as every integer flag takes it ("8.0", "1e3", "+8" were read as numbers); the sizes
// beyond loom's limits are refused with the limit by the caller.
int64_t positive(const Args& args, const std::string& flag) {
  return args.integer(flag, 1, int64_t{1} << 62, 0);
}

/// A comma list of `flag`; an empty item ("1,,2", "h200,") is refused, not skipped.
std::vector<std::string> split(const std::string& s, char sep, const char* flag) {
  std::vector<std::string> v;
  if (s.empty()) return v;
  std::stringstream ss(s + sep);  // the sentinel makes a trailing empty item visible to getline
  for (std::string x; std::getline(ss, x, sep);) {
    if (x.empty())
      throw InputError(flag, "'" + s.substr(0, 80) + "' has an empty item; give a comma list without gaps");
    v.push_back(x);
  }
  return v;
}

/// GPUs from --gpus; `--set GPU:key=value` overrides one GPU, `--set key=value` all of them.
std::vector<GpuSpec> gpus_from(const Catalog& catalog, const Args& args) {
  const std::string which = args.require("--gpus");
  return gpus_named(catalog, which == "all" ? catalog.names() : gpu_list(which, "--gpus"), args, "--gpus");
}

/// An explicit --tp degree the model cannot be split by (heads, KV heads, MLP width) is a bad flag on every GPU.
void check_tp_choices(const ModelConfig& model, const std::vector<int>& tps) {
  for (int tp : tps) shard(model, tp);  // throws InputError("--tp", "... is not divisible by tp=N; ...")
}

/// A signed percentage; changes below 0.005% print as 0.00%.
std::string pct(double v) {
  if (std::abs(v) < 0.005) return "0.00%";
  std::string s = v > 0 ? "+" : "";
  s += fmt(v, 2);
  return s + "%";
}

std::string per_dollar(const std::optional<double>& v) { return v ? human(*v, "tok") : "-"; }

}  // namespace

int cmd_whatif(const std::vector<std::string>& argv) {
  std::vector<std::string> flags = {"--model", "--batch", "--input-len", "--gpus", "--tp", "--set", "--profile",
                                    "--format", "--kernel-model", "--pp", "--threads", "--clock"};
  flags.insert(flags.end(), kRequestFlags.begin(), kRequestFlags.end());  // --output-len among them
  Args args(argv, flags, {"--interval"});
  args.no_positionals("whatif");
  const bool capacity_mode = args.has("--rate") || args.has("--requests");
  if (!capacity_mode)
    for (const auto& f : kRequestFlags)
      if (f != "--output-len" && args.has(f))
        throw InputError(f, "is a capacity-planning flag; give --rate R or --requests FILE with it");
  const Catalog catalog = Catalog::load();
  const auto predictor = kernel_predictor(args);
  const ModelConfig model = load_model(args.require("--model"));
  const ServingProfile profile = load_profile(args.get("--profile", "vllm"));
  if (capacity_mode) return whatif_capacity(args, gpus_from(catalog, args), model, profile, predictor);
  if (args.has("--pp")) throw InputError("--pp", "applies to capacity planning (--rate / --requests) only");
  WhatIfRequest req;
  // --threads spreads the table's batch (analyses, forest walks), its GPUs' rows and the sensitivity's changes; the
  // table does not depend on it. Default: every core, at most 8 (on the 2-core CI-like host two threads take the
  // table from ~58 to ~56 ms median, 52 to 44 ms min; docs/speed-round14.md).
  const int64_t cores = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 8);
  req.threads = static_cast<int>(args.integer("--threads", 1, 256, cores));
  req.batch = args.has("--batch") ? positive(args, "--batch") : 1;
  args.require("--input-len");
  args.require("--output-len");
  req.input_len = positive(args, "--input-len");
  req.output_len = positive(args, "--output-len");
  for (const auto& t : split(args.get("--tp"), ',', "--tp")) {
    if (t.size() != 1 || t[0] < '1' || t[0] > '8')
      throw InputError("--tp", "'" + t + "' is not a tensor-parallel degree; use 1-8 or a list such as 1,2,4");
    if (std::find(req.tp_choices.begin(), req.tp_choices.end(), t[0] - '0') != req.tp_choices.end())
      throw InputError("--tp", "'" + t + "' is given twice; list each degree once");
    req.tp_choices.push_back(t[0] - '0');
  }
  // A step past loom's size limits (e2e's: 2^26 tokens, 2^30 KV positions) is refused before anything is sized.
  const double tokens = double(req.batch) * double(req.input_len);
  const double kv = double(req.batch) * (double(req.input_len) + double(req.output_len));
  if (tokens > double(int64_t{1} << 26) || kv > double(int64_t{1} << 30))
    throw InputError("--batch x --input-len",
                     "a prefill of " + fmt(tokens, 4) + " tokens over " + fmt(kv, 4) +
                         " KV positions is beyond loom's limits (2^26 tokens, 2^30 KV positions a "
                         "step); use smaller sizes");
  check_tp_choices(model, req.tp_choices);
  std::vector<std::string> warnings;
  for (const std::string& w : {position_warning(model, req.input_len + req.output_len),
                               sliding_window_warning(model, req.input_len + req.output_len)})
    if (!w.empty()) warnings.push_back(w);
  const std::vector<GpuSpec> gpus = gpus_from(catalog, args);
  const std::vector<WhatIfRow> rows = rank_gpus(gpus, model, profile, req, predictor);
  // Every GPU failed: the answer is an error, not a table of "cannot run" rows with exit 0.
  if (!rows.empty() && std::all_of(rows.begin(), rows.end(), [](const WhatIfRow& r) { return !r.error.empty(); }))
    throw InputError(rows.front().gpu + " tp " + std::to_string(rows.front().tp),
                     rows.front().error + (rows.size() > 1 ? " (and no other GPU / tp can run it)" : ""));
  // --interval: each row again at every kernel's lower / upper bound (cli/interval.h), with its GPU's notes.
  struct Band {
    double ttft_lo = 0, ttft_hi = 0, tpot_lo = 0, tpot_hi = 0;
    bool extrapolated = false;
    std::vector<std::string> notes;
  };
  std::vector<Band> bands;
  if (args.has("--interval")) {
    for (const auto& r : rows) {
      Band b;
      if (r.error.empty())
        for (const auto& g : gpus)
          if (g.name == r.gpu) {
            BandPredictors bp = band_predictors(args);
            const WhatIfRow lo = whatif_one(g, r.tp, model, profile, req, bp.lo);
            const WhatIfRow hi = whatif_one(g, r.tp, model, profile, req, bp.hi);
            b = {lo.ttft_us, hi.ttft_us, lo.tpot_us, hi.tpot_us, false, {bp.notes->begin(), bp.notes->end()}};
            for (const auto& n : b.notes) b.extrapolated |= n.rfind("extrapolated", 0) == 0;
          }
      bands.push_back(b);
    }
  }
  std::vector<SensitivityRow> sens;
  if (!rows.empty() && rows.front().error.empty()) {
    for (const auto& g : gpus)
      if (g.name == rows.front().gpu) sens = sensitivity(g, rows.front().tp, model, profile, req, predictor);
  }

  if (args.format() == "json") {
    nlohmann::json ranked = nlohmann::json::array(), sj = nlohmann::json::array();
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      nlohmann::json j = {{"rank", i + 1}, {"gpu", r.gpu}, {"tp", r.tp}};
      if (r.error.empty()) {
        j.update({{"ttft_us", r.ttft_us}, {"tpot_us", r.tpot_us}, {"tokens_per_s", r.tokens_per_s},
                  {"fits", r.fits}, {"memory_bytes", r.memory_bytes}, {"usable_bytes", r.usable_bytes}});
        j["tokens_per_dollar"] = r.tokens_per_dollar ? nlohmann::json(*r.tokens_per_dollar) : nlohmann::json();
        if (i < bands.size())
          j["interval"] = {{"ttft_us", {bands[i].ttft_lo, bands[i].ttft_hi}},
                           {"tpot_us", {bands[i].tpot_lo, bands[i].tpot_hi}},
                           {"extrapolated", bands[i].extrapolated},
                           {"notes", bands[i].notes}};
      } else {
        j["error"] = r.error;
      }
      ranked.push_back(j);
    }
    for (const auto& s : sens)
      sj.push_back({{"gpu", s.gpu}, {"change", s.change}, {"ttft_delta_pct", s.ttft_delta_pct},
                    {"tpot_delta_pct", s.tpot_delta_pct}});
    emit(nlohmann::json{{"schema", "loom.whatif/1"},
                        {"model", model.name},
                        {"profile", profile.name},
                        {"batch", req.batch},
                        {"input_len", req.input_len},
                        {"output_len", req.output_len},
                        {"ranked", ranked},
                        {"sensitivity", sj},
                        {"warnings", warnings}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n");
    return 0;
  }
  if (args.format() == "csv") {  // plain numbers, units in the header: a spreadsheet cannot sum "74.9 GB"
    auto num = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", v);
      return std::string(buf);
    };
    auto whole = [](double v) { return std::to_string(static_cast<int64_t>(v)); };
    Table c{{"rank", "gpu", "tp", "ttft_ms", "tpot_ms", "tokens_per_s", "tokens_per_usd", "memory_per_gpu_bytes",
             "usable_bytes", "fits"}, {}, {}};
    if (!bands.empty()) c.columns.insert(c.columns.end(), {"ttft_lo_ms", "ttft_hi_ms", "tpot_lo_ms", "tpot_hi_ms"});
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::vector<std::string> cells{std::to_string(i + 1), r.gpu, std::to_string(r.tp)};
      if (!r.error.empty()) {
        cells.resize(c.columns.size());
        cells[9] = "error";
      } else {
        for (std::string v : {num(r.ttft_us / 1000), num(r.tpot_us / 1000), num(r.tokens_per_s),
                              r.tokens_per_dollar ? num(*r.tokens_per_dollar) : "", whole(r.memory_bytes),
                              whole(r.usable_bytes), std::string(r.fits ? "yes" : "no")})
          cells.push_back(v);
        if (i < bands.size())
          for (double v : {bands[i].ttft_lo, bands[i].ttft_hi, bands[i].tpot_lo, bands[i].tpot_hi})
            cells.push_back(num(v / 1000));
      }
      cells.resize(c.columns.size());
      c.add(cells);
    }
    warn_stderr(warnings);
    emit(c.csv());
    return 0;
  }
  Table t{{"rank", "gpu", "tp", "TTFT_ms", "TPOT_ms", "tokens/s", "tokens/$", "mem/GPU", "fits"},
          {},
          {true, false, true, true, true, true, true, true, false}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (!r.error.empty()) {
      t.add({std::to_string(i + 1), r.gpu, std::to_string(r.tp), "-", "-", "-", "-", "-", "cannot run (below)"});
      continue;
    }
    auto with_band = [&](double v, double lo, double hi) {
      return i < bands.size() ? fmt(v / 1000, 4) + " (" + fmt(lo / 1000, 3) + "-" + fmt(hi / 1000, 3) + ")" +
                                    (bands[i].extrapolated ? "*" : "")
                              : fmt(v / 1000, 4);
    };
    const Band b = i < bands.size() ? bands[i] : Band{};
    t.add({std::to_string(i + 1), r.gpu, std::to_string(r.tp), with_band(r.ttft_us, b.ttft_lo, b.ttft_hi),
           with_band(r.tpot_us, b.tpot_lo, b.tpot_hi),
           fmt(r.tokens_per_s, 4), per_dollar(r.tokens_per_dollar), human(r.memory_bytes, "B"),
           r.fits ? "yes" : "NO (" + human(r.usable_bytes, "B") + " usable)"});
  }
  Table s{{"gpu", "change", "TTFT", "TPOT"}, {}, {false, false, true, true}};
  for (const auto& r : sens)
    s.add({r.gpu, r.change, pct(r.ttft_delta_pct), pct(r.tpot_delta_pct)});
  std::ostringstream o;
  o << "model: " << model.name << "   profile: " << profile.name << "   batch: " << req.batch
    << "   input: " << req.input_len << "   output: " << req.output_len
    << "   (TTFT = prefill step; TPOT = decode step at the middle context)\n\n"
    << t.text();
  for (const auto& r : rows)
    if (!r.error.empty()) o << r.gpu << ": " << r.error << "\n";
  if (!bands.empty()) {
    o << "\n(lo-hi): every kernel at its 10th / 90th percentile held-out error; * = extrapolated:\n";
    for (size_t i = 0; i < rows.size() && i < bands.size(); ++i)
      for (const auto& n : bands[i].notes)
        if (n.rfind("extrapolated", 0) == 0) o << "  " << rows[i].gpu << ": " << n << "\n";
  }
  o << warning_lines(warnings);
  if (!sens.empty()) o << "\nsensitivity of " << sens.front().gpu << " (tp " << rows.front().tp << "):\n" << s.text();
  emit(o.str());
  return 0;
}

}  // namespace loom::cli
