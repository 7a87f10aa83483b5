// Internal to src/report: one renderer per chart kind, each returning an HTML fragment (a <figure> with an
// inline <svg>), plus small shared helpers. report.h is the public face; html.cpp assembles the page.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report/report.h"

namespace loom::report {

std::string render_roofline(const RooflineChart& chart);
std::string render_scatter(const ScatterChart& chart, size_t index);
std::string render_sol(const SolBars& sol, size_t index);
std::string render_timeline(const Timeline& timeline, size_t index);
std::string render_table(const RankedTable& table, size_t index);
std::string render_sensitivity(const Sensitivity& sens, size_t index);
std::string render_lines(const LineChart& chart, size_t index);

/// A lower-case id fragment from any text: letters and digits kept, runs of anything else become "-".
std::string slug(const std::string& text);

/// Keys in first-seen order with their colour index (legends and marks agree on colours).
class ColourKeys {
 public:
  size_t index(const std::string& key);
  const std::vector<std::string>& keys() const { return keys_; }
  /// An HTML legend: a swatch and the key for each key.
  std::string legend_html() const;

 private:
  std::vector<std::string> keys_;
  std::map<std::string, size_t> index_;
};

/// True when v is finite and > 0 (drawable on a log axis).
inline bool positive(double v) { return v > 0 && v < 1e300; }

/// "<p class=note>..." for points that could not be drawn, or "" when none were skipped.
std::string skipped_note(size_t skipped, const std::string& what);

}  // namespace loom::report
