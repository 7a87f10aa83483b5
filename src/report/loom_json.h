// Readers of loom's own JSON outputs (`loom validate`, `loom e2e`, `loom whatif` with --format json) into report
// sections, so `loom report --validation/--e2e/--whatif FILE` draws them. Fields the report uses are required and
// typed; a missing or mistyped one is InputError(where, "<json path>: what is wrong; what to do").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace loom::report {

/// One measured kernel of a validation file's `points` (a test kernel of one split) with each model's prediction.
struct ValidationPoint {
  std::string split, spec, family, gpu;
  int sms = 0;  ///< SMs in use; 0 = whole chip
  double measured_us = 0, learned_us = 0, analytical_us = 0, roofline_us = 0;
};

/// What the report takes from `loom validate --format json`.
struct ValidationData {
  std::string model_fingerprint, corpus_hash;
  std::vector<ValidationPoint> points;
};

/// Reads a validation file; `points` is required (older files without it: rerun `loom validate`).
ValidationData validation_from_json(const nlohmann::json& j, const std::string& where);

/// One scatter per split present in the points ("shapes" first, then the others in file order): learned
/// prediction vs measured, with the analytical model as the baseline.
std::vector<ScatterChart> validation_scatters(const ValidationData& v);

/// Adds a `loom e2e --format json` step as a timeline with lanes: layers, GPU kernels, idle gaps between kernels.
void add_e2e(Report& report, const nlohmann::json& j, const std::string& where);

/// Adds a `loom whatif --format json` result: the ranked GPU table and the sensitivity bars.
void add_whatif(Report& report, const nlohmann::json& j, const std::string& where);

/// Adds a `loom simulate --format json --per-request` run: latency CDFs and the batch/queue/KV time series.
void add_simulate(Report& report, const nlohmann::json& j, const std::string& where);

/// Parses JSON text read from `where` (malformed JSON is an InputError naming the byte offset).
nlohmann::json loom_json_text(const std::string& text, const std::string& where);

}  // namespace loom::report
