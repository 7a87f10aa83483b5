// Strict JSON helpers shared by loom's JSON readers (config.json, calibration results).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace loom {

/// Duplicate keys (nlohmann keeps the last one silently): the first repeated key, with the line of its second
/// occurrence; parsing stops at the first malformed byte (nlohmann::json::parse_error, handled by the caller).
std::optional<std::pair<std::string, int>> first_duplicate_key(const std::string& text);

}  // namespace loom
