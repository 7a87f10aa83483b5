// A tiny SVG builder for the HTML report: escaping, number formatting, axes and ticks, palette.
#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loom::report {

std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += "&#10;"; break;
      default:
        // Control characters other than tab are not allowed in XML 1.0: drop them.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') break;
        out += c;
    }
  }
  return out;
}

namespace {
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

/// `digits` significant digits, no exponent, trailing zeros trimmed.
std::string sig(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  int decimals = std::clamp(digits - 1 - mag, 0, 9);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return trim_zeros(buf);
}
}  // namespace

std::string num(double v) {
  if (!std::isfinite(v)) return "0";
  v = std::clamp(v, -1e7, 1e7);  // coordinates far outside any chart are clipped anyway
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return trim_zeros(buf);
}

std::string si(double v, std::string_view unit, int digits) {
  if (!std::isfinite(v)) return "n/a";
  static const char* kBig[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* kSmall[] = {"", "m", "µ", "n", "p"};
  std::string u(unit);
  double a = std::fabs(v);
  std::string space = u.empty() ? "" : " ";
  if (a >= 1000) {
    int i = 0;
    while (a >= 999.95 && i < 6) {
      a /= 1000;
      v /= 1000;
      ++i;
    }
    return sig(v, digits) + " " + kBig[i] + u;
  }
  if (a < 1 && a > 0 && u == "s") {  // sub-unit prefixes only where people use them (seconds)
    int i = 0;
    while (a < 0.99995 && i < 4) {
      a *= 1000;
      v *= 1000;
      ++i;
    }
    return sig(v, digits) + " " + kSmall[i] + u;
  }
  return sig(v, digits) + space + u;
}

std::string time_us(double us) { return us == 0 ? "0" : si(us * 1e-6, "s"); }

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return ticks;
  int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  bool fine = d1 - d0 < 3;
  for (int d = d0; d <= d1 && ticks.size() < 64; ++d) {
    double p = std::pow(10.0, d);
    for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      double t = p * m;
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
    }
  }
  return ticks;
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo) || target < 1) return ticks;
  double raw = (hi - lo) / target;
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  // Heckbert, "Nice numbers for graph labels", Graphics Gems (1990): round the raw step to 1, 2 or 5 x 10^k.
  double step = p * (raw / p < 1.5 ? 1 : raw / p < 3 ? 2 : raw / p < 7 ? 5 : 10);
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && ticks.size() < 100; t += step)
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

double Axis::operator()(double v) const {
  double f = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
  if (!std::isfinite(f)) f = 0;
  return px_lo + f * (px_hi - px_lo);
}

void widen_to_decades(double& lo, double& hi) {
  if (!(lo > 0) || !std::isfinite(lo)) lo = 1;
  if (!(hi > lo) || !std::isfinite(hi)) hi = lo * 10;
  lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
  hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
  if (hi <= lo) hi = lo * 10;
}

const std::vector<std::string>& palette() {
  // Okabe & Ito (2008) "Color Universal Design", reordered so the first colours differ most; then three of Paul
  // Tol's "muted" scheme (indigo, wine, sand) so the nine kernel families of the corpus get nine colours.
  static const std::vector<std::string> p = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9",
                                             "#8C6D1F", "#999999", "#332288", "#882255", "#DDCC77"};
  return p;
}

const std::string& colour(size_t i) { return palette()[i % palette().size()]; }

Svg::Svg(double width, double height, std::string_view id, std::string_view aria_label)
    : width_(width), height_(height), id_(id), aria_(aria_label) {}

namespace {
std::string attrs(std::string_view cls, std::string_view style, std::string_view tip) {
  std::string a;
  if (!cls.empty()) a += " class=\"" + esc(cls) + "\"";
  if (!style.empty()) a += " style=\"" + esc(style) + "\"";
  if (!tip.empty()) a += " data-tip=\"" + esc(tip) + "\"";
  return a;
}
std::string close_with_tip(std::string_view tag, std::string_view tip) {
  if (tip.empty()) return "/>\n";
  return "><title>" + esc(tip) + "</title></" + std::string(tag) + ">\n";
}
}  // namespace

Svg& Svg::line(double x1, double y1, double x2, double y2, std::string_view cls, std::string_view style) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\"" +
           attrs(cls, style, "") + "/>\n";
  return *this;
}

Svg& Svg::rect(double x, double y, double w, double h, std::string_view cls, std::string_view style,
               std::string_view tip) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.0)) + "\" height=\"" +
           num(std::max(h, 0.0)) + "\"" + attrs(cls, style, tip) + close_with_tip("rect", tip);
  return *this;
}

Svg& Svg::circle(double cx, double cy, double r, std::string_view cls, std::string_view style,
                 std::string_view tip) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\"" + attrs(cls, style, tip) +
           close_with_tip("circle", tip);
  return *this;
}

Svg& Svg::diamond(double cx, double cy, double r, std::string_view cls, std::string_view style,
                  std::string_view tip) {
  body_ += "<path d=\"M" + num(cx) + " " + num(cy - r) + "L" + num(cx + r) + " " + num(cy) + "L" + num(cx) + " " +
           num(cy + r) + "L" + num(cx - r) + " " + num(cy) + "Z\"" + attrs(cls, style, tip) +
           close_with_tip("path", tip);
  return *this;
}

Svg& Svg::polygon(const std::vector<std::pair<double, double>>& pts, std::string_view cls, std::string_view style) {
  std::string p;
  for (const auto& [x, y] : pts) p += num(x) + "," + num(y) + " ";
  body_ += "<polygon points=\"" + p + "\"" + attrs(cls, style, "") + "/>\n";
  return *this;
}

Svg& Svg::text(double x, double y, std::string_view content, std::string_view cls, std::string_view anchor,
               double rotate_deg) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + attrs(cls, "", "");
  if (anchor != "start") body_ += " text-anchor=\"" + esc(anchor) + "\"";
  if (rotate_deg != 0) body_ += " transform=\"rotate(" + num(rotate_deg) + " " + num(x) + " " + num(y) + ")\"";
  body_ += '>';
  body_ += esc(content);
  body_ += "</text>\n";
  return *this;
}

Svg& Svg::raw(std::string_view markup) {
  body_ += markup;
  return *this;
}

namespace {
std::string tick_label(double v, std::string_view unit) { return unit == "us" ? time_us(v) : si(v, ""); }
}  // namespace

void Svg::x_axis(const Axis& ax, double y_bottom, double y_top, std::string_view unit, std::string_view title) {
  auto ticks = ax.log ? log_ticks(ax.lo, ax.hi) : linear_ticks(ax.lo, ax.hi);
  size_t stride = (ticks.size() + 9) / 10;  // at most ~10 labels, however many decades
  for (size_t i = 0; i < ticks.size(); ++i) {
    double x = ax(ticks[i]);
    line(x, y_top, x, y_bottom, "grid");
    line(x, y_bottom, x, y_bottom + 5, "tick");
    if (i % stride == 0) text(x, y_bottom + 18, tick_label(ticks[i], unit), "tick-label", "middle");
  }
  line(ax.px_lo, y_bottom, ax.px_hi, y_bottom, "frame");
  if (!title.empty()) text((ax.px_lo + ax.px_hi) / 2, y_bottom + 38, title, "axis-title", "middle");
}

void Svg::y_axis(const Axis& ax, double x_left, double x_right, std::string_view unit, std::string_view title) {
  auto ticks = ax.log ? log_ticks(ax.lo, ax.hi) : linear_ticks(ax.lo, ax.hi);
  size_t stride = (ticks.size() + 9) / 10;
  for (size_t i = 0; i < ticks.size(); ++i) {
    double y = ax(ticks[i]);
    line(x_left, y, x_right, y, "grid");
    line(x_left - 5, y, x_left, y, "tick");
    if (i % stride == 0) text(x_left - 8, y + 4, tick_label(ticks[i], unit), "tick-label", "end");
  }
  line(x_left, ax.px_lo, x_left, ax.px_hi, "frame");
  if (!title.empty()) text(x_left - 50, (ax.px_lo + ax.px_hi) / 2, title, "axis-title", "middle", -90);
}

std::string Svg::str() const {
  return "<svg id=\"" + esc(id_) + "\" class=\"chart\" style=\"max-width:" + num(width_) + "px\" viewBox=\"0 0 " +
         num(width_) + " " + num(height_) + "\" role=\"img\" aria-label=\"" + esc(aria_) + "\">\n" + body_ +
         "</svg>\n";
}

}  // namespace loom::report
