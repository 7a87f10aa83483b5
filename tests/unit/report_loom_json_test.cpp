// Unit tests for the readers of loom's own outputs (validate / e2e / whatif JSON) into report sections: what they
// draw, and that bad or missing fields are InputErrors naming the JSON path.
#include <gtest/gtest.h>

#include "core/error.h"
#include "report/loom_json.h"
#include "report/report_json.h"

namespace loom::report {
namespace {

using nlohmann::json;

json point(const std::string& split, const std::string& family, const std::string& gpu, double measured,
           double learned, double analytical) {
  return {{"split", split}, {"spec", family + " m=1"}, {"family", family}, {"gpu", gpu}, {"sms", 0},
          {"measured_us", measured},
          {"predicted_us", {{"learned", learned}, {"analytical", analytical}, {"roofline", 1.0}}}};
}

/// The object with the `schema` its writer adds: the readers refuse a file without one (round 13).
json tagged(json j, const std::string& schema) {
  j["schema"] = schema;
  return j;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ValidationJson, PointsBecomeOneScatterPerSplitShapesFirst) {
  json j = {{"splits", json::array()}, {"model_fingerprint", "abc"},
            {"points", {point("gpu:h100", "gemm", "h100", 10, 11, 20), point("shapes", "gemm", "h200", 4, 5, 2),
                        point("shapes", "rmsnorm", "h100", 8, 8, 9)}}};
  ValidationData v = validation_from_json(tagged(j, "loom.validate/1"), "v.json");
  EXPECT_EQ(v.model_fingerprint, "abc");
  ASSERT_EQ(v.points.size(), 3u);
  std::vector<ScatterChart> s = validation_scatters(v);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NE(s[0].title.find("Held-out shapes"), std::string::npos);
  EXPECT_NE(s[1].title.find("Held-out GPU h100"), std::string::npos);
  ASSERT_EQ(s[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(s[0].points[0].measured_us, 4);
  EXPECT_DOUBLE_EQ(s[0].points[0].predicted_us, 5);
  EXPECT_DOUBLE_EQ(*s[0].points[0].baseline_us, 2);
  EXPECT_EQ(s[0].predicted_name, "learned");
  EXPECT_EQ(s[0].baseline_name, "analytical");
  // The page shows both MAPEs: learned |5-4|/4 = 25% and |8-8|/8 = 0 -> 12.5%; analytical 50% and 12.5% -> 31.25%.
  Report r;
  r.scatters = s;
  std::string html = render_html(r);
  EXPECT_NE(html.find("learned MAPE 12.5%"), std::string::npos);
  EXPECT_NE(html.find("analytical 31.2%"), std::string::npos);
  EXPECT_NE(html.find("class=\"base-toggle\""), std::string::npos);
}

TEST(ValidationJson, DrawCapKeepsMapeOverEveryPoint) {
  ScatterChart c{"t", {}, "learned", "analytical"};
  for (int i = 1; i <= 50; ++i) c.points.push_back({"k", "gemm", "h200", double(i), i * (i == 50 ? 3.0 : 1.0), {}});
  c.max_drawn_per_panel = 5;
  Report r;
  r.scatters = {c};
  std::string html = render_html(r);
  size_t dots = 0;
  for (size_t at = html.find("class=\"pt-scatter\""); at != std::string::npos;
       at = html.find("class=\"pt-scatter\"", at + 1))
    ++dots;
  EXPECT_EQ(dots, 5u);
  // One point of 50 is 200% off: MAPE 4% over all 50 (the drawn five include it: the largest measured time).
  EXPECT_NE(html.find("learned MAPE 4% (n=50, 5 drawn)"), std::string::npos);
  EXPECT_NE(html.find("error: +200%"), std::string::npos);
}

TEST(ValidationJson, ScatterBaselineFieldsRoundTripThroughReportJson) {
  Report r;
  r.scatters = {{"t", {{"k", "gemm", "h200", 4, 5, 2.0}, {"k2", "gemm", "h200", 4, 5, std::nullopt}}, "learned",
                 "analytical", 7}};
  nlohmann::json j = report_to_json(r);
  EXPECT_FALSE(j["scatters"][0]["points"][1].contains("baseline_us"));
  Report back = report_from_json(j, "t");
  EXPECT_EQ(report_to_json(back), j);
  EXPECT_EQ(back.scatters[0].max_drawn_per_panel, 7u);
  EXPECT_DOUBLE_EQ(*back.scatters[0].points[0].baseline_us, 2.0);
  j["scatters"][0]["max_drawn_per_panel"] = -1;
  std::string e = error_of([&] { report_from_json(j, "r.json"); });
  EXPECT_NE(e.find("$.scatters[0].max_drawn_per_panel: must be 0"), std::string::npos) << e;
}

TEST(ValidationJson, MissingPointsSaysToRerunValidate) {
  std::string e = error_of([] {
    validation_from_json(tagged(json{{"splits", json::array()}}, "loom.validate/1"), "v.json");
  });
  EXPECT_NE(e.find("v.json: $.points: required key missing"), std::string::npos) << e;
  EXPECT_NE(e.find("loom validate"), std::string::npos) << e;
}

TEST(LoomJson, AnotherCommandsOrANewerSchemaIsRefusedByItsSchema) {
  std::string e = error_of([] { validation_from_json(json{{"schema", "loom.e2e/1"}}, "v.json"); });
  EXPECT_NE(e.find("v.json: $.schema: 'loom.e2e/1' is not loom.validate output"), std::string::npos) << e;
  Report r;
  e = error_of([&] { add_simulate(r, json{{"schema", "loom.simulate/2"}}, "s.json"); });
  EXPECT_NE(e.find("this loom reads loom.simulate/1 or older"), std::string::npos) << e;
  e = error_of([&] { add_e2e(r, json{{"schema", "loom.whatif/1"}}, "e.json"); });
  EXPECT_NE(e.find("is not loom.e2e output"), std::string::npos) << e;
  e = error_of([&] { add_whatif(r, json{{"schema", "loom.whatif"}}, "w.json"); });  // no version
  EXPECT_NE(e.find("$.schema"), std::string::npos) << e;
}

TEST(ValidationJson, BadPointFieldsNameTheirPath) {
  json j = {{"points", {point("shapes", "gemm", "h200", 4, 5, 2)}}};
  j["points"][0]["predicted_us"].erase("learned");
  std::string e = error_of([&] { validation_from_json(tagged(j, "loom.validate/1"), "v.json"); });
  EXPECT_NE(e.find("$.points[0].predicted_us.learned: required key missing"), std::string::npos) << e;

  j = {{"points", {point("shapes", "gemm", "h200", 4, 5, 2)}}};
  j["points"][0]["measured_us"] = "4";
  e = error_of([&] { validation_from_json(tagged(j, "loom.validate/1"), "v.json"); });
  EXPECT_NE(e.find("$.points[0].measured_us: expected a number, got string"), std::string::npos) << e;

  j["points"][0]["measured_us"] = 0;
  e = error_of([&] { validation_from_json(tagged(j, "loom.validate/1"), "v.json"); });
  EXPECT_NE(e.find("$.points[0].measured_us: must be a positive time"), std::string::npos) << e;

  j = {{"points", {point("shapes", "gemm", "h200", 4, 5, 2)}}};
  j["points"][0]["colour"] = "red";
  e = error_of([&] { validation_from_json(tagged(j, "loom.validate/1"), "v.json"); });
  EXPECT_NE(e.find("$.points[0].colour: unknown key"), std::string::npos) << e;

  j = {{"points", json::object()}};
  e = error_of([&] { validation_from_json(tagged(j, "loom.validate/1"), "v.json"); });
  EXPECT_NE(e.find("$.points: expected an array, got object"), std::string::npos) << e;
}

json kernel(const std::string& name, int layer, double start, double end) {
  return {{"name", name}, {"layer", layer}, {"family", "gemm"}, {"kernel", "gemm m=1 n=1 k=1"},
          {"gpu_us", end - start}, {"start_us", start}, {"end_us", end}, {"wall_us", end - start}};
}

TEST(E2eJson, KernelsBecomeLanesWithIdleGapsAndLayerSpans) {
  json j = {
      {"gpu", "h200"},
      {"model", "m"},
      {"phase", "decode"},
      {"mode", "eager"},
      {"wall_time_us", 9.0},
      {"kernels", {kernel("embed", -1, 1, 2), kernel("qkv", 0, 2, 4), kernel("o", 0, 5, 7), kernel("lm", -1, 7, 9)}}};
  Report r;
  add_e2e(r, tagged(j, "loom.e2e/1"), "e.json");
  ASSERT_EQ(r.timelines.size(), 1u);
  const Timeline& t = r.timelines[0];
  int kernels = 0, idle = 0, layers = 0;
  for (const auto& e : t.events) {
    kernels += e.lane == 1;
    idle += e.lane == 2;
    layers += e.lane == 0;
  }
  EXPECT_EQ(kernels, 4);
  EXPECT_EQ(idle, 2);    // 0..1 before the first kernel and 4..5
  EXPECT_EQ(layers, 3);  // pre, layer 0, post
  EXPECT_NE(t.title.find("step 0.009 ms, GPU busy 0.007 ms, 4 kernels"), std::string::npos) << t.title;
  EXPECT_TRUE(r.tables.empty());
}

TEST(E2eJson, BadKernelsNameTheirPath) {
  json j = {{"kernels", {kernel("a", 0, 1, 2)}}};
  j["kernels"][0].erase("start_us");
  Report r;
  std::string e = error_of([&] { add_e2e(r, tagged(j, "loom.e2e/1"), "e.json"); });
  EXPECT_NE(e.find("e.json: $.kernels[0].start_us: required key missing"), std::string::npos) << e;
  e = error_of([&] { add_e2e(r, tagged(json{{"gpu", "h200"}}, "loom.e2e/1"), "e.json"); });
  EXPECT_NE(e.find("$.kernels: required key missing"), std::string::npos) << e;
  e = error_of([&] {
    add_e2e(r, json{{"trace", "t.json"}, {"source_gpu", "h100"}, {"kernels", json::array()}}, "e.json");
  });
  EXPECT_NE(e.find("--replay"), std::string::npos) << e;
  j = {{"kernels", {kernel("a", 0, 3, 2)}}};
  e = error_of([&] { add_e2e(r, tagged(j, "loom.e2e/1"), "e.json"); });
  EXPECT_NE(e.find("$.kernels[0].end_us: ends before start_us"), std::string::npos) << e;
}

TEST(WhatifJson, RankedRowsAndSensitivityBars) {
  json j = {{"model", "m"}, {"profile", "vllm"}, {"batch", 8}, {"input_len", 512}, {"output_len", 128},
            {"ranked", {{{"rank", 1}, {"gpu", "h200"}, {"tp", 1}, {"ttft_us", 2000.0}, {"tpot_us", 10.0},
                         {"tokens_per_s", 800.0}, {"fits", true}, {"memory_bytes", 1073741824.0},
                         {"usable_bytes", 2e11}, {"tokens_per_dollar", nullptr}},
                        {{"rank", 2}, {"gpu", "l4"}, {"tp", 1}, {"error", "does not fit"}}}},
            {"sensitivity", {{{"gpu", "h200"}, {"change", "DRAM bandwidth x2"}, {"ttft_delta_pct", -1.0},
                              {"tpot_delta_pct", -40.0}}}}};
  Report r;
  add_whatif(r, tagged(j, "loom.whatif/1"), "w.json");
  ASSERT_EQ(r.tables.size(), 1u);
  ASSERT_EQ(r.tables[0].rows.size(), 2u);
  EXPECT_EQ(r.tables[0].rows[0][3], "2");       // TTFT in ms
  EXPECT_EQ(r.tables[0].rows[0][6], "-");       // tokens/$ null
  EXPECT_EQ(r.tables[0].rows[0][7], "1 GiB");
  EXPECT_EQ(r.tables[0].rows[1].back(), "cannot run: does not fit");
  EXPECT_EQ(r.tables[0].rows[0][5], "800");
  ASSERT_EQ(r.sensitivities.size(), 1u);
  EXPECT_DOUBLE_EQ(r.sensitivities[0].bars[0].tpot_delta_pct, -40.0);
}

TEST(WhatifJson, BadFieldsNameTheirPath) {
  Report r;
  json j = {{"ranked",
             {{{"rank", 1},
               {"gpu", "h200"},
               {"tp", 1},
               {"ttft_us", 1.0},
               {"tpot_us", 1.0},
               {"tokens_per_s", 1.0},
               {"fits", "yes"},
               {"memory_bytes", 1.0},
               {"usable_bytes", 1.0}}}}};
  std::string e = error_of([&] { add_whatif(r, tagged(j, "loom.whatif/1"), "w.json"); });
  EXPECT_NE(e.find("w.json: $.ranked[0].fits: expected true or false"), std::string::npos) << e;
  e = error_of([&] { add_whatif(r, tagged(json{{"model", "m"}}, "loom.whatif/1"), "w.json"); });
  EXPECT_NE(e.find("$.ranked: required key missing"), std::string::npos) << e;
  e = error_of([&] {
    add_whatif(r, tagged(json{{"ranked", json::array()}, {"sensitivity", {{{"gpu", "a"}}}}}, "loom.whatif/1"),
               "w.json");
  });
  EXPECT_NE(e.find("$.sensitivity[0].change: required key missing"), std::string::npos) << e;
  e = error_of([] { loom_json_text("{\"ranked\": [", "w.json"); });
  EXPECT_NE(e.find("w.json: not valid JSON"), std::string::npos) << e;
}

}  // namespace
}  // namespace loom::report

namespace loom::report {
namespace {

TEST(ReportSimulate, CdfsAndSeriesFromASimulation) {
  const nlohmann::json j = {
      {"gpu", "h200"},
      {"model", "llama-3-8b"},
      {"per_request",
       {{{"ttft_ms", 30.0}, {"tpot_ms", 5.0}, {"e2e_ms", 300.0}, {"output_tokens", 10}},
        {{"ttft_ms", 10.0}, {"tpot_ms", 0.0}, {"e2e_ms", 10.0}, {"output_tokens", 1}},
        {{"ttft_ms", 20.0}, {"tpot_ms", 6.0}, {"e2e_ms", 200.0}, {"output_tokens", 5}}}},
      {"series", {{"t_ms", {0.0, 1000.0}}, {"batch", {1, 2}}, {"waiting", {0, 1}}, {"kv_used", {0.1, 0.2}}}}};
  Report r;
  add_simulate(r, tagged(j, "loom.simulate/1"), "sim.json");
  ASSERT_EQ(r.lines.size(), 3u);
  const LineSeries& ttft = r.lines[0].series[0];
  EXPECT_EQ(ttft.x, (std::vector<double>{10, 20, 30}));  // sorted
  EXPECT_DOUBLE_EQ(ttft.y.back(), 1.0);
  EXPECT_EQ(r.lines[0].series[1].x.size(), 2u);  // TPOT of multi-token outputs only
  EXPECT_DOUBLE_EQ(r.lines[1].series[0].x[1], 1.0);  // seconds
  const std::string html = render_html(r);
  EXPECT_NE(html.find("Latency distribution"), std::string::npos);
  // Round trip through the report's own JSON.
  EXPECT_EQ(report_from_json(report_to_json(r), "r.json").lines.size(), 3u);
  nlohmann::json bad = j;
  bad.erase("per_request");
  EXPECT_THROW(add_simulate(r, tagged(bad, "loom.simulate/1"), "sim.json"), InputError);
  bad = j;
  bad["series"]["batch"] = {1};
  EXPECT_THROW(add_simulate(r, tagged(bad, "loom.simulate/1"), "sim.json"), InputError);
}

}  // namespace
}  // namespace loom::report
