// The step timeline: lanes of events (e.g. GPU stream, launch gaps) on a zoomable time axis. Runs of events too
// small to see at full view are drawn as one hatched aggregate; zooming in (report JS) swaps in the single events.
#include <algorithm>
#include <cmath>
#include <map>

#include "report/charts.h"
#include "report/svg.h"

namespace loom::report {

namespace {

constexpr double kUnits = 1000;     // the plot's viewBox width: time maps onto 0..1000
constexpr double kLaneH = 26, kLaneGap = 8;
constexpr double kTinyUnits = 1.5;  // events narrower than this at full view (~0.15% of the span) are "tiny"

struct Placed {
  const TimelineEvent* e;
  double x, w;
};

std::string event_tip(const TimelineEvent& e, double t0) {
  return e.name + "\nfamily: " + e.family + "\nstart: +" + time_us(e.start_us - t0) + "\nduration: " +
         time_us(e.dur_us);
}

std::string aggregate_tip(const std::vector<Placed>& run, double t0) {
  double busy = 0;
  std::map<std::string, std::pair<int, double>> by_family;  // family -> (count, time)
  for (const auto& p : run) {
    busy += p.e->dur_us;
    by_family[p.e->family].first++;
    by_family[p.e->family].second += p.e->dur_us;
  }
  std::vector<std::pair<std::string, std::pair<int, double>>> fams(by_family.begin(), by_family.end());
  std::sort(fams.begin(), fams.end(), [](auto& a, auto& b) { return a.second.second > b.second.second; });
  double span = run.back().e->start_us + run.back().e->dur_us - run.front().e->start_us;
  std::string t = std::to_string(run.size()) + " small events (zoom in to see each)\nstart: +" +
                  time_us(run.front().e->start_us - t0) + "\nspan: " + time_us(span) + ", busy: " + time_us(busy);
  for (size_t i = 0; i < fams.size() && i < 5; ++i)
    t += "\n  " + fams[i].first + ": " + std::to_string(fams[i].second.first) + "×, " +
         time_us(fams[i].second.second);
  if (fams.size() > 5) t += "\n  ...";
  return t;
}

}  // namespace

std::string render_timeline(const Timeline& tl, size_t index) {
  std::vector<const TimelineEvent*> evs;
  size_t skipped = 0;
  double t0 = INFINITY, t1 = -INFINITY;
  int lanes = static_cast<int>(tl.lanes.size());
  for (const auto& e : tl.events) {
    if (!std::isfinite(e.start_us) || !(e.dur_us >= 0 && e.dur_us < 1e300) || e.lane < 0 || e.lane > 1000) {
      ++skipped;
      continue;
    }
    evs.push_back(&e);
    t0 = std::min(t0, e.start_us);
    t1 = std::max(t1, e.start_us + e.dur_us);
    lanes = std::max(lanes, e.lane + 1);
  }
  lanes = std::max(lanes, 1);
  if (!std::isfinite(t0)) t0 = 0, t1 = 1;
  double span = t1 > t0 ? t1 - t0 : 1;
  double height = lanes * (kLaneH + kLaneGap) + kLaneGap;
  auto to_x = [&](double t) { return (t - t0) / span * kUnits; };

  // Colours go to the first lane's families first (the GPU stream's kernels get the most distinct colours).
  ColourKeys families;
  for (int lane = 0; lane < lanes; ++lane)
    for (const auto* e : evs)
      if (e->lane == lane) families.index(e->family);
  std::string id = "timeline-" + std::to_string(index);
  std::string base, detail, aggs;
  size_t n_aggregates = 0;
  for (int lane = 0; lane < lanes; ++lane) {
    double y = kLaneGap + lane * (kLaneH + kLaneGap);
    base += "<rect class=\"tl-lane-bg\" x=\"0\" y=\"" + num(y) + "\" width=\"" + num(kUnits) + "\" height=\"" +
            num(kLaneH) + "\"/>\n";
    std::vector<Placed> lane_evs;
    for (const auto* e : evs)
      if (e->lane == lane) lane_evs.push_back({e, to_x(e->start_us), e->dur_us / span * kUnits});
    std::stable_sort(lane_evs.begin(), lane_evs.end(), [](auto& a, auto& b) { return a.x < b.x; });
    auto draw = [&](const Placed& p, std::string& out, double min_w) {
      std::string tip = event_tip(*p.e, t0);
      out += "<rect x=\"" + num(p.x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(p.w, min_w)) +
             "\" height=\"" + num(kLaneH) + "\" style=\"fill:" + colour(families.index(p.e->family)) +
             "\" data-tip=\"" + esc(tip) + "\"><title>" + esc(tip) + "</title></rect>\n";
    };
    // Group consecutive tiny events that sit close together into runs.
    for (size_t i = 0; i < lane_evs.size();) {
      if (lane_evs[i].w >= kTinyUnits) {
        draw(lane_evs[i++], base, 0.4);
        continue;
      }
      size_t j = i + 1;
      double run_end = lane_evs[i].x + lane_evs[i].w;
      while (j < lane_evs.size() && lane_evs[j].w < kTinyUnits && lane_evs[j].x - run_end < kTinyUnits) {
        run_end = std::max(run_end, lane_evs[j].x + lane_evs[j].w);
        ++j;
      }
      if (j - i == 1) {
        draw(lane_evs[i], base, 0.4);
      } else {
        std::vector<Placed> run(lane_evs.begin() + i, lane_evs.begin() + j);
        for (const auto& p : run) draw(p, detail, 0.05);
        std::string tip = aggregate_tip(run, t0);
        aggs += "<rect class=\"tl-agg\" x=\"" + num(run.front().x) + "\" y=\"" + num(y) + "\" width=\"" +
                num(std::max(run_end - run.front().x, 0.4)) + "\" height=\"" + num(kLaneH) + "\" data-tip=\"" +
                esc(tip) + "\"><title>" + esc(tip) + "</title></rect>\n";
        ++n_aggregates;
      }
      i = j;
    }
  }

  // Server-side ticks, so the axis reads right before (or without) the script; the script redraws on zoom.
  std::string ticks;
  for (double t : linear_ticks(0, span, 8))
    ticks += "<span style=\"left:" + num(100 * t / span) + "%\">" + esc(time_us(t)) + "</span>";

  std::string html = "<figure class=\"card wide\" id=\"" + id + "\">\n<figcaption>" +
                     esc(tl.title.empty() ? "Timeline" : tl.title) + " <span class=\"muted\">— " +
                     std::to_string(evs.size()) + " events over " + esc(time_us(t1 > t0 ? span : 0)) +
                     "</span></figcaption>\n";
  html += "<div class=\"legend\">" + families.legend_html();
  if (n_aggregates) html += "<span class=\"key\"><span class=\"sw agg\"></span>many small events</span>";
  html += "</div>\n<div class=\"tl-controls\"><button type=\"button\" data-zoom=\"in\">zoom in</button>"
          "<button type=\"button\" data-zoom=\"out\">zoom out</button><button type=\"button\" data-zoom=\"reset\">"
          "reset</button><span class=\"muted\">wheel over the plot: zoom · drag: pan · double-click: reset</span>"
          "</div>\n";
  html += "<div class=\"tl\" data-span-us=\"" + num(span) + "\">\n<div class=\"tl-lanes\" style=\"padding-top:" +
          num(kLaneGap) + "px\">";
  for (int lane = 0; lane < lanes; ++lane) {
    std::string name = lane < static_cast<int>(tl.lanes.size()) && !tl.lanes[lane].empty()
                           ? tl.lanes[lane]
                           : "lane " + std::to_string(lane);
    html += "<div style=\"height:" + num(kLaneH) + "px;margin-bottom:" + num(kLaneGap) + "px\">" + esc(name) +
            "</div>";
  }
  html += "</div>\n<div class=\"tl-main\">\n<svg class=\"tl-plot\" id=\"" + id + "-svg\" viewBox=\"0 0 " +
          num(kUnits) + " " + num(height) + "\" preserveAspectRatio=\"none\" height=\"" + num(height) +
          "\" role=\"img\" aria-label=\"" + esc(tl.title) + "\">\n" + base + "<g class=\"tl-agg-g\">\n" + aggs +
          "</g>\n<g class=\"tl-detail\">\n" + detail + "</g>\n</svg>\n<div class=\"tl-axis\">" + ticks +
          "</div>\n</div>\n</div>\n";
  html += skipped_note(skipped, "events") + "</figure>\n";
  return html;
}

}  // namespace loom::report
