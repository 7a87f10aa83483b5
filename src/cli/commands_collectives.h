// Entry points of `loom trace fit-collectives` and `loom validate --collectives` (measured NCCL all_reduce,
// all_gather, reduce_scatter, send_recv, and the engines' custom all-reduce).
// Kept apart from commands.h so that it merges without touching the coordinator's header.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"

namespace loom::cli {

/// `loom trace fit-collectives [--traces DIR] [-o FILE]`: alpha-beta fits of every collective corpus below DIR
/// (default traces/) written to FILE (default models/collectives.json); prints the fits.
int cmd_fit_collectives(const Args& args);

/// `loom validate --collectives [--traces DIR] [--format table|csv|json] [--max-mape PCT]`: per fitted GPU, the
/// leave-one-GPU-out MAPE for messages >= 1 MB and below, per op. Exit 1 when a GPU's >= 1 MB all_reduce (NCCL)
/// MAPE exceeds --max-mape.
int cmd_validate_collectives(const std::vector<std::string>& argv);

}  // namespace loom::cli
