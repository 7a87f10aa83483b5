// Unit tests for the report's JSON form: round trip, and strict reading (unknown keys, wrong types, bad JSON).
#include <gtest/gtest.h>

#include "core/error.h"
#include "report/report_json.h"

namespace loom::report {
namespace {

TEST(ReportJson, SampleRoundTripsToTheSamePage) {
  Report r = sample_report();
  nlohmann::json j = report_to_json(r);
  Report back = report_from_json(j, "test");
  EXPECT_EQ(report_to_json(back), j);
  EXPECT_EQ(render_html(back), render_html(r));
}

TEST(ReportJson, OptionalsStayAbsent) {
  Report r;
  r.sol = {{"k", "g", "dram", 10, std::nullopt, {{"dram", 10, 1, ""}}}};
  nlohmann::json j = report_to_json(r);
  EXPECT_FALSE(j["sol"][0].contains("measured_us"));
  EXPECT_FALSE(report_from_json(j, "t").sol[0].measured_us.has_value());
}

std::string error_of(const std::string& text) {
  try {
    report_from_json_text(text, "in.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportJson, UnknownKeyIsAnErrorWithItsPath) {
  std::string e = error_of(R"({"rooflines":[{"gpu":"H100","dram_bytes_per_s":1,"colour":"red"}]})");
  EXPECT_NE(e.find("in.json: $.rooflines[0].colour: unknown key"), std::string::npos) << e;
}

TEST(ReportJson, WrongTypeIsAnError) {
  std::string e = error_of(R"({"scatters":[{"points":[{"measured_us":"12","predicted_us":3}]}]})");
  EXPECT_NE(e.find("$.scatters[0].points[0].measured_us: expected a number, got string"), std::string::npos) << e;
}

TEST(ReportJson, MissingRequiredKeyIsAnError) {
  std::string e = error_of(R"({"timelines":[{"events":[{"name":"k","dur_us":1}]}]})");
  EXPECT_NE(e.find("$.timelines[0].events[0].start_us: required key missing"), std::string::npos) << e;
}

TEST(ReportJson, MalformedJsonIsAnError) {
  std::string e = error_of("{\"title\": ");
  EXPECT_NE(e.find("in.json: not valid JSON"), std::string::npos) << e;
  EXPECT_NE(error_of("[1,2]").find("expected an object"), std::string::npos);
}

}  // namespace
}  // namespace loom::report
