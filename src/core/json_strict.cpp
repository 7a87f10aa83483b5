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

// The 1-based line of byte `byte` of `text` (clamped to its end).
int line_at(std::string_view text, size_t byte) {
  const size_t upto = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::ptrdiff_t(upto), '\n'));
}

// A forward scan over JSON text, enough to find a value by its path (json_line_of): no validation, never past the end.
struct Scan {
  std::string_view t;
  size_t i = 0;
  bool at(char c) {
    ws();
    return i < t.size() && t[i] == c;
  }
  void ws() {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  }
  std::string str() {  // at '"': the string's text (escapes other than \uXXXX undone)
    std::string s;
    for (++i; i < t.size() && t[i] != '"'; ++i) {
      if (t[i] != '\\' || i + 1 >= t.size()) {
        s += t[i];
        continue;
      }
      const char e = t[++i];
      s += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
      if (e == 'u') s.insert(s.size() - 1, 1, '\\');
    }
    ++i;
    return s;
  }
  void skip() {  // one value
    ws();
    if (i >= t.size()) return;
    if (t[i] == '"') {
      str();
      return;
    }
    if (t[i] != '{' && t[i] != '[') {
      while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
      return;
    }
    int depth = 0;
    for (; i < t.size(); ++i) {
      if (t[i] == '"') {
        str();
        --i;
      } else if (t[i] == '{' || t[i] == '[') {
        ++depth;
      } else if ((t[i] == '}' || t[i] == ']') && --depth == 0) {
        ++i;
        return;
      }
    }
  }
  bool step(const std::string& key) {  // at an object or array: to the value of `key` in it
    ws();
    if (i >= t.size() || (t[i] != '{' && t[i] != '[')) return false;
    const bool object = t[i] == '{';
    size_t want = 0;
    if (!object) {
      if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos) return false;
      want = std::stoul(key);
    }
    const size_t open = i++;
    for (size_t n = 0;; ++n) {
      if (at('}') || at(']') || i >= t.size()) break;
      if (object) {
        if (!at('"')) break;
        const std::string k = str();
        if (!at(':')) break;
        ++i;
        if (k == key) return ws(), true;
      } else if (n == want) {
        return ws(), true;
      }
      skip();
      if (!at(',')) break;
      ++i;
    }
    i = open;
    return false;
  }
};

}  // namespace

int json_line_of(std::string_view text, const std::vector<std::string>& path) {
  Scan s{text};
  s.ws();
  for (const auto& key : path)
    if (!s.step(key)) break;
  return line_at(text, s.i);
}

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
  return std::make_pair(dup, line_at(text, pos == std::string::npos ? 0 : pos));
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
    const int line = line_at(text, e.byte);
    throw InputError(messages.malformed_at_line ? path + ":" + std::to_string(line) : path,
                     fill(messages.malformed, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, fill(messages.unreadable, 0, e.what()));
  }
}

}  // namespace loom
