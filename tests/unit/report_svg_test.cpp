// Unit tests for the report's SVG helpers: escaping, number output, SI labels, log and linear ticks.
#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "report/svg.h"

namespace loom::report {
namespace {

TEST(ReportSvg, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(esc("void k<float, 4>(a && b) \"q\" 'x'"),
            "void k&lt;float, 4&gt;(a &amp;&amp; b) &quot;q&quot; &#39;x&#39;");
  EXPECT_EQ(esc("a\nb"), "a&#10;b");
  EXPECT_EQ(esc(std::string("bell\x07") + "tab\t"), "belltab\t");  // control characters are not valid XML
  EXPECT_EQ(esc("µs ±10%"), "µs ±10%");                              // UTF-8 passes through
}

TEST(ReportSvg, NumIsFiniteAndCompact) {
  EXPECT_EQ(num(1.0), "1");
  EXPECT_EQ(num(12.345), "12.35");
  EXPECT_EQ(num(-0.001), "0");
  EXPECT_EQ(num(std::nan("")), "0");
  EXPECT_EQ(num(std::numeric_limits<double>::infinity()), "0");
  EXPECT_EQ(num(1e30), "10000000");  // clipped, never an exponent
}

TEST(ReportSvg, SiLabels) {
  EXPECT_EQ(si(1e12, "FLOP/s"), "1 TFLOP/s");
  EXPECT_EQ(si(989e12, "FLOP/s"), "989 TFLOP/s");
  EXPECT_EQ(si(1979e12, "FLOP/s"), "1.98 PFLOP/s");
  EXPECT_EQ(si(3.35e12, "B/s"), "3.35 TB/s");
  EXPECT_EQ(si(100, ""), "100");
  EXPECT_EQ(si(1000, ""), "1 k");
  EXPECT_EQ(si(0.1, ""), "0.1");  // no milli-prefix for plain numbers
  EXPECT_EQ(si(std::nan(""), "B"), "n/a");
  EXPECT_EQ(time_us(12.34), "12.3 µs");
  EXPECT_EQ(time_us(0.85), "850 ns");
  EXPECT_EQ(time_us(4100), "4.1 ms");
  EXPECT_EQ(time_us(2e6), "2 s");
}

TEST(ReportSvg, LogTicksAreDecadesOverWideRanges) {
  auto t = log_ticks(0.1, 1e4);
  std::vector<double> want = {0.1, 1, 10, 100, 1000, 1e4};
  ASSERT_EQ(t.size(), want.size());
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i], want[i], want[i] * 1e-9);
}

TEST(ReportSvg, LogTicksAdd2And5OverNarrowRanges) {
  auto t = log_ticks(10, 1000);
  std::vector<double> want = {10, 20, 50, 100, 200, 500, 1000};
  ASSERT_EQ(t.size(), want.size());
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i], want[i], want[i] * 1e-9);
}

TEST(ReportSvg, LogTicksRejectBadRanges) {
  EXPECT_TRUE(log_ticks(0, 10).empty());
  EXPECT_TRUE(log_ticks(-1, 10).empty());
  EXPECT_TRUE(log_ticks(10, 1).empty());
  EXPECT_TRUE(log_ticks(1, std::numeric_limits<double>::infinity()).empty());
}

TEST(ReportSvg, LinearTicksAreNice) {
  auto t = linear_ticks(0, 173, 5);
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t.front(), 0);
  EXPECT_NEAR(t[1] - t[0], 50, 1e-9);  // 173/5 = 34.6 -> step 50
  auto s = linear_ticks(-30, 30, 6);
  EXPECT_NE(std::find(s.begin(), s.end(), 0.0), s.end());
  EXPECT_TRUE(linear_ticks(5, 5).empty());
}

TEST(ReportSvg, WidenToDecades) {
  double lo = 3.2, hi = 870;
  widen_to_decades(lo, hi);
  EXPECT_DOUBLE_EQ(lo, 1);
  EXPECT_DOUBLE_EQ(hi, 1000);
  lo = 100, hi = 100;  // a single value still gives a usable range
  widen_to_decades(lo, hi);
  EXPECT_LT(lo, hi);
}

TEST(ReportSvg, AxisMapsLogAndLinear) {
  Axis lg{1, 100, 0, 200, true};
  EXPECT_DOUBLE_EQ(lg(10), 100);
  Axis ln{0, 10, 100, 0, false};  // y axis: pixels grow downwards
  EXPECT_DOUBLE_EQ(ln(2.5), 75);
}

TEST(ReportSvg, SvgBuilderEscapesTextAndTips) {
  Svg s(100, 50, "id<1>", "a & b");
  s.text(1, 2, "<kernel>", "c").circle(5, 5, 2, "pt", "", "tip & <more>");
  std::string out = s.str();
  EXPECT_NE(out.find("&lt;kernel&gt;"), std::string::npos);
  EXPECT_NE(out.find("data-tip=\"tip &amp; &lt;more&gt;\""), std::string::npos);
  EXPECT_NE(out.find("<title>tip &amp; &lt;more&gt;</title>"), std::string::npos);
  EXPECT_EQ(out.find("<kernel>"), std::string::npos);
  EXPECT_NE(out.find("id=\"id&lt;1&gt;\""), std::string::npos);
}

}  // namespace
}  // namespace loom::report
