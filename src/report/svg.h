// A tiny SVG builder for the HTML report: escaping, finite number output, log/linear axes with readable ticks,
// and a colour-blind-friendly palette. Charts (roofline.cpp, scatter.cpp, ...) build on it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loom::report {

/// XML/HTML-escapes text for element content and attribute values (& < > " ').
std::string esc(std::string_view text);

/// A coordinate for SVG output: at most 2 decimals, no exponent; non-finite values become "0".
std::string num(double v);

/// A value with SI prefix and unit for labels and tooltips: "1 T", "2.5 GFLOP/s", "120 µs"; `digits` significant.
std::string si(double v, std::string_view unit = "", int digits = 3);

/// A duration in microseconds in the most readable unit: "850 ns", "12.3 µs", "4.1 ms", "2.0 s".
std::string time_us(double us);

/// Tick positions for a log axis over [lo, hi] (lo, hi > 0): the powers of ten inside, plus 2 and 5 multiples
/// when the range spans fewer than 3 decades. Always at least the two end points' decades when the range is tiny.
std::vector<double> log_ticks(double lo, double hi);

/// Evenly spaced "nice" ticks (1, 2, 5 × 10^k steps) covering [lo, hi], about `target` of them.
std::vector<double> linear_ticks(double lo, double hi, int target = 6);

/// Maps a data value onto pixels, logarithmically or linearly.
struct Axis {
  double lo = 1, hi = 10;        ///< data range (both > 0 for log)
  double px_lo = 0, px_hi = 100; ///< pixel positions of lo and hi (px_hi < px_lo for y axes)
  bool log = true;
  double operator()(double v) const;
};

/// Pads a positive data range [lo, hi] outwards to whole decades (log) so ticks land on the frame.
void widen_to_decades(double& lo, double& hi);

/// The colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008), black left out.
const std::vector<std::string>& palette();
/// Stable colour for the i-th key of a legend.
const std::string& colour(size_t i);

/// An SVG document under construction. All text passed in is escaped here; `tip` text becomes a <title> child
/// (native tooltip) and a data-tip attribute (the report's hover box); "\n" in a tip separates lines.
class Svg {
 public:
  Svg(double width, double height, std::string_view id, std::string_view aria_label);
  Svg& line(double x1, double y1, double x2, double y2, std::string_view cls, std::string_view style = "");
  Svg& rect(double x, double y, double w, double h, std::string_view cls, std::string_view style = "",
            std::string_view tip = "");
  Svg& circle(double cx, double cy, double r, std::string_view cls, std::string_view style = "",
              std::string_view tip = "");
  /// A diamond (measured points) centred on (cx, cy).
  Svg& diamond(double cx, double cy, double r, std::string_view cls, std::string_view style = "",
               std::string_view tip = "");
  Svg& polygon(const std::vector<std::pair<double, double>>& pts, std::string_view cls, std::string_view style = "");
  /// anchor: "start" | "middle" | "end"; rotate_deg turns the text about (x, y).
  Svg& text(double x, double y, std::string_view content, std::string_view cls, std::string_view anchor = "start",
            double rotate_deg = 0);
  /// Raw markup, already escaped by the caller.
  Svg& raw(std::string_view markup);

  /// Axis frame helpers: ticks, grid lines and labels on the bottom (x) or left (y) of a plot rectangle.
  void x_axis(const Axis& ax, double y_bottom, double y_top, std::string_view unit, std::string_view title);
  void y_axis(const Axis& ax, double x_left, double x_right, std::string_view unit, std::string_view title);

  std::string str() const;

 private:
  std::string body_;
  double width_, height_;
  std::string id_, aria_;
};

}  // namespace loom::report
