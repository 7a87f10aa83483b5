// Line charts: latency CDFs (log x) and time series (linear x), one colour per series, with a legend.
#include <algorithm>
#include <cmath>

#include "report/charts.h"
#include "report/svg.h"

namespace loom::report {

namespace {
constexpr double kW = 520, kH = 300, kLeft = 64, kRight = 500, kTop = 14, kBottom = 250;
constexpr size_t kMaxPoints = 1500;  // per series: longer series are thinned evenly
}  // namespace

std::string render_lines(const LineChart& c, size_t index) {
  double xlo = 1e300, xhi = -1e300, ylo = 0, yhi = -1e300;
  size_t skipped = 0;
  for (const auto& s : c.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (c.x_log && s.x[i] <= 0)) {
        ++skipped;
        continue;
      }
      xlo = std::min(xlo, s.x[i]), xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]), yhi = std::max(yhi, s.y[i]);
    }
  const std::string id = "lines-" + std::to_string(index) + "-" + slug(c.title);
  std::string html = "<figure class=\"card\" id=\"" + id + "\">\n<figcaption>" + esc(c.title) + "</figcaption>\n";
  if (xhi < xlo) return html + "<p class=\"empty\">no data</p>\n</figure>\n";
  if (xhi == xlo) xhi = xlo + (c.x_log ? xlo : 1.0);
  if (yhi <= ylo) yhi = ylo + 1;
  if (c.x_log) widen_to_decades(xlo, xhi);
  const Axis xa{xlo, xhi, kLeft, kRight, c.x_log};
  const Axis ya{ylo, yhi * 1.05, kBottom, kTop, false};
  Svg svg(kW, kH, id + "-svg", c.title);
  svg.x_axis(xa, kBottom, kTop, c.x_unit, c.x_title);
  svg.y_axis(ya, kLeft, kRight, c.y_unit, c.y_title);
  ColourKeys keys;
  for (const auto& s : c.series) {
    const size_t k = keys.index(s.name);
    const size_t n = std::min(s.x.size(), s.y.size());
    const size_t stride = std::max<size_t>(1, (n + kMaxPoints - 1) / kMaxPoints);
    std::string d;
    for (size_t i = 0; i < n; i += stride) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (c.x_log && s.x[i] <= 0)) continue;
      d += (d.empty() ? "M" : " L") + num(xa(s.x[i])) + " " + num(ya(s.y[i]));
    }
    svg.raw("<path d=\"" + d + "\" fill=\"none\" stroke=\"" + colour(k) + "\" stroke-width=\"1.6\"><title>" +
            esc(s.name) + "</title></path>");
  }
  html += svg.str() + keys.legend_html() + skipped_note(skipped, "points (non-finite, or <= 0 on a log axis)");
  return html + "</figure>\n";
}

}  // namespace loom::report
