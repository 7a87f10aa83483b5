// Request streams: strict CSV/JSONL readers, length distributions, arrival processes, SLO and statistics.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "serving/metrics.h"
#include "serving/requests.h"

namespace loom::serving {
namespace {

std::string error_of(const std::string& text, bool jsonl = false) {
  try {
    parse_requests(text, "r.csv", jsonl);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ServingRequests, CsvAnyOrderBomAndSorted) {
  const auto v = parse_requests("\xEF\xBB\xBFoutput_tokens,arrival_s,prompt_tokens,cached_prefix_tokens\n"
                                "10,2.5,100,50\n# a comment\n20,0.5,200,0\n",
                                "r.csv", false);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].prompt_tokens, 200);  // sorted by arrival
  EXPECT_EQ(v[0].id, 1);               // ids keep file order
  EXPECT_EQ(v[1].cached_prefix_tokens, 50);
  EXPECT_DOUBLE_EQ(v[1].arrival_s, 2.5);
}

TEST(ServingRequests, CsvRefusesBadInputNamingLineAndField) {
  EXPECT_NE(error_of("arrival_s,prompt_tokens\n0,1\n").find("lacks the column 'output_tokens'"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens,foo\n").find("unknown column 'foo'"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens,arrival_s\n").find("appears twice"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n0,10,nan\n").find("r.csv:2: output_tokens"),
            std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n0,0x10,5\n").find("prompt_tokens"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n-1,10,5\n").find("arrival_s"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n0,0,5\n").find("prompt_tokens"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n0,1.5,5\n").find("integer"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n0,10\n").find("r.csv:2: has 2 fields"), std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens,cached_prefix_tokens\n0,10,5,10\n").find("below prompt"),
            std::string::npos);
  EXPECT_NE(error_of("arrival_s,prompt_tokens,output_tokens\n").find("no requests"), std::string::npos);
  EXPECT_NE(error_of("").find("no header"), std::string::npos);
}

TEST(ServingRequests, JsonlStrict) {
  const auto v = parse_requests(
      "{\"arrival_s\": 0, \"prompt_tokens\": 5, \"output_tokens\": 3}\n\n"
      "{\"arrival_s\": 1, \"prompt_tokens\": 7, \"output_tokens\": 2, \"cached_prefix_tokens\": 3}\n",
      "r.jsonl", true);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].cached_prefix_tokens, 3);
  EXPECT_NE(error_of("{\"arrival_s\": 0, \"prompt_tokens\": 5}\n", true).find("missing key 'output_tokens'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"arrival_s\": 0, \"prompt_tokens\": 5, \"output_tokens\": 1, \"x\": 1}\n", true)
                .find("unknown key 'x'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"arrival_s\": 0, \"arrival_s\": 1, \"prompt_tokens\": 5, \"output_tokens\": 1}\n", true)
                .find("appears twice"),
            std::string::npos);
  EXPECT_NE(
      error_of("{\"arrival_s\": \"0\", \"prompt_tokens\": 5, \"output_tokens\": 1}\n", true).find("must be a number"),
      std::string::npos);
  EXPECT_NE(error_of("{\"arrival_s\": 0,\n", true).find("r.csv:1: malformed JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]\n", true).find("one JSON object"), std::string::npos);
}

TEST(ServingRequests, LengthDistributionsAndArrivals) {
  EXPECT_EQ(parse_length_dist("512", "--prompt-len").a, 512);
  EXPECT_EQ(parse_length_dist("uniform:10:20", "--prompt-len").kind, "uniform");
  EXPECT_EQ(parse_length_dist("lognormal:1000:0.5", "--prompt-len").kind, "lognormal");
  for (const char* bad : {"0", "-5", "abc", "uniform:20:10", "uniform:1", "lognormal:0:1", "lognormal:10:nan",
                          "file:/nonexistent", "normal:1:2", "1e400"})
    EXPECT_THROW(parse_length_dist(bad, "--prompt-len"), InputError) << bad;
  EXPECT_DOUBLE_EQ(parse_arrivals("gamma:cv=2", "--arrivals").cv, 2);
  for (const char* bad :
       {"gamma", "gamma:cv=0", "gamma:cv=-1", "gamma:cv=inf", "uniform", "gamma:cv=1e-300", "gamma:cv=0.009"})
    EXPECT_THROW(parse_arrivals(bad, "--arrivals"), InputError) << bad;
}

TEST(ServingRequests, SyntheticStreamHasItsRateCvAndLengths) {
  for (double cv : {1.0, 3.0}) {
    const auto v = synthesize(20000, 5.0, ArrivalProcess{cv}, parse_length_dist("uniform:100:300", "x"),
                              parse_length_dist("lognormal:200:0.5", "x"), 7);
    std::vector<double> gaps;
    double prompt = 0;
    for (size_t i = 1; i < v.size(); ++i) gaps.push_back(v[i].arrival_s - v[i - 1].arrival_s);
    for (const auto& r : v) {
      prompt += static_cast<double>(r.prompt_tokens);
      ASSERT_GE(r.prompt_tokens, 100);
      ASSERT_LE(r.prompt_tokens, 300);
    }
    const Stats g = stats(gaps);
    double var = 0;
    for (double x : gaps) var += (x - g.mean) * (x - g.mean);
    const double measured_cv = std::sqrt(var / static_cast<double>(gaps.size())) / g.mean;
    EXPECT_NEAR(1.0 / g.mean, 5.0, 5.0 * 0.1) << cv;
    EXPECT_NEAR(measured_cv, cv, cv * 0.1);
    EXPECT_NEAR(prompt / static_cast<double>(v.size()), 200, 5);
  }
  // Deterministic in the seed.
  const auto a = synthesize(10, 1, {}, parse_length_dist("uniform:1:1000", "x"), parse_length_dist("5", "x"), 3);
  const auto b = synthesize(10, 1, {}, parse_length_dist("uniform:1:1000", "x"), parse_length_dist("5", "x"), 3);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].prompt_tokens, b[i].prompt_tokens);
}

TEST(ServingRequests, StatsAndSlo) {
  const Stats s = stats({4, 1, 3, 2, 5});
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.max, 5);
  const Slo slo = parse_slo("ttft=2s,tpot=50ms", "--slo");
  EXPECT_DOUBLE_EQ(*slo.ttft_ms, 2000);
  EXPECT_DOUBLE_EQ(*slo.tpot_ms, 50);
  for (const char* bad : {"", "ttft", "ttft=2", "ttft=-1s", "itl=5ms", "ttft=1s,ttft=2s", "ttft=nan s"})
    EXPECT_THROW(parse_slo(bad, "--slo"), InputError) << bad;
}

}  // namespace
}  // namespace loom::serving
