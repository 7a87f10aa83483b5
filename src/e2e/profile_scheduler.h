// The `scheduler:` mapping of a serving profile (internal to profile.cpp).
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "e2e/profile.h"

namespace loom {

/// Reads a `scheduler:` mapping into `s` (fields absent keep their defaults). Throws InputError("FILE:LINE", ...)
/// for unknown keys, values out of range and capture sizes that are not increasing.
void parse_scheduler(const YAML::Node& node, const std::string& source, SchedulerParams& s);

}  // namespace loom
