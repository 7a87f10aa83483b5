// One error type for everything loom reads from outside (YAML, kernel specs, CSV, traces, CLI arguments).
// Library code throws loom::InputError; only main() catches it, prints `loom: <where>: <what>` and exits 2.
#pragma once

#include <stdexcept>
#include <string>

namespace loom {

/// Bad input. `where` is "FILE:LINE" (or "FILE:LINE:COL", or an argument such as "--kernel"); `what` says what is
/// wrong and, where possible, what to do ("unknown key 'foo'; expected one of: ...").
class InputError : public std::runtime_error {
 public:
  InputError(std::string where, std::string what)
      : std::runtime_error(where.empty() ? what : where + ": " + what), where_(std::move(where)), what_(std::move(what)) {}
  const std::string& where() const { return where_; }
  const std::string& detail() const { return what_; }

 private:
  std::string where_;
  std::string what_;
};

}  // namespace loom
