// Assembles the report page: one HTML document with the charts' inline SVG, the stylesheet and the small
// script (hover box, timeline zoom) inlined, so the file opens anywhere with no network.
#include <cctype>

#include "report/charts.h"
#include "report/page_assets.h"
#include "report/svg.h"

#ifndef LOOM_VERSION
#define LOOM_VERSION "dev"
#endif

namespace loom::report {

std::string slug(const std::string& text) {
  std::string s;
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      s += static_cast<char>(std::tolower(c));
    } else if (!s.empty() && s.back() != '-') {
      s += '-';
    }
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "x" : s;
}

size_t ColourKeys::index(const std::string& key) {
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  index_[key] = keys_.size();
  keys_.push_back(key);
  return keys_.size() - 1;
}

std::string ColourKeys::legend_html() const {
  std::string h;
  for (size_t i = 0; i < keys_.size(); ++i)
    h += "<span class=\"key\"><span class=\"sw\" style=\"background:" + colour(i) + "\"></span>" +
         esc(keys_[i].empty() ? "(none)" : keys_[i]) + "</span>";
  return h;
}

std::string skipped_note(size_t skipped, const std::string& what) {
  if (skipped == 0) return "";
  return "<p class=\"note\">" + std::to_string(skipped) + " " + esc(what) +
         " not drawn: zero, negative or non-finite values cannot be placed on these axes.</p>\n";
}

namespace {

std::string section(const std::string& id, const std::string& title, const std::string& how_to_read,
                    const std::string& body) {
  return "<section id=\"" + id + "\">\n<h2>" + esc(title) + "</h2>\n<p class=\"lead\">" + esc(how_to_read) +
         "</p>\n" + body + "</section>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  struct Part {
    std::string id, title, body;
  };
  std::vector<Part> parts;
  std::string body;
  if (!r.rooflines.empty()) {
    body = "<div class=\"grid2\">\n";
    for (const auto& c : r.rooflines) body += render_roofline(c);
    body += "</div>\n";
    parts.push_back({"roofline",
                     "Roofline",
                     section("roofline", "Roofline",
                             "Attainable FLOP/s against arithmetic intensity, log-log. Slanted lines are memory "
                             "bandwidth limits, flat lines compute limits per data type. Rings are loom's "
                             "predictions; diamonds (when traces are given) are measurements, joined to their "
                             "prediction by a thin line.",
                             body)});
  }
  if (!r.sol.empty()) {
    body = "<div class=\"grid2\">\n";
    for (size_t i = 0; i < r.sol.size(); ++i) body += render_sol(r.sol[i], i);
    body += "</div>\n";
    parts.push_back({"sol", "Speed of light",
                     section("sol", "Speed of light",
                             "Each pipeline's time if it ran at its peak rate. The longest bar is the ceiling "
                             "(the bottleneck, highlighted); the measured time, when known, is the black marker.",
                             body)});
  }
  if (!r.scatters.empty()) {
    body.clear();
    for (size_t i = 0; i < r.scatters.size(); ++i) body += render_scatter(r.scatters[i], i);
    parts.push_back({"scatter", "Predicted vs measured",
                     section("scatter", "Predicted vs measured",
                             "One panel per kernel family, log-log. Points on the diagonal are exact; the shaded "
                             "bands are ±10% and ±25%. MAPE = mean absolute percentage error.",
                             body)});
  }
  if (!r.timelines.empty()) {
    body.clear();
    for (size_t i = 0; i < r.timelines.size(); ++i) body += render_timeline(r.timelines[i], i);
    parts.push_back({"timeline", "Timeline",
                     section("timeline", "Timeline",
                             "One step of the workload, lane by lane. Runs of events too short to see are shown "
                             "grey until you zoom in.",
                             body)});
  }
  if (!r.tables.empty() || !r.sensitivities.empty()) {
    body.clear();
    for (size_t i = 0; i < r.tables.size(); ++i) body += render_table(r.tables[i], i);
    for (size_t i = 0; i < r.sensitivities.size(); ++i) body += render_sensitivity(r.sensitivities[i], i);
    parts.push_back({"whatif", "What-if",
                     section("whatif", "What-if",
                             "GPUs ranked for the workload, and how TTFT (time to first token) and TPOT (time per "
                             "output token) move under each change.",
                             body)});
  }

  if (!r.lines.empty()) {
    body = "<div class=\"grid2\">\n";
    for (size_t i = 0; i < r.lines.size(); ++i) body += render_lines(r.lines[i], i);
    body += "</div>\n";
    parts.push_back({"serving", "Serving",
                     section("serving", "Serving simulation",
                             "Latency distributions over every request (cumulative: the share of requests at or "
                             "below each latency) and the engine's state over time.",
                             body)});
  }

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"loom " LOOM_VERSION "\">\n<title>" +
                     esc(r.title) + "</title>\n<style>\n" + std::string(kPageCss) + "</style>\n</head>\n<body>\n";
  html += "<header>\n<h1>" + esc(r.title) + "</h1>\n";
  if (!r.subtitle.empty()) html += "<p class=\"subtitle\">" + esc(r.subtitle) + "</p>\n";
  if (r.demo_data)
    html += "<p class=\"demo\" id=\"demo-banner\"><b>Demo data.</b> Every number on this page is made up to show "
            "the charts; none of it is a prediction or a measurement.</p>\n";
  html += "<nav>";
  for (const auto& p : parts) html += "<a href=\"#" + p.id + "\">" + esc(p.title) + "</a>";
  html += "</nav>\n</header>\n<main>\n";
  if (parts.empty()) html += "<p class=\"empty\">This report has no sections.</p>\n";
  for (const auto& p : parts) html += p.body;
  html += "</main>\n<footer>generated by loom " LOOM_VERSION " · self-contained: no network needed</footer>\n"
          "<div id=\"loom-tip\" role=\"tooltip\" hidden></div>\n<script>\n" +
          std::string(kPageJs) + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace loom::report
