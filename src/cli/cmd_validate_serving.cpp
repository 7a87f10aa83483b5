// `loom validate --serving`: measured continuous-batching runs (traces/serving/engine) against loom's step model
// (iteration by iteration) and against `loom simulate` of the same request file (TTFT/TPOT percentiles, makespan).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "cli/commands_validate_serving.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"
#include "serving/engine.h"
#include "serving/measured.h"
#include "serving/metrics.h"
#include "serving/step_cost.h"

namespace loom::cli {

namespace {

double err_pct(double pred, double meas) { return meas > 0 ? (pred - meas) / meas * 100 : 0; }

struct StepErrors {
  std::vector<double> ape, signed_pct;
  double mape() const { return serving::stats(ape).mean; }
  double median() const { return serving::stats(signed_pct).p50; }
};

}  // namespace

int cmd_validate_serving(const std::vector<std::string>& argv) {
  Args args(argv, {"--traces", "--model", "--profile", "--format", "--max-error", "--kernel-model", "--clock"},
            {"--serving"});
  args.no_positionals("validate --serving");
  const std::optional<double> max_error = args.number("--max-error");
  if (max_error && *max_error <= 0) throw InputError("--max-error", "must be a percentage > 0");
  const std::string root = args.get("--traces", data_dir() + "/traces/serving/engine");
  const ModelConfig model = load_model(args.get("--model", "llama-3-8b"));
  const ServingProfile profile = load_profile(args.get("--profile", "loom-cb"));
  const ServingPredictors sp = serving_predictors(args);
  const KernelPredictor& predictor = sp.kernel;
  serving::SimConfig sim_cfg;
  sim_cfg.step_sustained = sp.step_sustained;
  const Catalog catalog = Catalog::load();
  namespace fs = std::filesystem;
  std::vector<fs::path> runs;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw InputError("--traces",
                     "'" + root + "' is not a directory; give the folder of measured runs (traces/serving/engine)");
  for (const auto& g : fs::directory_iterator(root, ec))
    if (g.is_directory())
      for (const auto& r : fs::directory_iterator(g.path()))
        if (r.is_directory() && fs::exists(r.path() / "per_request.csv")) runs.push_back(r.path());
  if (ec || runs.empty()) throw InputError(root, "no measured runs (<gpu>/<run>/per_request.csv) below it");
  std::sort(runs.begin(), runs.end());
  Table t{{"gpu", "run", "requests", "iters", "step err graph", "step err eager", "TTFT p50 ms", "TTFT p99 ms",
           "TPOT p50 ms", "TPOT p99 ms", "makespan s"},
          {},
          {false, false, true, true, true, true, true, true, true, true, true}};
  nlohmann::json out = nlohmann::json::array();
  Table iters{{"gpu", "run", "iteration", "decodes", "prefills", "tokens", "decode_kv_mean", "decode_kv_max",
               "graph_batch", "measured_ms", "gpu_ms", "predicted_ms"},
              {},
              {}};
  double worst = 0;
  for (const auto& dir : runs) {
    const std::string gpu_key = dir.parent_path().filename().string();
    GpuSpec gpu;
    try {
      gpu = catalog.get(gpu_key);
    } catch (const InputError&) {  // no --gpu was given: the run's folder names the GPU ("--gpu: unknown GPU")
      throw InputError(dir.parent_path().string(), "the folder of a run names its GPU, and '" + gpu_key.substr(0, 80) +
                                                       "' is no catalogue GPU; name it by its key (see `loom gpus`)");
    }
    const serving::MeasuredRun run = serving::read_measured_run(dir.string());
    // Iterations: the step model at each measured batch composition vs the measured wall time of the step.
    serving::StepCost cost(gpu, model, profile, 1, predictor);
    cost.set_step_clock(sp.step_sustained);
    StepErrors graph, eager;
    std::set<int64_t> seen_tokens;  // an eager step of a token count the run has not had pays the new-shape host cost
    for (const auto& it : run.iterations) {
      const bool new_shape = it.graph_batch == 0 && seen_tokens.insert(it.batch.tokens()).second;
      const double pred_ms =
          cost.step_us(it.batch, new_shape ? profile.scheduler.new_shape_cost_us(it.batch.tokens()) : 0) / 1e3;
      const auto& b = it.batch;
      iters.add({gpu_key, run.name, std::to_string(iters.rows.size()), std::to_string(b.decodes),
                 std::to_string(b.prefills), std::to_string(b.tokens()),
                 std::to_string(b.decodes > 0 ? b.decode_kv / b.decodes : 0), std::to_string(b.decode_kv_max),
                 std::to_string(it.graph_batch), fmt(it.wall_ms(), 6), fmt(it.gpu_ms, 6), fmt(pred_ms, 6)});
      StepErrors& e = it.graph_batch > 0 ? graph : eager;
      e.ape.push_back(std::abs(err_pct(pred_ms, it.wall_ms())));
      e.signed_pct.push_back(err_pct(pred_ms, it.wall_ms()));
    }
    // Requests: simulate the same file.
    const serving::SimResult sim = serving::simulate(gpu, model, profile, run.requests, sim_cfg, predictor);
    std::vector<double> mt, mp, pt, pp;
    double m_first = 1e300, m_last = 0;
    for (const auto& r : run.per_request) {
      mt.push_back(r.ttft_ms());
      if (r.output_tokens > 1) mp.push_back(r.tpot_ms());
      m_first = std::min(m_first, r.arrival_s), m_last = std::max(m_last, r.finish_s);
    }
    for (const auto& r : sim.requests) {
      pt.push_back(r.ttft_ms());
      if (r.output_tokens > 1) pp.push_back(r.tpot_ms());
    }
    const serving::Stats mts = serving::stats(mt), mps = serving::stats(mp), pts = serving::stats(pt),
                         pps = serving::stats(pp);
    const double m_span = m_last - m_first, p_span = sim.makespan_s;
    auto cell = [](double meas, double pred) {
      return fmt(meas, 3) + " / " + fmt(pred, 3) + " (" + (pred >= meas ? "+" : "") + fmt(err_pct(pred, meas), 2) +
             "%)";
    };
    auto step_cell = [](const StepErrors& e) {
      return e.ape.empty() ? std::string("-") : fmt(e.mape(), 3) + "% (med " + fmt(e.median(), 2) + "%)";
    };
    t.add({gpu_key, run.name, std::to_string(run.per_request.size()), std::to_string(run.iterations.size()),
           step_cell(graph), step_cell(eager), cell(mts.p50, pts.p50), cell(mts.p99, pts.p99), cell(mps.p50, pps.p50),
           cell(mps.p99, pps.p99), cell(m_span, p_span)});
    for (double e : {err_pct(pts.p50, mts.p50), err_pct(pts.p99, mts.p99), err_pct(pps.p50, mps.p50),
                     err_pct(pps.p99, mps.p99)})
      worst = std::max(worst, std::abs(e));
    auto pair = [](double meas, double pred) {
      return nlohmann::json{{"measured", meas}, {"predicted", pred}, {"error_pct", err_pct(pred, meas)}};
    };
    out.push_back({{"gpu", gpu_key}, {"run", run.name}, {"requests", run.per_request.size()},
                   {"iterations", run.iterations.size()},
                   {"step_graph", {{"count", graph.ape.size()}, {"mape", graph.ape.empty() ? 0 : graph.mape()},
                                   {"median_error_pct", graph.ape.empty() ? 0 : graph.median()}}},
                   {"step_eager", {{"count", eager.ape.size()}, {"mape", eager.ape.empty() ? 0 : eager.mape()},
                                   {"median_error_pct", eager.ape.empty() ? 0 : eager.median()}}},
                   {"ttft_p50_ms", pair(mts.p50, pts.p50)}, {"ttft_p99_ms", pair(mts.p99, pts.p99)},
                   {"tpot_p50_ms", pair(mps.p50, pps.p50)}, {"tpot_p99_ms", pair(mps.p99, pps.p99)},
                   {"makespan_s", pair(m_span, p_span)}});
  }
  if (args.format() == "csv") {  // one row per measured iteration
    emit(iters.csv());
  } else if (args.format() == "json") {
    emit(nlohmann::json{{"schema", "loom.validate_serving/1"}, {"model", model.name}, {"profile", profile.name},
                        {"runs", out}}.dump(2) + "\n");
  } else {
    emit("measured serving runs (" + root + ") vs loom: model " + model.name + ", profile " + profile.name +
         "\nstep err: |predicted - measured| / measured of each iteration's wall time, mean (median signed);\n"
         "other columns: measured / predicted (error)\n\n" + t.text());
  }
  if (max_error && worst > *max_error) {
    emit("validate --serving: a TTFT/TPOT percentile is " + fmt(worst, 3) + "% off, above --max-error " +
         fmt(*max_error, 3) + "%\n");
    return 1;
  }
  return 0;
}

}  // namespace loom::cli
