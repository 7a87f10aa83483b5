// Text and CSV rendering of tables.
#include "cli/table.h"

#include <algorithm>
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

static std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
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
  for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_cell(cells[c]);
  return out + "\n";
}

std::string fmt(double v, int digits) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  double a = std::fabs(v);
  if (a != 0 && (a >= 1e7 || a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.*e", std::max(1, digits - 1), v);
  } else {
    int decimals = a >= 100 ? 1 : (a >= 10 ? std::max(0, digits - 2) : digits);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  }
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
