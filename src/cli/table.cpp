// Text and CSV rendering of tables.
#include "cli/table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace loom::cli {

std::string Table::text() const {
  std::vector<size_t> width(columns.size(), 0);
  for (size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < columns.size(); ++c) {
      std::string cell = c < cells.size() ? cells[c] : "";
      bool right = c < right_align.size() && right_align[c];
      std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      s += right ? pad + cell : cell + pad;
      if (c + 1 < columns.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(columns);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c + 1 < width.size() ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

/// Appends one CSV cell: as it is, or quoted (doubled quotes inside) when it holds a comma, quote or newline.
static void append_csv_cell(std::string& out, const std::string& s) {
  if (std::none_of(s.begin(), s.end(), [](char ch) { return ch == ',' || ch == '"' || ch == '\n'; })) {
    out += s;
    return;
  }
  out += '"';
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

static std::string csv_cell(const std::string& s) {
  std::string out;
  append_csv_cell(out, s);
  return out;
}

std::string Table::csv() const {
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_cell(columns[c]);
  out += "\n";
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) out += (c ? "," : "") + csv_cell(r[c]);
    out += "\n";
  }
  return out;
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  size_t size = cells.size() + 1;  // commas and the newline; quoted cells may grow it
  for (const auto& c : cells) size += c.size();
  out.reserve(size);
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c) out += ',';
    append_csv_cell(out, cells[c]);
  }
  out += '\n';
  return out;
}

std::string fmt(double v, int digits) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  // std::to_chars with a precision prints what printf's %.*e / %.*f print (C locale), without printf's parsing;
  // the text is cut at 63 characters as snprintf into the 64-byte buffer used to cut it.
  const double a = std::fabs(v);
  const bool sci = a != 0 && (a >= 1e7 || a < 1e-3);
  const int precision = sci ? std::max(1, digits - 1) : a >= 100 ? 1 : (a >= 10 ? std::max(0, digits - 2) : digits);
  char buf[512];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, sci ? std::chars_format::scientific : std::chars_format::fixed,
                               precision);
  if (r.ec == std::errc()) return std::string(buf, std::min<size_t>(size_t(r.ptr - buf), 63));
  std::snprintf(buf, 64, sci ? "%.*e" : "%.*f", precision, v);  // longer than the buffer: printf's path
  return buf;
}

std::string human(double v, const std::string& unit) {
  static const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int p = 0;
  double a = std::fabs(v);
  while (a >= 1000 && p < 6) {
    a /= 1000;
    v /= 1000;
    ++p;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s%s", v, prefixes[p], unit.c_str());
  return buf;
}

}  // namespace loom::cli
