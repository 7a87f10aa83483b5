// Summaries of a serving simulation: latency distributions, throughput, goodput under an SLO, time series, and a
// Chrome trace of the iterations (one lane per replica and stage).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "serving/engine.h"

namespace loom::serving {

struct Stats {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  int64_t count = 0;
};
/// Order statistics (linear interpolation between ranks, as numpy's default percentile).
Stats stats(std::vector<double> v);

/// Service-level objective; a request meets it when both its TTFT and its TPOT do (an absent bound always holds).
struct Slo {
  std::optional<double> ttft_ms, tpot_ms;
  bool empty() const { return !ttft_ms && !tpot_ms; }
  std::string text() const;
};
/// "ttft=2s,tpot=50ms" (units us, ms, s); throws InputError(flag, ...) when malformed.
Slo parse_slo(const std::string& text, const std::string& flag);

struct Summary {
  int64_t requests = 0, output_tokens = 0, prompt_tokens = 0, preemptions = 0, steps = 0;
  double makespan_ms = 0, request_per_s = 0, output_tokens_per_s = 0, total_tokens_per_s = 0;
  Stats ttft_ms, tpot_ms, itl_ms, e2e_ms, batch, kv_used, waiting;
  double slo_attainment = 0;  ///< fraction of requests meeting the SLO (1 without one)
  double goodput_rps = 0;     ///< requests meeting the SLO per second of makespan
};
Summary summarize(const SimResult& r, const Slo& slo);

/// JSON of the whole run: summary keys at the top level (requests, makespan_ms, output_tokens_per_s, ttft_ms,
/// tpot_ms, itl_ms, e2e_ms each {mean,p50,p90,p99,max}, ...), `series` (at most `max_points` samples of time,
/// batch, tokens, kv_used, waiting), and `per_request` when `per_request` is true.
nlohmann::json result_json(const SimResult& r, const Summary& s, const Slo& slo, size_t max_points, bool per_request);

/// Chrome trace (chrome://tracing, Perfetto) of the iterations: pid = replica, tid = pipeline stage.
nlohmann::json chrome_trace(const SimResult& r);

}  // namespace loom::serving
