// Command-line argument parsing for the loom CLI.
#include "cli/args.h"

#include <algorithm>
#include <cstdlib>

#include "core/error.h"

namespace loom::cli {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags_with_values,
           const std::vector<std::string>& switches) {
  auto known = [](const std::vector<std::string>& v, const std::string& f) {
    return std::find(v.begin(), v.end(), f) != v.end();
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string a = argv[i];
    // Long flags start with "--"; a short flag (e.g. "-o") counts only when the command lists it.
    if ((a.rfind("--", 0) != 0 && !known(flags_with_values, a) && !known(switches, a)) || a == "--") {
      positional_.push_back(a);
      continue;
    }
    std::string value;
    bool inline_value = false;
    if (auto eq = a.find('='); eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      inline_value = true;
    }
    if (known(switches, a)) {
      values_[a].push_back("1");
    } else if (known(flags_with_values, a)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw InputError(a, "missing value; usage: " + a + " VALUE");
        value = argv[++i];
      }
      values_[a].push_back(value);
    } else {
      std::vector<std::string> all = flags_with_values;
      all.insert(all.end(), switches.begin(), switches.end());
      throw InputError(a, "unknown option; valid here: " + join(all));
    }
  }
}

std::string Args::get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second.back();
}

std::string Args::require(const std::string& flag) const {
  if (!has(flag)) throw InputError(flag, "required option missing");
  return get(flag);
}

std::vector<std::string> Args::all(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<double> Args::number(const std::string& flag) const {
  if (!has(flag)) return std::nullopt;
  const std::string v = get(flag);
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') throw InputError(flag, "'" + v + "' is not a number");
  return d;
}

std::string Args::format() const {
  std::string f = get("--format", "table");
  if (f != "table" && f != "json" && f != "csv")
    throw InputError("--format", "'" + f + "' is not a format; use table, json or csv");
  return f;
}

}  // namespace loom::cli
