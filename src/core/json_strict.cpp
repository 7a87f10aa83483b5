// Strict JSON helpers (see json_strict.h).
#include "core/json_strict.h"

#include <algorithm>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom {

std::optional<std::pair<std::string, int>> first_duplicate_key(const std::string& text) {
  using json = nlohmann::json;
  std::vector<std::set<std::string>> keys;  // one key set per open object
  std::string dup;
  auto cb = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (ev == json::parse_event_t::key && dup.empty() && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second)
      dup = parsed.get<std::string>();
    return true;
  };
  (void)json::parse(text, cb);
  if (dup.empty()) return std::nullopt;
  const std::string quoted = "\"" + dup + "\"";
  size_t pos = text.find(quoted);
  if (pos != std::string::npos) pos = text.find(quoted, pos + 1);
  const size_t upto = pos == std::string::npos ? 0 : pos;
  return std::make_pair(dup, 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::ptrdiff_t(upto), '\n')));
}

}  // namespace loom
