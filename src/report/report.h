// The HTML report's input: plain data structs that other modules (analytical, trace, e2e, ...) fill, and the
// one renderer that turns them into a single self-contained HTML file (inline SVG, CSS and JS; no network).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace loom::report {

/// One horizontal compute ceiling of a roofline, e.g. {"bf16 tensor", 989e12}.
struct ComputeCeiling {
  std::string name;
  double flops_per_s = 0;
};

/// One kernel on a roofline: where the model puts it and, when a trace is given, where it really ran.
struct RooflinePoint {
  std::string label;   ///< kernel text, e.g. "gemm m=4096 n=4096 k=4096 dtype=bf16" (any characters)
  std::string family;  ///< colour key
  double intensity_flop_per_byte = 0;  ///< useful FLOP / DRAM bytes
  double predicted_flops_per_s = 0;
  std::optional<double> measured_flops_per_s;
};

/// A log-log roofline for one GPU: compute ceilings per dtype, DRAM and L2 bandwidth slopes, kernels.
struct RooflineChart {
  std::string gpu;
  std::vector<ComputeCeiling> ceilings;
  double dram_bytes_per_s = 0;
  double l2_bytes_per_s = 0;  ///< 0 = not drawn
  std::vector<RooflinePoint> points;
};

/// One kernel's predicted and measured time, and optionally a baseline model's prediction.
struct ScatterPoint {
  std::string label, family, gpu;
  double measured_us = 0, predicted_us = 0;
  std::optional<double> baseline_us;  ///< e.g. the pure analytical model; drawn lighter, with a show/hide toggle
};

/// Predicted vs measured, one small-multiple panel per family, one colour per GPU.
struct ScatterChart {
  std::string title;
  std::vector<ScatterPoint> points;
  std::string predicted_name;  ///< names the predictor in titles ("learned"); empty = "predicted"
  std::string baseline_name;   ///< names baseline_us ("analytical"); empty = "baseline"
  /// Draw at most this many points per family panel (0 = all), spread evenly over the measured times; MAPE and n
  /// always cover every point. Keeps pages of thousands of kernels small.
  size_t max_drawn_per_panel = 0;
};

/// One pipeline of a speed-of-light diagnosis.
struct SolBar {
  std::string pipe;         ///< "tensor", "dram", ...
  double time_us = 0;       ///< time at the pipeline's peak rate
  double share_of_ceiling = 0;  ///< time_us / ceiling_us (1 = the bottleneck)
  std::string demand_text;  ///< e.g. "137.4 GFLOP"
};

/// Per-pipeline speed-of-light bars for one kernel on one GPU.
struct SolBars {
  std::string kernel, gpu, bottleneck;
  double ceiling_us = 0;
  std::optional<double> measured_us;
  std::vector<SolBar> bars;
};

/// One interval on a timeline lane.
struct TimelineEvent {
  std::string name, family;
  double start_us = 0, dur_us = 0;
  int lane = 0;
};

/// A step timeline: lanes (e.g. "GPU stream", "launch gaps") of events; zoomable in the browser.
struct Timeline {
  std::string title;
  std::vector<std::string> lanes;  ///< lane names by index; missing names render as "lane N"
  std::vector<TimelineEvent> events;
};

/// A plain table (the what-if ranking); cells are text, numeric-looking cells are right-aligned.
struct RankedTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

/// One what-if change and its effect on TTFT and TPOT (negative = faster).
struct SensitivityBar {
  std::string gpu, change;
  double ttft_delta_pct = 0, tpot_delta_pct = 0;
};

/// Diverging bars around 0 for a set of what-if changes.
struct Sensitivity {
  std::string title;
  std::vector<SensitivityBar> bars;
};

/// One line of a line chart (points in x order).
struct LineSeries {
  std::string name;
  std::vector<double> x, y;
};

/// Lines over shared axes: latency CDFs (x log) or time series (x linear).
struct LineChart {
  std::string title, x_title, y_title, x_unit, y_unit;
  bool x_log = false;
  std::vector<LineSeries> series;
};

/// A whole report; sections render in the order roofline, speed of light, validation scatter, timeline, what-if.
/// Empty vectors produce no section.
struct Report {
  std::string title = "loom report";
  std::string subtitle;
  bool demo_data = false;  ///< true: a banner says the numbers are made-up demo data
  std::vector<RooflineChart> rooflines;
  std::vector<SolBars> sol;
  std::vector<ScatterChart> scatters;
  std::vector<Timeline> timelines;
  std::vector<RankedTable> tables;
  std::vector<Sensitivity> sensitivities;
  std::vector<LineChart> lines;  ///< serving simulation: latency CDFs and time series
};

/// The whole report as one self-contained HTML document (UTF-8). Never throws for any finite or non-finite
/// input: non-finite or non-positive values on log axes are left out of the charts and counted in a note.
std::string render_html(const Report& report);

/// A report that exercises every chart kind with made-up numbers (titled as demo data).
Report sample_report();

}  // namespace loom::report
