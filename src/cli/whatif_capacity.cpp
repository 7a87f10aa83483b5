// Capacity-planning view of `loom whatif`: table, JSON and CSV of serving::capacity per GPU and tp.
#include "cli/whatif_capacity.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/common.h"
#include "cli/progress.h"
#include "cli/serving_args.h"
#include "cli/table.h"
#include "core/error.h"
#include "e2e/op_graph.h"
#include "serving/capacity.h"

namespace loom::cli {

int whatif_capacity(const Args& args, const std::vector<GpuSpec>& gpus, const ModelConfig& model,
                    const ServingProfile& profile, const KernelPredictor& predictor) {
  if (args.has("--interval"))
    throw InputError("--interval",
                     "applies to the ranking (--batch/--input-len/--output-len), not to capacity planning");
  if (args.has("--batch") || args.has("--input-len"))
    throw InputError(args.has("--batch") ? "--batch" : "--input-len",
                     "does not apply to capacity planning; the request stream sets batches (use --prompt-len)");
  serving::CapacityQuery q;
  const ServingPredictors sp =
      serving_predictors(args);  // --clock auto: boost kernels, throttled past the onset per step
  q.step_sustained = sp.step_sustained;
  q.slo = serving::parse_slo(args.get("--slo", "ttft=2s,tpot=50ms"), "--slo");
  q.pp = static_cast<int>(args.integer("--pp", 1, 64, 1));
  // Every (GPU, tp) row would fail alike: the flag is what is wrong (it was refused naming "h200 tp 1"; round 13).
  if (q.pp > model.layers)
    throw InputError("--pp", std::to_string(q.pp) + " pipeline stages for " + model.name + "'s " +
                                 std::to_string(model.layers) + " layers; use 1 to " + std::to_string(model.layers));
  std::string stream;
  if (args.has("--requests")) {
    if (args.has("--rate")) throw InputError("--rate", "give --rate or --requests, not both");
    q.unit_stream = requests_from(args);
    if (q.unit_stream.size() < 2) throw InputError("--requests", "capacity planning needs at least 2 requests");
    q.target_rate = serving::to_unit_rate(q.unit_stream);
    stream = args.get("--requests") + " (" + std::to_string(q.unit_stream.size()) + " requests, mean rate " +
             fmt(q.target_rate, 4) + " req/s)";
  } else {
    const double rate = *args.number("--rate");
    if (rate <= 0 || rate > 1e6) throw InputError("--rate", "requests per second must be in (0, 1e6]");
    const SyntheticStream s = synthetic_from(args);
    q.unit_stream = serving::synthesize(s.count, 1.0, s.arrivals, s.prompt, s.output, s.seed);
    q.target_rate = rate;
    stream = std::to_string(s.count) + " synthetic requests, prompt " + args.get("--prompt-len", "1024") +
             ", output " + args.get("--output-len", "256") + ", " + args.get("--arrivals", "poisson");
  }
  double out_tokens = 0;  // every simulation of the search runs this stream: its limit, named here, not per row
  for (const auto& r : q.unit_stream) out_tokens += static_cast<double>(r.output_tokens);
  if (out_tokens > static_cast<double>(serving::kMaxSimOutputTokens))
    throw InputError(args.has("--requests") ? "--requests" : "--num-requests x --output-len",
                     num_text(out_tokens) + " output tokens in one simulation is beyond loom's limit of 2^24; use a "
                                            "shorter stream");
  // As simulate: the stream's lengths against the model's limits (capacity mode said nothing of them).
  const std::vector<std::string> warnings = stream_warnings(model, q.unit_stream);
  std::vector<int> tps;
  std::stringstream ss(args.get("--tp", "1,2,4,8") + ",");  // the sentinel makes a trailing empty item visible
  for (std::string t; std::getline(ss, t, ',');) {
    if (t.size() != 1 || t[0] < '1' || t[0] > '8')
      throw InputError("--tp", "'" + t + "' is not a tensor-parallel degree; use 1-8 or a list such as 1,2,4");
    if (std::find(tps.begin(), tps.end(), t[0] - '0') != tps.end())
      throw InputError("--tp", "'" + t + "' is given twice; list each degree once");
    tps.push_back(t[0] - '0');
    if (args.has("--tp")) shard(model, tps.back());  // an explicit degree the model cannot be split by: bad flag
  }
  // Every (GPU, tp) row is an independent search: spread them over --threads (default: every core).
  const size_t total = gpus.size() * tps.size();
  const auto threads = static_cast<size_t>(
      args.integer("--threads", 1, 256, std::max<int64_t>(1, std::thread::hardware_concurrency())));
  std::vector<serving::CapacityRow> rows(total);
  Progress progress("capacity");
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex mu;
  auto work = [&] {
    for (size_t i = next++; i < total; i = next++) {
      const GpuSpec& g = gpus[i / tps.size()];
      const int tp = tps[i % tps.size()];
      rows[i] = serving::capacity(g, tp, model, profile, q, sp.step_sustained ? sp.kernel : predictor);
      std::lock_guard<std::mutex> lock(mu);
      if (total > 4) progress.update(++done, total, g.name + " tp " + std::to_string(tp));
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(threads, total); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (total > 4) progress.finish();
  // Cheapest first where priced (cost per million output tokens), then fewest GPUs, then highest rate per GPU.
  std::stable_sort(rows.begin(), rows.end(), [](const serving::CapacityRow& a, const serving::CapacityRow& b) {
    const bool ua = a.error.empty() && a.max_rate > 0, ub = b.error.empty() && b.max_rate > 0;
    if (ua != ub) return ua;
    if (a.usd_per_m_output.has_value() != b.usd_per_m_output.has_value()) return a.usd_per_m_output.has_value();
    if (a.usd_per_m_output && *a.usd_per_m_output != *b.usd_per_m_output)
      return *a.usd_per_m_output < *b.usd_per_m_output;
    return a.max_rate / (a.tp * a.pp) > b.max_rate / (b.tp * b.pp);
  });
  // Every (GPU, tp) failed: the answer is an error, not a table of "cannot run" rows with exit 0.
  if (!rows.empty() && std::all_of(rows.begin(), rows.end(), [](const auto& r) { return !r.error.empty(); }))
    throw InputError(rows.front().gpu + " tp " + std::to_string(rows.front().tp),
                     rows.front().error + (rows.size() > 1 ? " (and no other GPU / tp can run it)" : ""));
  // No (GPU, tp) meets the SLO even at a trickle: the answer is "none", an error naming the SLO, not a table of
  // zero rates with exit 0 (the CSV and JSON views carried no reason at all).
  if (std::none_of(rows.begin(), rows.end(), [](const auto& r) { return r.error.empty() && r.max_rate > 0; }))
    throw InputError("--slo", "'" + q.slo.text() + "' (p99) is missed by every GPU and tp here even at a trickle of "
                              "requests; loosen the SLO, or add GPUs (--gpus) or tp degrees (--tp)");
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  if (args.format() == "json") {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json j = {{"gpu", r.gpu}, {"tp", r.tp}, {"pp", r.pp}};
      if (!r.error.empty()) {
        j["error"] = r.error;
      } else {
        j.update({{"max_rate_per_replica", r.max_rate}, {"output_tokens_per_s_per_replica", r.output_tokens_per_s},
                  {"ttft_p99_ms", r.ttft_p99_ms}, {"tpot_p99_ms", r.tpot_p99_ms}, {"replicas", r.replicas},
                  {"gpus", r.gpus}, {"usd_per_hour", opt(r.usd_per_hour)},
                  {"usd_per_million_output_tokens", opt(r.usd_per_m_output)}, {"simulations", r.simulations}});
      }
      a.push_back(j);
    }
    emit(nlohmann::json{{"schema", "loom.whatif_capacity/1"},
                        {"model", model.name},
                        {"profile", profile.name},
                        {"stream", stream},
                        {"target_rate", q.target_rate},
                        {"slo", q.slo.text()},
                        {"rows", a},
                        {"warnings", warnings}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n");
    return 0;
  }
  const bool csv = args.format() == "csv";
  Table t{{"gpu", "tp", "pp", csv ? "max_rate_per_replica" : "max req/s", csv ? "output_tok_per_s" : "out tok/s",
           csv ? "ttft_p99_ms" : "TTFT p99 ms", csv ? "tpot_p99_ms" : "TPOT p99 ms", "replicas", "gpus",
           csv ? "usd_per_hour" : "$/h", csv ? "usd_per_million_output_tokens" : "$/M out tok"},
          {},
          {false, true, true, true, true, true, true, true, true, true, true}};
  auto num = [&](double v, int d) { return csv ? std::to_string(v) : fmt(v, d); };
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      if (csv) t.add({r.gpu, std::to_string(r.tp), std::to_string(r.pp), "", "", "", "", "", "", "", ""});
      else t.add({r.gpu, std::to_string(r.tp), std::to_string(r.pp), "-", "-", "-", "-", "-", "-", "-", "cannot run"});
      continue;
    }
    const bool any = r.max_rate > 0;
    t.add({r.gpu, std::to_string(r.tp), std::to_string(r.pp), num(r.max_rate, 4),
           any ? num(r.output_tokens_per_s, 4) : "", any ? num(r.ttft_p99_ms, 4) : "", any ? num(r.tpot_p99_ms, 4) : "",
           any ? std::to_string(r.replicas) : "", any ? std::to_string(r.gpus) : "",
           r.usd_per_hour ? num(*r.usd_per_hour, 4) : (csv ? "" : "-"),
           r.usd_per_m_output ? num(*r.usd_per_m_output, 4) : (csv ? "" : "-")});
  }
  if (csv) {
    warn_stderr(warnings);
    emit(t.csv());
    return 0;
  }
  std::string o = "model: " + model.name + "   profile: " + profile.name + "   SLO (p99): " + q.slo.text() +
                  "\nstream: " + stream + "\ntarget: " + fmt(q.target_rate, 4) +
                  " req/s   (max req/s: the highest rate one replica of tp x pp GPUs serves within the SLO)\n\n" +
                  t.text();
  for (const auto& r : rows)
    if (!r.error.empty()) o += r.gpu + " tp " + std::to_string(r.tp) + ": " + r.error + "\n";
  for (const auto& r : rows)
    if (r.error.empty() && r.max_rate == 0)
      o += r.gpu + " tp " + std::to_string(r.tp) + ": misses the SLO even at a trickle of requests\n";
  o += "$: on-demand list prices in gpus/*.yaml (`price:`; override with --set price=...); '-' = no public price\n";
  emit(o + warning_lines(warnings));
  return 0;
}

}  // namespace loom::cli
