// Command-line arguments: `loom <command> [subcommand] --flag value ...`. Repeated flags keep every value.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loom::cli {

class Args {
 public:
  /// Parses argv after the command words. `flags_with_values` lists flags that take a value; `switches` lists
  /// flags that don't. Anything else starting with "--" is an error naming the flag and the valid ones; so is an
  /// empty value ("--out ''") or an empty positional argument.
  Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags_with_values,
       const std::vector<std::string>& switches = {});

  bool has(const std::string& flag) const { return values_.count(flag) != 0; }
  /// The value of a flag, or `fallback`; InputError naming it when it was given more than once (read repeatable
  /// flags with all()).
  std::string get(const std::string& flag, const std::string& fallback = "") const;
  /// The output path of -o / --out (its aliases): `fallback` when neither is given; InputError when both are given with
  /// different values.
  std::string output(const std::string& fallback = "") const;
  /// The value of a required flag; throws InputError naming it.
  std::string require(const std::string& flag) const;
  std::vector<std::string> all(const std::string& flag) const;
  /// A finite plain-decimal number (no hex, NaN, inf, spaces or trailing text); nullopt when the flag is absent.
  std::optional<double> number(const std::string& flag) const;
  /// A plain decimal integer in [lo, hi], or `fallback` when the flag is absent; throws InputError naming the flag.
  int64_t integer(const std::string& flag, int64_t lo, int64_t hi, int64_t fallback) const;
  /// Throws InputError naming the first flag given that `mode` (e.g. "`loom tune --plan`") does not read: a flag
  /// another mode of the same command takes is refused, not silently ignored.
  void only(const std::string& mode, std::initializer_list<const char*> used) const;
  /// Throws InputError when positional arguments were given to a command that takes none.
  void no_positionals(const std::string& command) const;
  const std::vector<std::string>& positional() const { return positional_; }
  /// "table" | "json" | "csv" from --format (default table); anything else is an error.
  std::string format() const;
  /// format(), restricted to what `what` (e.g. "`loom tune`") writes: a format it has no view for is an error
  /// naming the ones it has, never a silent fallback to the table.
  std::string format(const std::string& what, std::initializer_list<const char*> supported) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

/// One item of a `KEY=VALUE,...` list, as given.
struct KeyValue {
  std::string key;    ///< before the first '='
  std::string value;  ///< after it
  std::string item;   ///< the whole item ("gemm=8"), for messages
};

/// Splits the `KEY=VALUE,...` list `text` given to `flag` and calls `check` on each item in order, which reads it or
/// throws for a key or value it does not take. Strict: an empty item ("a=1,,b=2", a trailing comma) or one without
/// '=' throws InputError(flag, "'ITEM' is not " + form), and a key given twice (once its item passed `check`)
/// InputError(flag, "'KEY' is given twice").
void for_each_key_value(const std::string& text, const std::string& flag, const std::string& form,
                        const std::function<void(const KeyValue&)>& check);

}  // namespace loom::cli
