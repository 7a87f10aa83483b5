// Entry point of `loom calibrate` (cmd_calibrate.cpp): a calibration run -> a GPU YAML overlay.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom calibrate RESULT.json --gpu KEY [-o FILE.yaml]`; returns the exit code.
int cmd_calibrate(const std::vector<std::string>& argv);

}  // namespace loom::cli
