// Entry points of `loom e2e` and `loom whatif` (end-to-end LLM latency and what-if hardware selection).
// Kept apart from commands.h so that the e2e helper's commands merge without touching the coordinator's header.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom e2e --gpu G --model M --phase prefill|decode --batch B --seq S ...`: one model step on one GPU.
int cmd_e2e(const std::vector<std::string>& argv);
/// `loom whatif --model M --batch B --input-len S --output-len N --gpus all|a,b,c ...`: ranked GPUs + sensitivity.
int cmd_whatif(const std::vector<std::string>& argv);

}  // namespace loom::cli
