// Entry point of `loom validate --serving` (measured serving runs vs `loom simulate`).
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom validate --serving [--traces DIR] [--model M] [--profile P] [--format table|json] [--max-error PCT]`: per
/// measured run under DIR/<gpu>/<run>/ (default traces/serving/engine), every iteration's time against the step
/// model for its batch, and the run's TTFT/TPOT percentiles and makespan against a simulation of its request file;
/// --format csv: one row per measured iteration with its predicted time.
int cmd_validate_serving(const std::vector<std::string>& argv);

}  // namespace loom::cli
