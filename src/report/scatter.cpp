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

bool has_baseline(const ScatterPoint& p) { return p.baseline_us && positive(*p.baseline_us); }

/// The baseline's MAPE over the points that have one, in percent, and how many had one.
std::pair<double, size_t> baseline_mape_pct(const std::vector<const ScatterPoint*>& pts) {
  double sum = 0;
  size_t n = 0;
  for (const auto* p : pts)
    if (has_baseline(*p)) sum += std::fabs(*p->baseline_us - p->measured_us) / p->measured_us, ++n;
  return {n ? 100 * sum / n : 0, n};
}

/// "learned MAPE 8.1% · analytical 35%" (the baseline part only when some point has one).
std::string mape_text(const ScatterChart& c, const std::vector<const ScatterPoint*>& pts) {
  if (pts.empty()) return "MAPE n/a";
  std::string t = (c.predicted_name.empty() ? "" : c.predicted_name + " ") + "MAPE " + si(mape_pct(pts), "", 3) + "%";
  auto [base, n] = baseline_mape_pct(pts);
  if (n)
    t += " · " + (c.baseline_name.empty() ? std::string("baseline") : c.baseline_name) + " " + si(base, "", 3) + "%";
  return t;
}

/// At most `max` points (0 = all), evenly spaced over the points sorted by measured time, extremes included.
std::vector<const ScatterPoint*> spread(std::vector<const ScatterPoint*> pts, size_t max) {
  if (max == 0 || pts.size() <= max) return pts;
  std::stable_sort(pts.begin(), pts.end(),
                   [](const ScatterPoint* a, const ScatterPoint* b) { return a->measured_us < b->measured_us; });
  std::vector<const ScatterPoint*> out;
  for (size_t i = 0; i < max; ++i)
    out.push_back(pts[max == 1 ? 0 : static_cast<size_t>(std::llround(i * (pts.size() - 1.0) / (max - 1.0)))]);
  return out;
}

std::string panel(const ScatterChart& c, const std::string& family, const std::vector<const ScatterPoint*>& pts,
                  ColourKeys& gpus, const std::string& id) {
  double lo = INFINITY, hi = 0;
  for (const auto* p : pts) {
    lo = std::min({lo, p->measured_us, p->predicted_us});
    hi = std::max({hi, p->measured_us, p->predicted_us});
    if (has_baseline(*p)) lo = std::min(lo, *p->baseline_us), hi = std::max(hi, *p->baseline_us);
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
  const std::vector<const ScatterPoint*> drawn = spread(pts, c.max_drawn_per_panel);
  // Baseline predictions first (lighter rings, underneath), so the main model's dots stay on top.
  const std::string base_name = c.baseline_name.empty() ? "baseline" : c.baseline_name;
  for (const auto* p : drawn) {
    if (!has_baseline(*p)) continue;
    // No tip of its own (the main dot's tip names the baseline): halves the page size of large validations.
    svg.circle(x(p->measured_us), y(*p->baseline_us), 3.2, "pt-base", "stroke:" + colour(gpus.index(p->gpu)));
  }
  for (const auto* p : drawn) {
    double err_pct = 100 * (p->predicted_us - p->measured_us) / p->measured_us;
    std::string tip = p->label + "\nGPU: " + p->gpu + "\nmeasured: " + time_us(p->measured_us) + "\n" +
                      (c.predicted_name.empty() ? "predicted" : c.predicted_name) + ": " + time_us(p->predicted_us) +
                      "\nerror: " + (err_pct >= 0 ? "+" : "") + si(err_pct, "", 3) + "%";
    if (has_baseline(*p)) {
      double base_err_pct = 100 * (*p->baseline_us - p->measured_us) / p->measured_us;
      tip += "\n" + base_name + ": " + time_us(*p->baseline_us) + " (" + (base_err_pct >= 0 ? "+" : "") +
             si(base_err_pct, "", 3) + "%)";
    }
    svg.circle(x(p->measured_us), y(p->predicted_us), 4, "pt-scatter", "fill:" + colour(gpus.index(p->gpu)), tip);
  }
  svg.raw("</g>\n");
  svg.text(kLeft + 8, kTop + 16, "±10% / ±25% bands", "band-label");
  std::string title = family + " — " + mape_text(c, pts) + " (n=" + std::to_string(pts.size()) +
                      (drawn.size() < pts.size() ? ", " + std::to_string(drawn.size()) + " drawn" : "") + ")";
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
  if (!ok.empty()) html += " <span class=\"muted\">— overall " + esc(mape_text(chart, ok)) + ", " +
                           std::to_string(ok.size()) + " kernels</span>";
  html += "</figcaption>\n";
  // The baseline toggle is a plain checkbox; CSS hides .pt-base when it is unchecked (works without script).
  bool any_base = std::any_of(ok.begin(), ok.end(), [](const ScatterPoint* p) { return has_baseline(*p); });
  if (any_base)
    html += "<input type=\"checkbox\" class=\"base-toggle\" id=\"" + id + "-base\" checked>";
  html += "<div class=\"legend\">" + gpus.legend_html() + "<span class=\"key\"><span class=\"mk dot\"></span>" +
          esc(chart.predicted_name.empty() ? "predicted" : chart.predicted_name) + "</span>";
  if (any_base)
    html += "<label class=\"key\" for=\"" + id + "-base\"><span class=\"mk ring lite\"></span>" +
            esc(chart.baseline_name.empty() ? "baseline" : chart.baseline_name) +
            " <span class=\"toggle-hint\">(click to show/hide)</span></label>";
  html += "</div>\n<div class=\"panels\">\n";
  if (ok.empty()) html += "<p class=\"empty\">No kernels with positive measured and predicted times.</p>\n";
  for (size_t f = 0; f < families.keys().size(); ++f) {
    std::vector<const ScatterPoint*> mine;
    for (const auto* p : ok)
      if (p->family == families.keys()[f]) mine.push_back(p);
    html += panel(chart, families.keys()[f], mine, gpus, id + "-" + std::to_string(f));
  }
  html += "</div>\n" + skipped_note(skipped, "kernels") + "</figure>\n";
  return html;
}

}  // namespace loom::report
