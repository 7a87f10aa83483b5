// Unit parser: every unit kind, optional space, decimal vs binary sizes, and every error class.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/units.h"

namespace loom {
namespace {

double q(const char* s, UnitKind k) { return parse_quantity(s, k, "test"); }

// Returns the detail of the InputError parse_quantity throws (fails the test when it does not throw).
std::string error_of(const char* s, UnitKind k, Sign sign = Sign::positive) {
  try {
    parse_quantity(s, k, "where:7", sign);
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "where:7");
    return e.detail();
  }
  ADD_FAILURE() << "no error for '" << s << "'";
  return "";
}

TEST(Units, Frequency) {
  EXPECT_DOUBLE_EQ(q("1980 MHz", UnitKind::frequency), 1.98e9);
  EXPECT_DOUBLE_EQ(q("1.98 GHz", UnitKind::frequency), 1.98e9);
  EXPECT_DOUBLE_EQ(q("1980MHz", UnitKind::frequency), 1.98e9);
  EXPECT_DOUBLE_EQ(q("  500 kHz ", UnitKind::frequency), 5e5);
}

TEST(Units, BandwidthIsDecimalUnlessBinary) {
  EXPECT_DOUBLE_EQ(q("4.8 TB/s", UnitKind::bandwidth), 4.8e12);
  EXPECT_DOUBLE_EQ(q("4.8TB/s", UnitKind::bandwidth), 4.8e12);
  EXPECT_DOUBLE_EQ(q("3352 GB/s", UnitKind::bandwidth), 3.352e12);
  EXPECT_DOUBLE_EQ(q("64 GB/s", UnitKind::bandwidth), 64e9);
  EXPECT_DOUBLE_EQ(q("1 GiB/s", UnitKind::bandwidth), 1073741824.0);
}

TEST(Units, SizesBinaryAndDecimal) {
  EXPECT_DOUBLE_EQ(q("50 MiB", UnitKind::size), 52428800.0);
  EXPECT_DOUBLE_EQ(q("228 KiB", UnitKind::size), 233472.0);
  EXPECT_DOUBLE_EQ(q("80 GiB", UnitKind::size), 85899345920.0);
  EXPECT_DOUBLE_EQ(q("141 GB", UnitKind::size), 141e9);
  EXPECT_DOUBLE_EQ(q("6 MB", UnitKind::size), 6e6);
  EXPECT_DOUBLE_EQ(q("512 B", UnitKind::size), 512.0);
}

TEST(Units, TimePowerMoneyCountsRates) {
  EXPECT_DOUBLE_EQ(q("4 us", UnitKind::time), 4e-6);
  EXPECT_DOUBLE_EQ(q("2.5 us", UnitKind::time), 2.5e-6);
  EXPECT_DOUBLE_EQ(q("1 ms", UnitKind::time), 1e-3);
  EXPECT_DOUBLE_EQ(q("700 W", UnitKind::power), 700.0);
  EXPECT_DOUBLE_EQ(q("3.50 USD/h", UnitKind::money_rate), 3.5);
  EXPECT_DOUBLE_EQ(q("132", UnitKind::count), 132.0);
  EXPECT_DOUBLE_EQ(q("1e3", UnitKind::count), 1000.0);
  EXPECT_DOUBLE_EQ(q("1024 FLOP/clk", UnitKind::flop_per_clk), 1024.0);
  EXPECT_DOUBLE_EQ(q("16 ops/clk", UnitKind::ops_per_clk), 16.0);
  EXPECT_DOUBLE_EQ(q("128 B/clk", UnitKind::bytes_per_clk), 128.0);
}

TEST(Units, WrongKindNamesBothKinds) {
  const std::string e = error_of("4.8 GHz", UnitKind::bandwidth);
  EXPECT_NE(e.find("frequency"), std::string::npos) << e;
  EXPECT_NE(e.find("bandwidth"), std::string::npos) << e;
  EXPECT_NE(e.find("TB/s"), std::string::npos) << e;  // lists the accepted units
  EXPECT_NE(error_of("50 MiB", UnitKind::bandwidth).find("size"), std::string::npos);
  EXPECT_NE(error_of("1024 ops/clk", UnitKind::flop_per_clk).find("FLOP/clk"), std::string::npos);
}

TEST(Units, UnitOnCountAndMissingUnit) {
  EXPECT_NE(error_of("132 MHz", UnitKind::count).find("plain number"), std::string::npos);
  EXPECT_NE(error_of("4.8", UnitKind::bandwidth).find("no unit"), std::string::npos);
}

TEST(Units, UnknownUnitAndGarbage) {
  EXPECT_NE(error_of("4 parsecs", UnitKind::time).find("unknown unit 'parsecs'"), std::string::npos);
  EXPECT_NE(error_of("4.8 Tb/s", UnitKind::bandwidth).find("unknown unit"), std::string::npos);  // bits: no
  EXPECT_NE(error_of("12 MHz x", UnitKind::frequency).find("unknown unit"), std::string::npos);
  EXPECT_NE(error_of("fast", UnitKind::frequency).find("does not start with a number"), std::string::npos);
  EXPECT_NE(error_of("", UnitKind::frequency).find("empty"), std::string::npos);
  EXPECT_NE(error_of("inf MHz", UnitKind::frequency).find("number"), std::string::npos);
  EXPECT_NE(error_of("nan", UnitKind::count).find("number"), std::string::npos);
  EXPECT_NE(error_of("0x10", UnitKind::count).find("plain number"), std::string::npos);
}

TEST(Units, RangeAndSign) {
  EXPECT_NE(error_of("1e400 GB", UnitKind::size).find("out of range"), std::string::npos);
  EXPECT_NE(error_of("1e307 TB", UnitKind::size).find("out of range"), std::string::npos);  // overflows after scaling
  EXPECT_NE(error_of("-50 MiB", UnitKind::size).find("negative"), std::string::npos);
  EXPECT_NE(error_of("-0.5", UnitKind::count, Sign::non_negative).find("negative"), std::string::npos);
  EXPECT_NE(error_of("0 MHz", UnitKind::frequency).find("zero"), std::string::npos);
  EXPECT_DOUBLE_EQ(parse_quantity("0 FLOP/clk", UnitKind::flop_per_clk, "w", Sign::non_negative), 0.0);
}

TEST(Units, FormatPicksReadableUnitsAndRoundTrips) {
  auto f = [](double v, UnitKind k) {
    auto r = format_quantity(v, k);
    return r.number + " " + r.unit;
  };
  EXPECT_EQ(f(52428800, UnitKind::size), "50 MiB");
  EXPECT_EQ(f(233472, UnitKind::size), "228 KiB");
  EXPECT_EQ(f(141e9, UnitKind::size), "141 GB");
  EXPECT_EQ(f(100e3, UnitKind::size), "100 KB");
  EXPECT_EQ(f(4.8e12, UnitKind::bandwidth), "4.8 TB/s");
  EXPECT_EQ(f(900e9, UnitKind::bandwidth), "900 GB/s");
  EXPECT_EQ(f(1.98e9, UnitKind::frequency), "1980 MHz");
  EXPECT_EQ(f(4e-6, UnitKind::time), "4 us");
  EXPECT_EQ(f(132, UnitKind::count), "132 ");
  for (double v : {52428800.0, 141e9, 62914560.0, 143771.0 * 1048576}) {
    EXPECT_DOUBLE_EQ(parse_quantity(f(v, UnitKind::size), UnitKind::size, "rt"), v);
  }
}

}  // namespace
}  // namespace loom
