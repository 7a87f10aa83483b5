// Command-line argument parsing for the loom CLI.
#include "cli/args.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/error.h"
#include "core/suggest.h"

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
      // An empty argument is no path, name or subcommand ("" from an unset shell variable): refused, not read as
      // the current folder or a file named "".
      if (a.empty())
        throw InputError("'' (argument " + std::to_string(i + 1) + ")", "empty argument; give a value or drop it");
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
      // A switch takes no value: `--interval=1` (or `--force=no`) ran as if the value were not there.
      if (inline_value)
        throw InputError(a, "is a switch and takes no value ('" + value.substr(0, 40) + "'); give " + a + " alone");
      // A switch given twice says one thing twice, as a value flag given twice with one value, which get() refuses;
      // switches are read with has(), so it is refused here (round 15: `--lenient --lenient` ran as once).
      if (has(a)) throw InputError(a, "given twice; give it once");
      values_[a].push_back("1");
    } else if (known(flags_with_values, a)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw InputError(a, "missing value; usage: " + a + " VALUE");
        value = argv[++i];
      }
      // No flag takes an empty value: an empty path was written to the current folder or to stdout, an empty name
      // read as "missing" elsewhere. Refused here, naming the flag.
      if (value.empty()) throw InputError(a, "empty value; usage: " + a + " VALUE");
      values_[a].push_back(value);
    } else {
      std::vector<std::string> all = flags_with_values;
      all.insert(all.end(), switches.begin(), switches.end());
      throw InputError(a, "unknown option" + did_you_mean(a, all) + "; valid here: " + join(all));
    }
  }
}

std::string Args::get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return fallback;
  // A single-valued flag given twice: with different values which one was meant is unknowable (the last used to win
  // silently, so `--clock bogus --clock boost` ran); with the same value it is a pasted or generated command line
  // that says one thing twice (`--requests a.csv --requests a.csv` ran once). Refused either way (round 10).
  // Repeatable flags (--set, --lct, ...) are read with all().
  if (it->second.size() > 1) {
    const std::string times = it->second.size() == 2 ? "twice" : std::to_string(it->second.size()) + " times";
    for (const auto& v : it->second)
      if (v != it->second.back())
        throw InputError(flag, "given " + times + " with different values ('" + v.substr(0, 40) + "', '" +
                                   it->second.back().substr(0, 40) + "'); give it once");
    throw InputError(flag, "given " + times + " (each '" + it->second.back().substr(0, 40) + "'); give it once");
  }
  return it->second.back();
}

std::string Args::output(const std::string& fallback) const {
  if (has("-o") && has("--out") && get("-o") != get("--out"))
    throw InputError("-o", "and --out both given ('" + get("-o").substr(0, 60) + "', '" + get("--out").substr(0, 60) +
                               "'); give one");
  return has("-o") ? get("-o") : has("--out") ? get("--out") : fallback;
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
  // Plain decimal only: no hex ("0x10"), no sign '+' (as integer() and kernel specs), no spaces, no trailing text,
  // no NaN/inf, no overflow.
  double d = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d, std::chars_format::general);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || !std::isfinite(d) ||
      v.find_first_of("xXnNiI") != std::string::npos)
    throw InputError(flag, "'" + v + "' is not a finite decimal number");
  return d;
}

int64_t Args::integer(const std::string& flag, int64_t lo, int64_t hi, int64_t fallback) const {
  if (!has(flag)) return fallback;
  const std::string v = get(flag);
  int64_t x = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec == std::errc::invalid_argument || ptr != v.data() + v.size())
    throw InputError(flag, "'" + v + "' is not an integer; write a plain decimal number");
  // "-0" is 0 to from_chars; a sign on a flag that takes no negative numbers is a typo, not zero.
  if (ec == std::errc::result_out_of_range || x < lo || x > hi || (lo >= 0 && v[0] == '-'))
    throw InputError(flag, "'" + v + "' is out of range; use " + std::to_string(lo) + " to " + std::to_string(hi));
  return x;
}

void Args::only(const std::string& mode, std::initializer_list<const char*> used) const {
  for (const auto& [flag, values] : values_) {
    bool ok = false;
    for (const char* u : used) ok = ok || flag == u;
    if (ok) continue;
    std::string list;
    for (const char* u : used) list += (list.empty() ? "" : ", ") + std::string(u);
    // A mode without flags (`trace diff A B`) said "(it reads )" (round 13).
    throw InputError(flag, "not used by " + mode +
                               (list.empty() ? " (it takes no flags)" : " (it reads " + list + ")") +
                               "; drop it or pick the mode that uses it");
  }
}

void Args::no_positionals(const std::string& command) const {
  if (!positional_.empty())
    throw InputError(positional_[0], "unexpected argument for `loom " + command +
                                         "` (values follow their flag; several GPUs: --gpu a,b)");
}

std::string Args::format() const {
  std::string f = get("--format", "table");
  if (f != "table" && f != "json" && f != "csv")
    throw InputError("--format", "'" + f + "' is not a format; use table, json or csv");
  return f;
}

std::string Args::format(const std::string& what, std::initializer_list<const char*> supported) const {
  const std::string f = format();
  std::string list;
  for (const char* s : supported) {
    if (f == s) return f;
    list += (list.empty() ? "" : " or ") + std::string(s);
  }
  throw InputError("--format", "'" + f + "' is not an output of " + what + "; use " + list);
}

void for_each_key_value(const std::string& text, const std::string& flag, const std::string& form,
                        const std::function<void(const KeyValue&)>& check) {
  std::set<std::string> seen;
  for (size_t at = 0; at <= text.size();) {  // `<=`: a trailing comma leaves an empty last item, refused
    const size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw InputError(flag, "'" + item + "' is not " + form);
    const KeyValue kv{item.substr(0, eq), item.substr(eq + 1), item};
    check(kv);
    if (!seen.insert(kv.key).second) throw InputError(flag, "'" + kv.key + "' is given twice");
    at = end + 1;
  }
}

}  // namespace loom::cli
