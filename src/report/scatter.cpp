// Predicted-vs-measured scatter: one small-multiple log-log panel per kernel family, one colour per GPU, the
// y = x line with ±10% and ±25% bands, and the panel's MAPE (mean absolute percentage error) in its title.
#include <algorithm>
#include <cmath>

#include "report/charts.h"
#include "report/svg.h"

namespace loom::report {

namespace {

constexpr double kW = 360, kH = 340;
constexpr double kLeft = 66, kRight = 346, kTop = 12, kBottom = 282;

/// Mean of |predicted - measured| / measured, in percent.
double mape_pct(const std::vector<const ScatterPoint*>& pts) {
  double sum = 0;
  for (const auto* p : pts) sum += std::fabs(p->predicted_us - p->measured_us) / p->measured_us;
  return pts.empty() ? 0 : 100 * sum / pts.size();
}

std::string panel(const std::string& family, const std::vector<const ScatterPoint*>& pts, ColourKeys& gpus,
                  const std::string& id) {
  double lo = INFINITY, hi = 0;
  for (const auto* p : pts) {
    lo = std::min({lo, p->measured_us, p->predicted_us});
    hi = std::max({hi, p->measured_us, p->predicted_us});
  }
  if (!std::isfinite(lo)) lo = 1, hi = 100;
  lo /= 1.3, hi *= 1.3;
  widen_to_decades(lo, hi);
  Axis x{lo, hi, kLeft, kRight, true};
  Axis y{lo, hi, kBottom, kTop, true};
  Svg svg(kW, kH, id, "Predicted vs measured time for " + family);
  svg.raw("<defs><clipPath id=\"" + esc(id) + "-clip\"><rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) +
          "\" width=\"" + num(kRight - kLeft) + "\" height=\"" + num(kBottom - kTop) + "\"/></clipPath></defs>\n");
  svg.x_axis(x, kBottom, kTop, "us", "measured time");
  svg.y_axis(y, kLeft, kRight, "us", "predicted time");
  svg.raw("<g clip-path=\"url(#" + esc(id) + "-clip)\">\n");
  for (double band : {0.25, 0.10}) {
    svg.polygon({{x(lo), y(lo * (1 - band))},
                 {x(hi), y(hi * (1 - band))},
                 {x(hi), y(hi * (1 + band))},
                 {x(lo), y(lo * (1 + band))}},
                band > 0.2 ? "band25" : "band10");
  }
  svg.line(x(lo), y(lo), x(hi), y(hi), "identity");
  for (const auto* p : pts) {
    double err_pct = 100 * (p->predicted_us - p->measured_us) / p->measured_us;
    std::string tip = p->label + "\nGPU: " + p->gpu + "\nmeasured: " + time_us(p->measured_us) +
                      "\npredicted: " + time_us(p->predicted_us) + "\nerror: " + (err_pct >= 0 ? "+" : "") +
                      si(err_pct, "", 3) + "%";
    svg.circle(x(p->measured_us), y(p->predicted_us), 4, "pt-scatter", "fill:" + colour(gpus.index(p->gpu)), tip);
  }
  svg.raw("</g>\n");
  svg.text(kLeft + 8, kTop + 16, "±10% / ±25% bands", "band-label");
  std::string title = family + " — MAPE " + (pts.empty() ? std::string("n/a") : si(mape_pct(pts), "", 3) + "%") +
                      " (n=" + std::to_string(pts.size()) + ")";
  return "<div class=\"panel\"><div class=\"panel-title\">" + esc(title) + "</div>\n" + svg.str() + "</div>\n";
}

}  // namespace

std::string render_scatter(const ScatterChart& chart, size_t index) {
  ColourKeys families, gpus;
  std::vector<const ScatterPoint*> ok;
  size_t skipped = 0;
  for (const auto& p : chart.points) {
    if (!positive(p.measured_us) || !positive(p.predicted_us)) {
      ++skipped;
      continue;
    }
    ok.push_back(&p);
    families.index(p.family);
    gpus.index(p.gpu);
  }
  std::string id = "scatter-" + std::to_string(index);
  std::string html = "<figure class=\"card wide\" id=\"" + id + "\">\n<figcaption>" +
                     esc(chart.title.empty() ? "Predicted vs measured" : chart.title);
  if (!ok.empty()) html += " <span class=\"muted\">— overall MAPE " + esc(si(mape_pct(ok), "", 3)) + "%, " +
                           std::to_string(ok.size()) + " kernels</span>";
  html += "</figcaption>\n<div class=\"legend\">" + gpus.legend_html() + "</div>\n<div class=\"panels\">\n";
  if (ok.empty()) html += "<p class=\"empty\">No kernels with positive measured and predicted times.</p>\n";
  for (size_t f = 0; f < families.keys().size(); ++f) {
    std::vector<const ScatterPoint*> mine;
    for (const auto* p : ok)
      if (p->family == families.keys()[f]) mine.push_back(p);
    html += panel(families.keys()[f], mine, gpus, id + "-" + std::to_string(f));
  }
  html += "</div>\n" + skipped_note(skipped, "kernels") + "</figure>\n";
  return html;
}

}  // namespace loom::report
