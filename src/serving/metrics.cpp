// Latency statistics, SLO goodput, time series and the Chrome trace of a serving simulation.
#include "serving/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/error.h"
#include "core/units.h"

namespace loom::serving {

Stats stats(std::vector<double> v) {
  Stats s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  auto pct = [&](double p) {
    const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  s.p50 = pct(50);
  s.p90 = pct(90);
  s.p99 = pct(99);
  s.max = v.back();
  return s;
}

std::string Slo::text() const {
  std::string t;
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  if (ttft_ms) t += "ttft<=" + num(*ttft_ms) + "ms";
  if (tpot_ms) t += std::string(t.empty() ? "" : ",") + "tpot<=" + num(*tpot_ms) + "ms";
  return t;
}

Slo parse_slo(const std::string& text, const std::string& flag) {
  Slo slo;
  std::stringstream ss(text + ",");  // the sentinel makes a trailing empty item ("ttft=2s,") visible
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty() && text.empty()) break;  // reported below as empty
    if (item.empty()) throw InputError(flag, "'" + text.substr(0, 80) + "' has an empty item; write ttft=2s,tpot=50ms");
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (eq == std::string::npos || (key != "ttft" && key != "tpot"))
      throw InputError(flag, "'" + item + "' is not an SLO bound; write ttft=2s,tpot=50ms");
    const double s = parse_quantity(item.substr(eq + 1), UnitKind::time, flag + " " + key);
    if (!std::isfinite(s) || s <= 0 || s > 1e6)
      throw InputError(flag, key + "=" + item.substr(eq + 1, 40) + " must be a positive time up to 1e6 s");
    auto& slot = key == "ttft" ? slo.ttft_ms : slo.tpot_ms;
    if (slot) throw InputError(flag, key + " is given twice");
    slot = s * 1e3;
  }
  if (slo.empty()) throw InputError(flag, "is empty; write ttft=2s,tpot=50ms");
  return slo;
}

Summary summarize(const SimResult& r, const Slo& slo) {
  Summary s;
  std::vector<double> ttft, tpot, e2e, batch, kv, waiting;
  int64_t good = 0;
  for (const auto& q : r.requests) {
    s.requests += 1;
    s.output_tokens += q.output_tokens;
    s.prompt_tokens += q.prompt_tokens;
    ttft.push_back(q.ttft_ms());
    if (q.output_tokens > 1) tpot.push_back(q.tpot_ms());
    e2e.push_back(q.e2e_ms());
    const bool ok = (!slo.ttft_ms || q.ttft_ms() <= *slo.ttft_ms) && (!slo.tpot_ms || q.tpot_ms() <= *slo.tpot_ms);
    good += ok ? 1 : 0;
  }
  for (const auto& it : r.iterations) {
    if (it.stage != 0) continue;
    batch.push_back(static_cast<double>(it.decodes + it.prefills));
    kv.push_back(it.kv_used);
    waiting.push_back(static_cast<double>(it.waiting));
  }
  s.preemptions = r.preemptions;
  s.steps = r.steps;
  s.makespan_ms = r.makespan_s * 1e3;
  const double span = std::max(r.makespan_s, 1e-12);
  s.request_per_s = static_cast<double>(s.requests) / span;
  s.output_tokens_per_s = static_cast<double>(s.output_tokens) / span;
  s.total_tokens_per_s = static_cast<double>(s.output_tokens + s.prompt_tokens) / span;
  s.ttft_ms = stats(ttft);
  s.tpot_ms = stats(tpot);
  s.itl_ms = stats(r.itl_ms);
  s.e2e_ms = stats(e2e);
  s.batch = stats(batch);
  s.kv_used = stats(kv);
  s.waiting = stats(waiting);
  s.slo_attainment = s.requests > 0 ? static_cast<double>(good) / static_cast<double>(s.requests) : 0;
  s.goodput_rps = static_cast<double>(good) / span;
  return s;
}

namespace {

nlohmann::json stats_json(const Stats& s) {
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}, {"count", s.count}};
}

}  // namespace

nlohmann::json result_json(const SimResult& r, const Summary& s, const Slo& slo, size_t max_points, bool per_request) {
  nlohmann::json j = {{"requests", s.requests},
                      {"prompt_tokens", s.prompt_tokens},
                      {"output_tokens", s.output_tokens},
                      {"makespan_ms", s.makespan_ms},
                      {"request_per_s", s.request_per_s},
                      {"output_tokens_per_s", s.output_tokens_per_s},
                      {"total_tokens_per_s", s.total_tokens_per_s},
                      {"ttft_ms", stats_json(s.ttft_ms)},
                      {"tpot_ms", stats_json(s.tpot_ms)},
                      {"itl_ms", stats_json(s.itl_ms)},
                      {"e2e_ms", stats_json(s.e2e_ms)},
                      {"batch_size", stats_json(s.batch)},
                      {"kv_cache_used", stats_json(s.kv_used)},
                      {"queue_length", stats_json(s.waiting)},
                      {"preemptions", s.preemptions},
                      {"steps", s.steps},
                      {"step_shapes_predicted", r.step_evaluations},
                      {"kv_cache", {{"blocks_per_replica", r.kv_blocks}, {"block_size", r.block_size},
                                    {"tokens_per_replica", r.kv_blocks * r.block_size},
                                    {"bytes_per_token_per_gpu", r.kv_bytes_per_token}}}};
  if (!slo.empty())
    j["slo"] = {{"ttft_ms", slo.ttft_ms ? nlohmann::json(*slo.ttft_ms) : nlohmann::json()},
                {"tpot_ms", slo.tpot_ms ? nlohmann::json(*slo.tpot_ms) : nlohmann::json()},
                {"attainment", s.slo_attainment}, {"goodput_rps", s.goodput_rps}};
  if (!r.stage_note.empty()) j["notes"] = {r.stage_note};
  // Time series: stage-0 iterations, evenly thinned to at most max_points.
  std::vector<const Iteration*> its;
  for (const auto& it : r.iterations)
    if (it.stage == 0) its.push_back(&it);
  nlohmann::json series = {{"t_ms", nlohmann::json::array()}, {"replica", nlohmann::json::array()},
                           {"batch", nlohmann::json::array()}, {"tokens", nlohmann::json::array()},
                           {"kv_used", nlohmann::json::array()}, {"waiting", nlohmann::json::array()}};
  const size_t stride = std::max<size_t>(1, (its.size() + max_points - 1) / std::max<size_t>(1, max_points));
  for (size_t i = 0; i < its.size(); i += stride) {
    const Iteration& it = *its[i];
    series["t_ms"].push_back(it.start_s * 1e3);
    series["replica"].push_back(it.replica);
    series["batch"].push_back(it.decodes + it.prefills);
    series["tokens"].push_back(it.tokens);
    series["kv_used"].push_back(it.kv_used);
    series["waiting"].push_back(it.waiting);
  }
  j["series"] = std::move(series);
  if (per_request) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& q : r.requests)
      a.push_back({{"id", q.id}, {"replica", q.replica}, {"arrival_s", q.arrival_s}, {"prompt_tokens", q.prompt_tokens},
                   {"output_tokens", q.output_tokens}, {"cached_tokens", q.cached_tokens}, {"ttft_ms", q.ttft_ms()},
                   {"tpot_ms", q.tpot_ms()}, {"e2e_ms", q.e2e_ms()}, {"preemptions", q.preemptions}});
    j["per_request"] = std::move(a);
  }
  return j;
}

nlohmann::json chrome_trace(const SimResult& r) {
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& it : r.iterations) {
    const std::string name = it.prefills == 0 ? "decode x" + std::to_string(it.decodes)
                                              : "prefill " + std::to_string(it.prefills) + " + decode " +
                                                    std::to_string(it.decodes);
    ev.push_back({{"name", name}, {"ph", "X"}, {"pid", it.replica}, {"tid", it.stage}, {"ts", it.start_s * 1e6},
                  {"dur", (it.end_s - it.start_s) * 1e6},
                  {"args", {{"tokens", it.tokens}, {"graph_batch", it.graph_batch}, {"waiting", it.waiting},
                            {"running", it.running}, {"kv_used", it.kv_used}}}});
  }
  return {{"traceEvents", std::move(ev)}, {"displayTimeUnit", "ms"}};
}

}  // namespace loom::serving
