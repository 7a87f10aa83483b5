// Unit tests for the HTML report's charts: each renders with 0, 1 and many points, never writes NaN/inf, escapes
// kernel names, and the page references nothing outside itself.
#include <cmath>
#include <regex>

#include <gtest/gtest.h>

#include "report/report.h"

namespace loom::report {
namespace {

const double kNaN = std::nan("");
const std::string kNasty = "void cutlass::Kernel<Gemm<bf16, 128>> & \"epilogue\"";

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

/// Properties every rendered page must have, whatever the data.
void expect_clean(const std::string& html) {
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  static const std::regex bad_number(R"([^A-Za-z](nan|NaN|-?inf|Infinity)[^A-Za-z])");
  std::smatch m;
  EXPECT_FALSE(std::regex_search(html, m, bad_number)) << "non-finite number near: " << m.str();
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
  EXPECT_EQ(count(html, "<figure"), count(html, "</figure>"));
  EXPECT_EQ(html.find(kNasty), std::string::npos) << "unescaped kernel name";
  // url(...) is only ever a reference into the page itself (clip paths).
  for (size_t p = html.find("url("); p != std::string::npos; p = html.find("url(", p + 1))
    EXPECT_EQ(html.substr(p, 5), "url(#");
}

RooflineChart roofline(size_t n) {
  RooflineChart c{"H100 SXM", {{"bf16 tensor", 989e12}, {"fp32", 67e12}}, 3.35e12, 11e12, {}};
  for (size_t i = 0; i < n; ++i) {
    double ai = std::pow(10.0, -1 + 5.0 * i / std::max<size_t>(n, 1));
    RooflinePoint p{kNasty + " #" + std::to_string(i), i % 2 ? "gemm" : "norm", ai,
                    std::min(989e12, 3.35e12 * ai) * 0.7, std::nullopt};
    if (i % 3 == 0) p.measured_flops_per_s = p.predicted_flops_per_s * 0.8;
    c.points.push_back(p);
  }
  return c;
}

ScatterChart scatter(size_t n) {
  ScatterChart s{"validation", {}};
  for (size_t i = 0; i < n; ++i)
    s.points.push_back({kNasty, i % 3 ? "gemm" : "attention", i % 2 ? "H100" : "A100", 1.0 + i, (1.0 + i) * 1.1});
  return s;
}

SolBars sol(size_t n) {
  SolBars s{kNasty, "H100", "tensor", 100, 130.0, {}};
  const char* pipes[] = {"tensor", "dram", "l2", "smem", "alu", "fma", "sfu"};
  for (size_t i = 0; i < n; ++i) s.bars.push_back({pipes[i % 7], 100.0 / (1 + i), 1.0 / (1 + i), "1 GB"});
  return s;
}

Timeline timeline(size_t n) {
  Timeline t{"step", {"GPU", "gaps"}, {}};
  for (size_t i = 0; i < n; ++i) t.events.push_back({kNasty, i % 4 ? "gemm" : "norm", 3.0 * i, 2.0, int(i % 2)});
  return t;
}

Sensitivity sensitivity(size_t n) {
  Sensitivity s{"what-if", {}};
  for (size_t i = 0; i < n; ++i) s.bars.push_back({"H100", kNasty, -10.0 + 3 * i, 5.0 - 2 * i});
  return s;
}

RankedTable table(size_t n) {
  RankedTable t{"ranking", {"rank", "GPU", "TPOT"}, {}};
  for (size_t i = 0; i < n; ++i) t.rows.push_back({std::to_string(i + 1), kNasty, "4.1 ms"});
  return t;
}

Report with_everything(size_t n) {
  Report r;
  r.title = kNasty;
  r.rooflines = {roofline(n)};
  r.sol = {sol(n)};
  r.scatters = {scatter(n)};
  r.timelines = {timeline(n)};
  r.tables = {table(n)};
  r.sensitivities = {sensitivity(n)};
  return r;
}

TEST(ReportCharts, EmptyReportRenders) {
  std::string html = render_html(Report{});
  expect_clean(html);
  EXPECT_NE(html.find("no sections"), std::string::npos);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
}

class ReportChartsN : public ::testing::TestWithParam<size_t> {};

TEST_P(ReportChartsN, EveryChartRendersClean) {
  std::string html = render_html(with_everything(GetParam()));
  expect_clean(html);
  for (const char* id : {"id=\"roofline\"", "id=\"roofline-h100-sxm\"", "id=\"sol\"", "id=\"scatter\"",
                         "id=\"timeline\"", "id=\"whatif\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
}

INSTANTIATE_TEST_SUITE_P(PointCounts, ReportChartsN, ::testing::Values(0, 1, 2, 7, 500));

TEST(ReportCharts, NonFiniteAndNonPositiveValuesAreLeftOutAndCounted) {
  Report r = with_everything(3);
  r.rooflines[0].points.push_back({"bad", "gemm", kNaN, 1e12, std::nullopt});
  r.rooflines[0].points.push_back({"bad", "gemm", 10, -1, std::nullopt});
  r.rooflines[0].points.push_back({"bad", "gemm", 10, 1e12, kNaN});  // measured NaN: prediction still drawn
  r.rooflines[0].dram_bytes_per_s = kNaN;
  r.rooflines[0].ceilings.push_back({"broken", INFINITY});
  r.scatters[0].points.push_back({"bad", "gemm", "H100", 0, 5});
  r.scatters[0].points.push_back({"bad", "gemm", "H100", kNaN, 5});
  r.sol[0].bars.push_back({"dram", kNaN, kNaN, ""});
  r.sol[0].ceiling_us = kNaN;
  r.sol[0].measured_us = -3;
  r.timelines[0].events.push_back({"bad", "x", kNaN, 1, 0});
  r.timelines[0].events.push_back({"bad", "x", 1, -1, 0});
  r.sensitivities[0].bars.push_back({"H100", "bad", kNaN, 1});
  std::string html = render_html(r);
  expect_clean(html);
  EXPECT_NE(html.find("2 kernels not drawn"), std::string::npos);  // roofline: NaN intensity, negative FLOP/s
  EXPECT_NE(html.find("2 events not drawn"), std::string::npos);
  EXPECT_NE(html.find("1 pipelines not drawn"), std::string::npos);
  EXPECT_NE(html.find("1 changes not drawn"), std::string::npos);
}

TEST(ReportCharts, ScatterPanelTitleCarriesMape) {
  Report r;
  r.scatters = {
      {"v", {{"a", "gemm", "H100", 100, 110}, {"b", "gemm", "H100", 100, 90}, {"c", "norm", "A100", 10, 15}}}};
  std::string html = render_html(r);
  EXPECT_NE(html.find("gemm — MAPE 10% (n=2)"), std::string::npos);
  EXPECT_NE(html.find("norm — MAPE 50% (n=1)"), std::string::npos);
}

TEST(ReportCharts, SolHighlightsTheBottleneckAndMarksMeasured) {
  Report r;
  r.sol = {sol(3)};
  std::string html = render_html(r);
  EXPECT_EQ(count(html, "class=\"bar bar-hot\""), 1u);
  EXPECT_NE(html.find("measured-line"), std::string::npos);
  EXPECT_NE(html.find("1.3× the ceiling"), std::string::npos);
}

TEST(ReportCharts, TimelineAggregatesOnlyTinyEvents) {
  Report big;
  big.timelines = {{"t", {}, {{"a", "x", 0, 100, 0}, {"b", "x", 100, 100, 0}}}};
  EXPECT_EQ(render_html(big).find("class=\"tl-agg\""), std::string::npos);
  Report tiny;
  tiny.timelines = {{"t", {}, {{"long", "x", 0, 10000, 0}}}};
  for (int i = 0; i < 200; ++i) tiny.timelines[0].events.push_back({"k", "y", 10000.0 + i, 0.5, 0});
  std::string html = render_html(tiny);
  EXPECT_NE(html.find("class=\"tl-agg\""), std::string::npos);
  EXPECT_NE(html.find("200 small events"), std::string::npos);
  expect_clean(html);
}

TEST(ReportCharts, RooflineDrawsOneLinePerCeilingAndLinksMeasured) {
  Report r;
  r.rooflines = {roofline(3)};  // points 0 has a measurement
  std::string html = render_html(r);
  EXPECT_EQ(count(html, "class=\"roof-compute\""), 1u);
  EXPECT_EQ(count(html, "class=\"roof-compute-lo\""), 1u);
  EXPECT_EQ(count(html, "class=\"roof-dram\""), 1u);
  EXPECT_EQ(count(html, "class=\"roof-l2\""), 1u);
  EXPECT_EQ(count(html, "class=\"link\""), 1u);
  EXPECT_EQ(count(html, "class=\"pt-pred\""), 3u);
  EXPECT_NE(html.find("989 TFLOP/s"), std::string::npos);
}

TEST(ReportCharts, DemoBannerOnlyForDemoData) {
  Report r;
  EXPECT_EQ(render_html(r).find("demo-banner"), std::string::npos);
  r.demo_data = true;
  EXPECT_NE(render_html(r).find("demo-banner"), std::string::npos);
  std::string sample = render_html(sample_report());
  expect_clean(sample);
  EXPECT_NE(sample.find("demo-banner"), std::string::npos);
}

TEST(ReportCharts, TableRightAlignsNumbers) {
  Report r;
  r.tables = {{"t", {"rank", "GPU"}, {{"1", "<B200>"}, {"x"}}}};
  std::string html = render_html(r);
  EXPECT_NE(html.find("<td class=\"num\">1</td><td>&lt;B200&gt;</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>x</td><td></td>"), std::string::npos);  // short rows are padded
}

}  // namespace
}  // namespace loom::report
