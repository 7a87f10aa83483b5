// The kernel-name dictionary of a version 2 corpus (FORMAT.md section 3): `#kernel.<id>=<name>` lines before the
// CSV header, and a `kernels` field of `@<id>` references joined by ';'.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loom::trace_io {

/// Prefix of a dictionary line.
inline constexpr std::string_view kKernelLinePrefix = "#kernel.";

/// A dictionary being read: strict about ids, names and references (each problem one message naming the line).
class KernelDictReader {
 public:
  /// Reads one `#kernel.<id>=<name>` line; throws InputError(where, ...) on a malformed id, a duplicate id or name,
  /// an empty name or one holding ';' or a control character.
  void add_line(std::string_view line, const std::string& where, int64_t line_no);
  /// The ';'-joined names a `kernels` field of `@<id>` references stands for ("" for ""). Throws std::string (the
  /// row readers' per-row error) on a malformed or undefined reference. Marks the ids it resolves as used.
  std::string resolve(std::string_view field);
  /// Throws InputError(file:line of its definition) for the first id no resolved field used.
  void check_all_used(const std::string& file) const;

 private:
  struct Entry {
    std::string name;
    int64_t line_no = 0;
    bool used = false;
  };
  std::map<int64_t, Entry> by_id_;
  std::map<std::string, int64_t, std::less<>> id_of_name_;
};

/// A positive decimal id without sign or leading zeros (at most 9 digits); std::nullopt otherwise.
std::optional<int64_t> parse_kernel_id(std::string_view s);

/// Why `name` cannot be a dictionary name ("" when it can): empty, or holding ';' or a control character.
std::string kernel_name_problem(std::string_view name);

/// The dictionary a writer emits: ids 1, 2, ... in order of first appearance.
class KernelDictWriter {
 public:
  /// The `@<id>;@<id>` field for a ';'-joined list of names, adding new names to the dictionary.
  std::string encode(std::string_view kernels);
  /// The `#kernel.<id>=<name>` lines, one per name, in id order.
  std::string lines() const;

 private:
  std::map<std::string, int64_t, std::less<>> id_of_name_;
  std::vector<std::string> names_;  // names_[id - 1]
};

}  // namespace loom::trace_io
