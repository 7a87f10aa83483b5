// One error type for everything loom reads from outside (YAML, kernel specs, CSV, traces, CLI arguments).
// Library code throws loom::InputError; only main() catches it, prints `loom: <where>: <what>` and exits 2.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace loom {

/// Bad input. `where` is "FILE:LINE" (or "FILE:LINE:COL", or an argument such as "--kernel"); `what` says what is
/// wrong and, where possible, what to do ("unknown key 'foo'; expected one of: ...").
class InputError : public std::runtime_error {
 public:
  InputError(std::string where, std::string what)
      : std::runtime_error(where.empty() ? what : where + ": " + what),
        where_(std::move(where)),
        what_(std::move(what)) {}
  const std::string& where() const { return where_; }
  const std::string& detail() const { return what_; }

 private:
  std::string where_;
  std::string what_;
};

/// The error line as printed (CLI stderr, Python ValueError): one line, with any control byte from the input
/// ('\n', NUL, ESC) as '?', and any single word past 200 bytes shortened to its head and tail.
std::string printable_error(const std::string& text);

/// A number for an error message, as the user would write it ("1e+300", "0.5", "4096"), not std::to_string's
/// fixed six decimals ("1.000000", or 300 digits for 1e300).
inline std::string num_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace loom
