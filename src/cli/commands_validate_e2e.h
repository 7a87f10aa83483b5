// Entry point of `loom validate --e2e` (measured end-to-end steps vs loom's e2e prediction).
// Kept apart from commands.h so that it merges without touching the coordinator's header.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom validate --e2e [--traces DIR] [--profile P] [--model-dir D] [--format table|csv|json] [--max-error PCT]
/// [--breakdown all]`: per traced case, measured vs predicted GPU time, wall time and launches; MAPE per GPU.
/// Exit 1 when --max-error is given and a GPU's learned GPU-time MAPE exceeds it.
int cmd_validate_e2e(const std::vector<std::string>& argv);

}  // namespace loom::cli
