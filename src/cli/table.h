// A small table that renders as aligned text (for people) or CSV (for programs). JSON views build
// nlohmann::json directly.
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  /// Columns whose cells are right-aligned in text output (numbers).
  std::vector<bool> right_align;

  void add(std::vector<std::string> row) { rows.push_back(std::move(row)); }
  /// Aligned text with a header rule.
  std::string text() const;
  /// RFC-4180-style CSV (cells with commas or quotes are quoted).
  std::string csv() const;
};

/// One CSV line (with its newline), quoted as Table::csv() quotes: for output that streams row by row.
std::string csv_row(const std::vector<std::string>& cells);

/// Formats a number with `digits` significant-ish decimals, trimming noise ("12.3", "0.0041", "1.2e+09").
std::string fmt(double v, int digits = 3);
/// Human-readable quantity with SI prefix and unit ("137.4 GFLOP", "96.0 MB").
std::string human(double v, const std::string& unit);

}  // namespace loom::cli
