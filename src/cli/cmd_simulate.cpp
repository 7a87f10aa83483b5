// `loom simulate`: a request stream served by replicas of a model on one GPU kind, iteration by iteration.
#include <algorithm>

#include "core/file_io.h"

#include "cli/commands_serving.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/serving_args.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/output_path.h"
#include "serving/engine.h"
#include "serving/metrics.h"

namespace loom::cli {

namespace {

std::string summary_table(const serving::SimResult& r, const serving::Summary& s, const serving::Slo& slo,
                          const std::string& head) {
  Table t;
  t.columns = {"metric", "mean", "p50", "p90", "p99", "max"};
  t.right_align = {false, true, true, true, true, true};
  auto row = [&](const std::string& name, const serving::Stats& st, int digits) {
    t.add({name, fmt(st.mean, digits), fmt(st.p50, digits), fmt(st.p90, digits), fmt(st.p99, digits),
           fmt(st.max, digits)});
  };
  row("TTFT (ms)", s.ttft_ms, 3);
  row("TPOT (ms)", s.tpot_ms, 3);
  row("ITL (ms)", s.itl_ms, 3);
  row("E2E latency (ms)", s.e2e_ms, 3);
  row("batch (requests/step)", s.batch, 3);
  row("queue (waiting)", s.waiting, 3);
  row("KV cache used", s.kv_used, 3);
  std::string out = head + "\n" + t.text();
  out += "requests " + std::to_string(s.requests) + " in " + fmt(s.makespan_ms / 1e3, 4) + " s: " +
         fmt(s.request_per_s, 4) + " req/s, " + fmt(s.output_tokens_per_s, 4) + " output tok/s, " +
         fmt(s.total_tokens_per_s, 4) + " total tok/s; " + std::to_string(s.steps) + " steps (" +
         std::to_string(r.step_evaluations) + " step shapes predicted), " + std::to_string(s.preemptions) +
         " preemptions\n";
  out += "KV cache per replica: " + std::to_string(r.kv_blocks * r.block_size) + " tokens (" +
         std::to_string(r.kv_blocks) + " blocks of " + std::to_string(r.block_size) + ")\n";
  if (!slo.empty())
    out += "SLO " + slo.text() + ": " + fmt(s.slo_attainment * 100, 3) + "% of requests meet it; goodput " +
           fmt(s.goodput_rps, 4) + " req/s\n";
  if (!r.stage_note.empty()) out += "note: " + r.stage_note + "\n";
  return out;
}

}  // namespace

int cmd_simulate(const std::vector<std::string>& argv) {
  std::vector<std::string> flags = {"--gpu",          "--set",           "--model",   "--tp",     "--pp",
                                    "--replicas",     "--router",        "--profile", "--format", "--trace-out",
                                    "--kernel-model", "--series-points", "--clock"};
  flags.insert(flags.end(), kRequestFlags.begin(), kRequestFlags.end());
  Args args(argv, flags, {"--per-request", "--quiet"});
  args.no_positionals("simulate");
  const Catalog catalog = Catalog::load();
  const std::vector<GpuSpec> gpus = select_gpus(catalog, args);
  if (gpus.size() != 1)
    throw InputError("--gpu", "simulate runs one GPU kind; use `loom whatif --rate ...` to compare");
  const std::string format = args.format();
  serving::SimConfig cfg;
  cfg.tp = static_cast<int>(args.integer("--tp", 1, 8, 1));
  cfg.pp = static_cast<int>(args.integer("--pp", 1, 64, 1));
  cfg.replicas = static_cast<int>(args.integer("--replicas", 1, 4096, 1));
  cfg.router = args.get("--router", "round_robin");
  if (cfg.router != "round_robin" && cfg.router != "least_outstanding")
    throw InputError("--router", "'" + cfg.router + "'; use round_robin or least_outstanding");
  // A router chooses between replicas; with one, every router sends every request to it (least_outstanding was
  // accepted and changed nothing; round 14).
  if (args.has("--router") && cfg.replicas == 1)
    throw InputError("--router", "chooses between replicas, and there is one (--replicas 1, the default); give "
                                 "--replicas N (N >= 2) or drop --router");
  const auto points = static_cast<size_t>(args.integer("--series-points", 1, 1'000'000, 1000));
  const serving::Slo slo = args.has("--slo") ? serving::parse_slo(args.get("--slo"), "--slo") : serving::Slo{};
  const ModelConfig model = load_model(args.require("--model"));
  const ServingProfile profile = load_profile(args.get("--profile", "vllm"));
  const ServingPredictors sp = serving_predictors(args);
  const KernelPredictor& predictor = sp.kernel;
  cfg.step_sustained = sp.step_sustained;
  const std::vector<serving::Request> requests = requests_from(args);
  const std::vector<std::string> warnings = stream_warnings(model, requests);
  cfg.record_trace = args.has("--trace-out");
  if (cfg.record_trace) {  // before the run: a path that cannot be written is said at once
    refuse_stdout_output("--trace-out", args.get("--trace-out"), "also receives the answer; give a file");
    check_output_file(args.get("--trace-out"));
  }
  if (!args.has("--requests")) cfg.requests_from = "--prompt-len/--output-len";
  Progress progress("simulate");
  const bool show = !args.has("--quiet") && requests.size() >= 2000;
  if (show)
    cfg.progress = [&](int64_t done, int64_t total) {
      progress.update(static_cast<size_t>(done), static_cast<size_t>(total), "requests done");
    };
  const serving::SimResult r = serving::simulate(gpus[0], model, profile, requests, cfg, predictor);
  if (show) progress.finish();
  const serving::Summary s = serving::summarize(r, slo);
  if (args.has("--trace-out"))
    write_file(args.get("--trace-out"),
               serving::chrome_trace(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  const std::string head = gpus[0].name + " x " + std::to_string(cfg.tp * cfg.pp * cfg.replicas) + " GPUs (tp " +
                           std::to_string(cfg.tp) + ", pp " + std::to_string(cfg.pp) + ", " +
                           std::to_string(cfg.replicas) + " replica(s), " + cfg.router + "), " + model.name + ", " +
                           profile.name + " scheduler (" + profile.scheduler.policy + ")";
  if (format == "json") {
    nlohmann::json j = serving::result_json(r, s, slo, points, args.has("--per-request"));
    j["schema"] = "loom.simulate/1";
    j["warnings"] = warnings;
    j["gpu"] = gpus[0].name;
    j["model"] = model.name;
    j["profile"] = profile.name;
    j["tp"] = cfg.tp;
    j["pp"] = cfg.pp;
    j["replicas"] = cfg.replicas;
    j["gpus_total"] = cfg.tp * cfg.pp * cfg.replicas;
    if (gpus[0].price_per_hour_usd && s.output_tokens_per_s > 0)
      j["usd_per_million_output_tokens"] =
          *gpus[0].price_per_hour_usd * cfg.tp * cfg.pp * cfg.replicas / 3600.0 / s.output_tokens_per_s * 1e6;
    emit(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else if (format == "csv") {  // one row per request
    Table t;
    t.columns = {"id", "replica", "arrival_s", "prompt_tokens", "output_tokens", "cached_tokens", "ttft_ms", "tpot_ms",
                 "e2e_ms", "preemptions"};
    for (const auto& q : r.requests)
      t.add({std::to_string(q.id), std::to_string(q.replica), fmt(q.arrival_s, 6), std::to_string(q.prompt_tokens),
             std::to_string(q.output_tokens), std::to_string(q.cached_tokens), fmt(q.ttft_ms(), 6),
             fmt(q.tpot_ms(), 6), fmt(q.e2e_ms(), 6), std::to_string(q.preemptions)});
    warn_stderr(warnings);
    emit(t.csv());
  } else {
    std::string text = warning_lines(warnings);
    emit(text + summary_table(r, s, slo, head));
  }
  return 0;
}

}  // namespace loom::cli
