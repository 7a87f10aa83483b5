// The what-if views: the ranked GPU table (a plain HTML table) and sensitivity bars (TTFT and TPOT change per
// what-if, diverging around 0: left = faster, right = slower).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "report/charts.h"
#include "report/svg.h"

namespace loom::report {

namespace {

/// Looks like a number (optionally signed, with a unit or % after it): right-align it.
bool numeric_cell(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') ++i;
  return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
}

/// "+12.5%" / "-4.1%" / "0%" (built by appending: GCC 12 warns falsely on "+" + std::string, PR105329).
std::string signed_pct(double v) {
  std::string out = v > 0 ? "+" : "";
  out += si(v, "", 3);
  out += '%';
  return out;
}

constexpr double kW = 760, kLabelW = 236, kLeft = 250, kRight = 740, kTop = 10, kRow = 38;

}  // namespace

std::string render_table(const RankedTable& t, size_t index) {
  std::string html = "<figure class=\"card wide\" id=\"whatif-table-" + std::to_string(index) + "\">\n";
  html += "<figcaption>" + esc(t.title.empty() ? "What-if ranking" : t.title) + "</figcaption>\n";
  html += "<div class=\"table-wrap\"><table class=\"ranked\">\n<thead><tr>";
  for (const auto& c : t.columns) html += "<th>" + esc(c) + "</th>";
  html += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    html += "<tr>";
    for (const auto& cell : row)
      html += numeric_cell(cell) ? "<td class=\"num\">" + esc(cell) + "</td>" : "<td>" + esc(cell) + "</td>";
    // Short rows are padded so every row has a cell under every column.
    for (size_t k = row.size(); k < t.columns.size(); ++k) html += "<td></td>";
    html += "</tr>\n";
  }
  if (t.rows.empty())
    html += "<tr><td class=\"empty\" colspan=\"" + std::to_string(std::max<size_t>(t.columns.size(), 1)) +
            "\">no rows</td></tr>\n";
  html += "</tbody>\n</table></div>\n</figure>\n";
  return html;
}

std::string render_sensitivity(const Sensitivity& s, size_t index) {
  std::vector<const SensitivityBar*> bars;
  size_t skipped = 0;
  double lo = 0, hi = 0;
  for (const auto& b : s.bars) {
    if (!std::isfinite(b.ttft_delta_pct) || !std::isfinite(b.tpot_delta_pct)) {
      ++skipped;
      continue;
    }
    bars.push_back(&b);
    lo = std::min({lo, b.ttft_delta_pct, b.tpot_delta_pct});
    hi = std::max({hi, b.ttft_delta_pct, b.tpot_delta_pct});
  }
  // The axis spans the data (0 always inside), with room at each end for the value labels outside the bars.
  double span = std::max(hi - lo, 1.0);
  lo = lo < 0 ? lo - 0.14 * span : -0.04 * span;
  hi = hi > 0 ? hi + 0.14 * span : 0.04 * span;
  auto ticks = linear_ticks(lo, hi, 6);
  double bottom = kTop + kRow * std::max<size_t>(bars.size(), 1) + 4;
  Axis x{lo, hi, kLeft, kRight, false};
  std::string id = "sensitivity-" + std::to_string(index);
  Svg svg(kW, bottom + 48, id + "-svg", s.title.empty() ? "What-if sensitivity" : s.title);
  for (double t : ticks) {
    svg.line(x(t), kTop - 4, x(t), bottom, "grid");
    svg.text(x(t), bottom + 18, signed_pct(t), "tick-label", "middle");
  }
  svg.line(x(0), kTop - 4, x(0), bottom, "zero-line");
  svg.text(x(0) - 8, bottom + 38, "← faster", "axis-title", "end");
  svg.text(x(0) + 8, bottom + 38, "slower →", "axis-title", "start");
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& b = *bars[i];
    double y0 = kTop + kRow * i;
    std::string label = b.gpu + " · " + b.change;
    if (label.size() > 40) label = label.substr(0, 38) + "…";
    svg.text(kLabelW, y0 + kRow / 2 + 5, label, "bar-label", "end");
    if (i > 0) svg.line(kLeft, y0, kRight, y0, "row-rule");
    struct M {
      const char* name;
      double v;
      const char* cls;
      double dy;
    };
    for (const M& mm : {M{"TTFT", b.ttft_delta_pct, "sens-ttft", 6}, M{"TPOT", b.tpot_delta_pct, "sens-tpot", 20}}) {
      double xa = x(std::min(0.0, mm.v)), xb = x(std::max(0.0, mm.v));
      std::string tip = b.gpu + ": " + b.change + "\n" + mm.name + " " + signed_pct(mm.v);
      svg.rect(xa, y0 + mm.dy, std::max(xb - xa, 1.0), 12, mm.cls, "", tip);
      std::string val = signed_pct(mm.v);
      // The value sits just outside the bar's end (the axis keeps room for it).
      if (mm.v >= 0)
        svg.text(xb + 4, y0 + mm.dy + 10, val, "bar-value small");
      else
        svg.text(xa - 4, y0 + mm.dy + 10, val, "bar-value small", "end");
    }
  }
  if (bars.empty()) svg.text(kLeft, kTop + 20, "no what-if changes", "muted");

  std::string html = "<figure class=\"card wide\" id=\"" + id + "\">\n<figcaption>" +
                     esc(s.title.empty() ? "What-if sensitivity" : s.title) + "</figcaption>\n";
  html += "<div class=\"legend\"><span class=\"key\"><span class=\"sw sens-ttft\"></span>TTFT change</span>"
          "<span class=\"key\"><span class=\"sw sens-tpot\"></span>TPOT change</span></div>\n";
  html += svg.str() + skipped_note(skipped, "changes") + "</figure>\n";
  return html;
}

}  // namespace loom::report
