// Speed-of-light bars for one diagnosed kernel: each pipeline's time at peak as a horizontal bar, the bottleneck
// highlighted, the ceiling as a dashed line and the measured time (when known) as a marker.
#include <algorithm>
#include <cmath>

#include "report/charts.h"
#include "report/svg.h"

namespace loom::report {

namespace {
constexpr double kW = 640;
constexpr double kLeft = 76, kRight = 430, kTop = 40, kRow = 32;
}  // namespace

std::string render_sol(const SolBars& s, size_t index) {
  std::vector<const SolBar*> bars;
  size_t skipped = 0;
  double hi = positive(s.ceiling_us) ? s.ceiling_us : 0;
  for (const auto& b : s.bars) {
    if (!(b.time_us >= 0 && b.time_us < 1e300)) {
      ++skipped;
      continue;
    }
    bars.push_back(&b);
    hi = std::max(hi, b.time_us);
  }
  bool has_measured = s.measured_us && positive(*s.measured_us);
  if (has_measured) hi = std::max(hi, *s.measured_us);
  if (!(hi > 0)) hi = 1;
  auto ticks = linear_ticks(0, hi, 5);
  if (!ticks.empty() && ticks.back() < hi)
    ticks.push_back(ticks.back() + (ticks.size() > 1 ? ticks[1] - ticks[0] : hi));
  if (ticks.size() > 1) hi = ticks.back();

  double bottom = kTop + kRow * std::max<size_t>(bars.size(), 1) + 6;
  double height = bottom + 50;
  Axis x{0, hi, kLeft, kRight, false};
  std::string id = "sol-" + std::to_string(index);
  Svg svg(kW, height, id + "-svg", "Speed-of-light bars for " + s.kernel + " on " + s.gpu);
  svg.x_axis(x, bottom, kTop - 8, "us", "time at peak rate");

  // Marker lines first, so the bars' value labels (with a white halo) stay readable where they cross.
  if (positive(s.ceiling_us)) {
    double cx = x(s.ceiling_us);
    svg.line(cx, kTop - 16, cx, bottom, "ceiling-line");
    svg.text(cx, kTop - 22, "ceiling " + time_us(s.ceiling_us), "marker-label", "middle");
  }
  if (has_measured) {
    double mx = x(*s.measured_us);
    std::string tip = "measured " + time_us(*s.measured_us);
    if (positive(s.ceiling_us)) tip += " = " + si(*s.measured_us / s.ceiling_us, "", 3) + "× the ceiling";
    svg.line(mx, kTop - 8, mx, bottom, "measured-line");
    svg.diamond(mx, kTop - 8, 6, "measured-mark", "", tip);
    // A short label a row below the ceiling's, on whichever side of the marker has room (the ratio is in the tip
    // and in the line above the chart).
    std::string label = "measured " + time_us(*s.measured_us);
    bool right_side = mx + 130 < kW;
    svg.text(mx + (right_side ? 10 : -10), kTop - 4, label, "marker-label strong halo", right_side ? "start" : "end");
  }

  for (size_t i = 0; i < bars.size(); ++i) {
    const SolBar& b = *bars[i];
    double yc = kTop + kRow * i + kRow / 2;
    bool bottleneck = b.pipe == s.bottleneck;
    std::string tip = b.pipe + (bottleneck ? " (bottleneck)" : "") + "\ntime at peak: " + time_us(b.time_us) +
                      "\nshare of ceiling: " + si(100 * b.share_of_ceiling, "", 3) + "%" +
                      (b.demand_text.empty() ? "" : "\ndemand: " + b.demand_text);
    svg.text(kLeft - 10, yc + 4, b.pipe, bottleneck ? "bar-label strong" : "bar-label", "end");
    double w = std::max(x(b.time_us) - kLeft, b.time_us > 0 ? 1.5 : 0.0);
    svg.rect(kLeft, yc - 10, w, 20, bottleneck ? "bar bar-hot" : "bar", "", tip);
    std::string right = time_us(b.time_us) + " · " + si(100 * b.share_of_ceiling, "", 3) + "%";
    if (!b.demand_text.empty()) right += " · " + b.demand_text;
    svg.text(kLeft + w + 6, yc + 4, right, "bar-value halo");
  }
  if (bars.empty()) svg.text(kLeft + 10, kTop + kRow / 2 + 4, "no pipelines", "muted");

  std::string html = "<figure class=\"card\" id=\"" + id + "\">\n<figcaption>Speed of light — <code>" +
                     esc(s.kernel) + "</code> on " + esc(s.gpu) + "</figcaption>\n";
  html += "<p class=\"muted\">bottleneck: <b class=\"hot\">" + esc(s.bottleneck.empty() ? "?" : s.bottleneck) +
          "</b> · ceiling " + esc(time_us(s.ceiling_us)) +
          (has_measured ? " · measured " + esc(time_us(*s.measured_us)) +
                           (positive(s.ceiling_us) ? " (" + esc(si(*s.measured_us / s.ceiling_us, "", 3)) +
                                                         "× the ceiling)" : std::string())
                       : std::string()) + "</p>\n";
  html += svg.str() + skipped_note(skipped, "pipelines") + "</figure>\n";
  return html;
}

}  // namespace loom::report
