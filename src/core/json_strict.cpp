// Strict JSON reading (see json_strict.h).
#include "core/json_strict.h"

#include <algorithm>
#include <set>
#include <vector>

#include "core/error.h"

namespace loom {

namespace {

// `text` with "{byte}" and "{what}" filled in, in one pass (nlohmann's message may itself hold "{byte}").
std::string fill(const std::string& text, size_t byte, const char* what) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 6, "{byte}") == 0) {
      out += std::to_string(byte), i += 6;
    } else if (text.compare(i, 6, "{what}") == 0) {
      out += what, i += 6;
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace

std::optional<std::pair<std::string, int>> first_duplicate_key(std::string_view text) {
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
  const json parsed = json::parse(text.begin(), text.end(), cb);  // kept only for its callbacks (and errors)
  (void)parsed;
  if (dup.empty()) return std::nullopt;
  const std::string quoted = "\"" + dup + "\"";
  size_t pos = text.find(quoted);
  if (pos != std::string::npos) pos = text.find(quoted, pos + 1);
  const size_t upto = pos == std::string::npos ? 0 : pos;
  return std::make_pair(dup, 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::ptrdiff_t(upto), '\n')));
}

StrictJsonMessages StrictJsonMessages::for_hint(const std::string& hint) {
  return {"; give it once" + hint, 80, "not valid JSON" + hint, true, "a number beyond double range" + hint};
}

nlohmann::json parse_strict_json(std::string_view text, const std::string& path, const StrictJsonMessages& messages) {
  // The duplicate scan parses the whole text first, so a syntax error anywhere is reported as one, never as a
  // duplicate key ahead of it.
  try {
    if (const auto dup = first_duplicate_key(text))
      throw InputError(path + ":" + std::to_string(dup->second),
                       "duplicate key '" + dup->first.substr(0, messages.key_chars) + "'" + messages.after_duplicate);
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    const size_t byte = std::min<size_t>(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::ptrdiff_t(byte), '\n'));
    throw InputError(messages.malformed_at_line ? path + ":" + std::to_string(line) : path,
                     fill(messages.malformed, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, fill(messages.unreadable, 0, e.what()));
  }
}

}  // namespace loom
