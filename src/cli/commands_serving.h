// Entry point of `loom simulate` (request-level serving simulation; src/serving).
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom simulate --gpu G --model M [--tp N] [--pp N] [--replicas N] --requests FILE | --rate R ...`.
int cmd_simulate(const std::vector<std::string>& argv);

}  // namespace loom::cli
