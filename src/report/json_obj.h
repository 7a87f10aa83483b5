// Internal to src/report: a strict reader of one JSON object (allowed keys, typed fields, errors that name the
// JSON path, e.g. "$.points[3].measured_us"), shared by the report's own JSON and the readers of loom's outputs.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace loom::report {

using nlohmann::json;

/// One JSON object being read: checks its keys against the allowed ones and reads typed fields. An empty `keys`
/// set accepts any key (the top level of other commands' outputs, which may grow fields the report does not use).
class Obj {
 public:
  Obj(const json& j, std::string path, const std::string& where, std::set<std::string> keys)
      : j_(j), path_(std::move(path)), where_(where) {
    if (!j.is_object()) fail(path_, "expected an object, got " + std::string(j.type_name()));
    if (keys.empty()) return;
    for (const auto& [k, v] : j.items())
      if (!keys.count(k)) {
        std::string list;
        for (const auto& a : keys) list += (list.empty() ? "" : ", ") + a;
        fail(path_ + "." + k, "unknown key; expected one of: " + list);
      }
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(where_, path + ": " + what);
  }
  const json* get(const std::string& k, bool required) const {
    auto it = j_.find(k);
    if (it == j_.end()) {
      if (required) fail(path_ + "." + k, "required key missing");
      return nullptr;
    }
    return &*it;
  }
  std::string str(const std::string& k, bool required = false, std::string fallback = "") const {
    const json* v = get(k, required);
    if (!v) return fallback;
    if (!v->is_string()) fail(path_ + "." + k, "expected a string, got " + std::string(v->type_name()));
    return v->get<std::string>();
  }
  double number(const std::string& k, bool required = true) const {
    auto v = opt_number(k, required);
    return v ? *v : 0.0;
  }
  std::optional<double> opt_number(const std::string& k, bool required = false) const {
    const json* v = get(k, required);
    if (!v) return std::nullopt;
    if (!v->is_number()) fail(path_ + "." + k, "expected a number, got " + std::string(v->type_name()));
    return v->get<double>();
  }
  /// A number > 0 (a time, a rate, a FLOP/s peak: a chart drawn from 0 or -1e308 is no chart); nullopt if absent
  /// and not required. `zero_ok`: >= 0 (a start time, a bar that takes no time).
  std::optional<double> positive(const std::string& k, bool required = true, bool zero_ok = false) const {
    auto v = opt_number(k, required);
    if (v && !(zero_ok ? *v >= 0 : *v > 0))
      fail(path_ + "." + k, num_text(*v) + (zero_ok ? " is negative" : " must be > 0"));
    return v;
  }
  bool boolean(const std::string& k) const {
    const json* v = get(k, false);
    if (!v) return false;
    if (!v->is_boolean()) fail(path_ + "." + k, "expected true or false, got " + std::string(v->type_name()));
    return v->get<bool>();
  }
  int integer(const std::string& k, bool required = false) const {
    const json* v = get(k, required);
    if (!v) return 0;
    if (!v->is_number_integer()) fail(path_ + "." + k, "expected an integer, got " + std::string(v->type_name()));
    return v->get<int>();
  }
  /// Each element of an array field (absent = empty), with its path.
  template <class F>
  void each(const std::string& k, F&& f) const {
    const json* v = get(k, false);
    if (!v) return;
    if (!v->is_array()) fail(path_ + "." + k, "expected an array, got " + std::string(v->type_name()));
    for (size_t i = 0; i < v->size(); ++i) f((*v)[i], path_ + "." + k + "[" + std::to_string(i) + "]");
  }
  std::vector<std::string> strings(const std::string& k) const {
    std::vector<std::string> out;
    each(k, [&](const json& e, const std::string& p) {
      if (!e.is_string()) fail(p, "expected a string, got " + std::string(e.type_name()));
      out.push_back(e.get<std::string>());
    });
    return out;
  }
  const std::string& path() const { return path_; }

  /// The file's `schema` ("loom.e2e/1") must be `name` at a version up to `version`: another command's output (an
  /// e2e file given to --validation) was refused for a key it lacks ("this file predates ..."), a newer file for
  /// whatever key changed. A file without `schema` is refused too (round 13): every loom since 24 Nov 2026 writes
  /// it, and an object that merely has the keys a reader looks up (hand-made, or another tool's) was drawn as if loom
  /// had written it. `command` says what to run; an older loom's file of this shape takes the key by hand.
  void require_schema(const std::string& name, int version, const std::string& command) const {
    const json* s = get("schema", false);
    if (!s)
      fail(path_ + ".schema", "required key missing: loom's outputs carry \"schema\": \"" + name + "/" +
                                  std::to_string(version) + "\"; rerun `" + command +
                                  "` (an older loom's file of this shape: add that key)");
    const std::string v = s->is_string() ? s->get<std::string>() : s->dump();
    const size_t slash = v.rfind('/');
    const std::string got = v.substr(0, slash);
    if (got != name)
      fail(path_ + ".schema",
           "'" + v.substr(0, 60) + "' is not " + name + " output; give the output of `" + command + "`");
    int ver = 0;
    for (size_t i = slash + 1; slash != std::string::npos && i < v.size() && ver < 1000; ++i)
      ver = v[i] >= '0' && v[i] <= '9' ? ver * 10 + (v[i] - '0') : 1000;
    if (slash == std::string::npos || ver < 1 || ver > version)
      fail(path_ + ".schema", "'" + v.substr(0, 60) + "': this loom reads " + name + "/" + std::to_string(version) +
                                  " or older; use the loom that wrote it, or rerun `" + command + "`");
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& where_;
};

/// Parses JSON text; malformed JSON is an InputError(where, "not valid JSON (byte N); <hint>").
json parse_json_text(const std::string& text, const std::string& where, const std::string& hint);

}  // namespace loom::report
