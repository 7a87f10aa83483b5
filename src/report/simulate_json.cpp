// Reads `loom simulate --format json --per-request` into the report's serving section: latency CDFs of TTFT,
// TPOT and end-to-end latency, and the engine's batch, queue and KV-cache use over time.
#include <algorithm>

#include "report/json_obj.h"
#include "report/loom_json.h"

namespace loom::report {

namespace {

LineSeries cdf(std::string name, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  LineSeries s{std::move(name), {}, {}};
  for (size_t i = 0; i < v.size(); ++i) {
    s.x.push_back(v[i]);
    s.y.push_back(static_cast<double>(i + 1) / static_cast<double>(v.size()));
  }
  return s;
}

std::vector<double> numbers(const Obj& o, const std::string& key) {
  std::vector<double> v;
  o.each(key, [&](const json& e, const std::string& p) {
    if (!e.is_number()) o.fail(p, "expected a number");
    v.push_back(e.get<double>());
  });
  return v;
}

}  // namespace

void add_simulate(Report& report, const json& j, const std::string& where) {
  Obj top(j, "$", where, {});
  top.require_schema("loom.simulate", 1, "loom simulate ... --format json --per-request");
  if (!j.contains("per_request"))
    top.fail("$.per_request", "required key missing; rerun `loom simulate ... --format json --per-request`");
  if (!j.contains("series")) top.fail("$.series", "required key missing; write it with `loom simulate --format json`");
  std::vector<double> ttft, tpot, e2e;
  top.each("per_request", [&](const json& e, const std::string& p) {
    Obj r(e, p, where, {});
    ttft.push_back(r.number("ttft_ms"));
    e2e.push_back(r.number("e2e_ms"));
    if (r.integer("output_tokens", true) > 1) tpot.push_back(r.number("tpot_ms"));
  });
  LineChart lat{"Latency distribution", "latency (ms)", "share of requests", "", "", true, {}};
  lat.series = {cdf("TTFT", ttft), cdf("TPOT", tpot), cdf("end to end", e2e)};
  Obj series(*top.get("series", true), "$.series", where, {});
  std::vector<double> t = numbers(series, "t_ms");
  for (auto& x : t) x /= 1e3;
  const std::vector<double> batch = numbers(series, "batch"), waiting = numbers(series, "waiting"),
                            kv = numbers(series, "kv_used");
  if (batch.size() != t.size() || waiting.size() != t.size() || kv.size() != t.size())
    series.fail("$.series", "t_ms, batch, waiting and kv_used must have the same length");
  LineChart load{"Batch and queue over time", "time (s)", "requests", "", "", false, {}};
  load.series = {{"running batch", t, batch}, {"waiting", t, waiting}};
  LineChart cache{"KV cache in use over time", "time (s)", "share of KV blocks", "", "", false, {}};
  cache.series = {{"KV cache used", t, kv}};
  report.lines.push_back(std::move(lat));
  report.lines.push_back(std::move(load));
  report.lines.push_back(std::move(cache));
  const std::string gpu = j.value("gpu", std::string()), model = j.value("model", std::string());
  report.subtitle += " Serving: " + std::to_string(ttft.size()) + " requests" +
                     (gpu.empty() ? "" : " on " + gpu) + (model.empty() ? "" : ", " + model) + ".";
}

}  // namespace loom::report
