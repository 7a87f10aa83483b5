// Measured serving runs (traces/serving/engine/<gpu>/<run>/): what loom's continuous-batching engine
// (scripts/torch/serving/cb_engine.py) recorded per request and per iteration, read strictly.
#pragma once

#include <string>
#include <vector>

#include "serving/requests.h"
#include "serving/step_cost.h"

namespace loom::serving {

struct MeasuredRequest {
  int64_t id = 0, prompt_tokens = 0, output_tokens = 0;
  double arrival_s = 0, first_token_s = 0, finish_s = 0;
  double ttft_ms() const { return (first_token_s - arrival_s) * 1e3; }
  double tpot_ms() const {
    return output_tokens > 1 ? (finish_s - first_token_s) * 1e3 / static_cast<double>(output_tokens - 1) : 0;
  }
};

struct MeasuredIteration {
  double start_s = 0, end_s = 0, gpu_ms = 0;
  BatchShape batch;
  int64_t graph_batch = 0;
  double wall_ms() const { return (end_s - start_s) * 1e3; }
};

struct MeasuredRun {
  std::string name, dir;
  std::vector<Request> requests;  ///< the input (requests.csv)
  std::vector<MeasuredRequest> per_request;
  std::vector<MeasuredIteration> iterations;
};

/// Reads DIR/requests.csv, DIR/per_request.csv and DIR/iterations.csv. Throws InputError("FILE:LINE", ...) for
/// missing files, unknown or missing columns, non-numbers, and times that run backwards.
MeasuredRun read_measured_run(const std::string& dir);
/// The same from the request stream (requests.csv, read) and the two measured files' text; `dir` names the files in
/// messages (the fuzz target's entry point).
MeasuredRun read_measured_run_text(const std::string& dir, std::vector<Request> requests,
                                   const std::string& per_request_csv, const std::string& iterations_csv);

}  // namespace loom::serving
