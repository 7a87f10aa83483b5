// The roofline chart (Williams, Waterman & Patterson, "Roofline", CACM 2009): log-log attainable FLOP/s vs
// arithmetic intensity, one compute ceiling per dtype, DRAM and L2 bandwidth slopes, kernels placed on it.
#include <algorithm>
#include <cmath>

#include "report/charts.h"
#include "report/svg.h"

namespace loom::report {

namespace {

constexpr double kW = 640, kH = 450;
constexpr double kLeft = 72, kRight = 628, kTop = 14, kBottom = 396;

struct Slope {
  std::string name;
  double bytes_per_s;
  std::string cls;
};

/// Degrees to rotate a label so it runs along a slope-1 line in log-log pixel space.
double slope_angle_deg(const Axis& x, const Axis& y) {
  double px_per_decade_x = (x.px_hi - x.px_lo) / std::log10(x.hi / x.lo);
  double px_per_decade_y = (y.px_lo - y.px_hi) / std::log10(y.hi / y.lo);
  return -std::atan2(px_per_decade_y, px_per_decade_x) * 180.0 / M_PI;
}

std::string point_tip(const RooflinePoint& p, double roof) {
  std::string t = p.label + "\nfamily: " + p.family + "\nintensity: " + si(p.intensity_flop_per_byte, "FLOP/B") +
                  "\npredicted: " + si(p.predicted_flops_per_s, "FLOP/s");
  if (positive(roof)) t += " (" + si(100 * p.predicted_flops_per_s / roof, "", 3) + "% of roof)";
  if (p.measured_flops_per_s) {
    t += "\nmeasured: " + si(*p.measured_flops_per_s, "FLOP/s");
    if (positive(p.predicted_flops_per_s))
      t += " (measured/predicted " + si(*p.measured_flops_per_s / p.predicted_flops_per_s, "", 3) + "x)";
  }
  return t;
}

}  // namespace

std::string render_roofline(const RooflineChart& c) {
  std::vector<Slope> slopes;
  if (positive(c.l2_bytes_per_s)) slopes.push_back({"L2", c.l2_bytes_per_s, "roof-l2"});
  if (positive(c.dram_bytes_per_s)) slopes.push_back({"DRAM", c.dram_bytes_per_s, "roof-dram"});
  std::vector<ComputeCeiling> ceilings;
  for (const auto& cc : c.ceilings)
    if (positive(cc.flops_per_s)) ceilings.push_back(cc);
  std::sort(ceilings.begin(), ceilings.end(), [](auto& a, auto& b) { return a.flops_per_s > b.flops_per_s; });
  double top_flops = ceilings.empty() ? 0 : ceilings.front().flops_per_s;
  double top_bw = slopes.empty() ? 0 : std::max_element(slopes.begin(), slopes.end(), [](auto& a, auto& b) {
                                         return a.bytes_per_s < b.bytes_per_s;
                                       })->bytes_per_s;

  // Data ranges: every drawable point plus each ceiling's ridge with DRAM, padded and widened to decades.
  std::vector<const RooflinePoint*> pts;
  size_t skipped = 0;
  double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = top_flops;
  for (const auto& p : c.points) {
    if (!positive(p.intensity_flop_per_byte) || !positive(p.predicted_flops_per_s)) {
      ++skipped;
      continue;
    }
    pts.push_back(&p);
    xlo = std::min(xlo, p.intensity_flop_per_byte);
    xhi = std::max(xhi, p.intensity_flop_per_byte);
    ylo = std::min(ylo, p.predicted_flops_per_s);
    yhi = std::max(yhi, p.predicted_flops_per_s);
    if (p.measured_flops_per_s && positive(*p.measured_flops_per_s)) {
      ylo = std::min(ylo, *p.measured_flops_per_s);
      yhi = std::max(yhi, *p.measured_flops_per_s);
    }
  }
  double ridge_bw = positive(c.dram_bytes_per_s) ? c.dram_bytes_per_s : top_bw;
  for (const auto& cc : ceilings)
    if (positive(ridge_bw)) {
      xlo = std::min(xlo, cc.flops_per_s / ridge_bw / 20);
      xhi = std::max(xhi, cc.flops_per_s / ridge_bw * 5);
    }
  if (!std::isfinite(xlo)) xlo = 0.1, xhi = 1000;
  xlo /= 1.5, xhi *= 1.5;
  widen_to_decades(xlo, xhi);
  if (positive(c.dram_bytes_per_s)) ylo = std::min(ylo, c.dram_bytes_per_s * xlo);
  if (!std::isfinite(ylo)) ylo = yhi > 0 ? yhi / 1e4 : 1e9;
  if (!(yhi > 0)) yhi = ylo * 1e4;
  // The bottom snaps to a decade; the top only gets headroom for the ceiling labels (a whole decade is waste).
  double top = yhi * 1.8;
  ylo /= 1.5;
  widen_to_decades(ylo, yhi);
  yhi = top;
  // Keep at most 7 decades of y so the roof stays readable; points far below are clamped to the frame.
  ylo = std::max(ylo, std::pow(10.0, std::floor(std::log10(yhi / 1e7))));

  Axis x{xlo, xhi, kLeft, kRight, true};
  Axis y{ylo, yhi, kBottom, kTop, true};
  std::string id = "roofline-" + slug(c.gpu);
  Svg svg(kW, kH, id + "-svg", "Roofline of " + c.gpu);
  svg.raw("<defs><clipPath id=\"" + esc(id) + "-clip\"><rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) +
          "\" width=\"" + num(kRight - kLeft) + "\" height=\"" + num(kBottom - kTop) + "\"/></clipPath></defs>\n");
  svg.x_axis(x, kBottom, kTop, "", "arithmetic intensity (FLOP / DRAM byte)");
  svg.y_axis(y, kLeft, kRight, "", "attainable FLOP/s");
  svg.raw("<g clip-path=\"url(#" + esc(id) + "-clip)\">\n");

  // Bandwidth slopes: y = bw * I, from the left edge up to the highest compute ceiling.
  double angle = slope_angle_deg(x, y);
  for (const auto& s : slopes) {
    double i_end = top_flops > 0 ? std::min(xhi, top_flops / s.bytes_per_s) : xhi;
    svg.line(x(xlo), y(s.bytes_per_s * xlo), x(i_end), y(s.bytes_per_s * i_end), s.cls);
    // Label a third of the way along the visible part of the slope, just above the line.
    double i_start = std::max(xlo, ylo / s.bytes_per_s);
    double i_lab = std::pow(10.0, std::log10(i_start) + 0.3 * std::log10(i_end / i_start));
    svg.text(x(i_lab), y(s.bytes_per_s * i_lab) - 6, s.name + " " + si(s.bytes_per_s, "B/s"), "roof-label", "start",
             angle);
  }
  // Compute ceilings: horizontal from where they meet the fastest slope to the right edge.
  double last_label_y = -1e9;
  for (size_t k = 0; k < ceilings.size(); ++k) {
    const auto& cc = ceilings[k];
    double i_start = positive(top_bw) ? std::max(xlo, cc.flops_per_s / top_bw) : xlo;
    double ly = y(cc.flops_per_s);
    svg.line(x(i_start), ly, x(xhi), ly, k == 0 ? "roof-compute" : "roof-compute-lo");
    // Labels sit above their line unless that would overlap the label above (ceilings close together); then
    // below it, and when even that collides, a row further down.
    double label_y = ly - 6;
    if (label_y - last_label_y < 13) label_y = std::max(ly + 14, last_label_y + 13);
    svg.text(kRight - 6, label_y, cc.name + " " + si(cc.flops_per_s, "FLOP/s"), "roof-label", "end");
    last_label_y = label_y;
  }

  // Kernels: predicted as rings, measured as diamonds tied to their prediction by a thin line.
  ColourKeys families;
  for (const auto* p : pts) families.index(p->family);
  auto clamp_y = [&](double v) { return std::clamp(y(v), kTop, kBottom); };
  for (const auto* p : pts) {
    if (p->measured_flops_per_s && positive(*p->measured_flops_per_s))
      svg.line(x(p->intensity_flop_per_byte), clamp_y(p->predicted_flops_per_s), x(p->intensity_flop_per_byte),
               clamp_y(*p->measured_flops_per_s), "link", "stroke:" + colour(families.index(p->family)));
  }
  bool any_measured = false;
  for (const auto* p : pts) {
    double roof = top_flops > 0 && ridge_bw > 0 ? std::min(top_flops, ridge_bw * p->intensity_flop_per_byte) : 0;
    std::string tip = point_tip(*p, roof);
    const std::string& col = colour(families.index(p->family));
    double px = x(p->intensity_flop_per_byte);
    svg.circle(px, clamp_y(p->predicted_flops_per_s), 5, "pt-pred", "stroke:" + col, tip);
    if (p->measured_flops_per_s && positive(*p->measured_flops_per_s)) {
      any_measured = true;
      svg.diamond(px, clamp_y(*p->measured_flops_per_s), 5.5, "pt-meas", "fill:" + col, tip);
    }
  }
  svg.raw("</g>\n");

  std::string html = "<figure class=\"card\" id=\"" + esc(id) + "\">\n<figcaption>Roofline — " + esc(c.gpu) +
                     "</figcaption>\n" + svg.str();
  html += "<div class=\"legend\">" + families.legend_html() + "<span class=\"key\"><span class=\"mk ring\"></span>" +
          "predicted</span>";
  if (any_measured) html += "<span class=\"key\"><span class=\"mk dia\"></span>measured</span>";
  html += "</div>\n" + skipped_note(skipped, "kernels") + "</figure>\n";
  return html;
}

}  // namespace loom::report
