// Entry point of `loom tune` (wave-aware bilinear model and microsecond config selection; src/wave/).
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom tune --gpu G --kernel SPEC` | --plan | --fit | --validate | --export (see `loom --help`).
int cmd_tune(const std::vector<std::string>& argv);

}  // namespace loom::cli
