// Hardening (issue 17), fuzz round 8b: the readers that got fuzz targets in this round (coverage.json,
// models/collectives.json, the measured serving runs of `validate --serving`, kernels/gemm_paths.json), each refusing
// what its target may feed it with one InputError that names the file (and the entry or line).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "input_error_util.h"
#include "kernels/gemm_paths.h"
#include "learned/collectives.h"
#include "learned/uncertainty.h"
#include "serving/measured.h"
#include "serving/requests.h"

namespace loom {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The old reader's `j.value("schema", "")` threw nlohmann's type_error (not an InputError) for a schema that is not
// a string; `e["n"].get<int>()` of 1e300 was an out-of-range cast; and no message named the entry at fault.
TEST(GemmPaths, CommittedTableReads) {
  const auto t = parse_gemm_path_table(read(data_dir() + "/kernels/gemm_paths.json"), "gemm_paths.json");
  EXPECT_GT(t.size(), 100u);
  EXPECT_EQ(t.at("hopper|bf16|a16|b|m1").path, "wgmma");
}

TEST(GemmPaths, DamagedTableIsRefusedNamingFileAndKey) {
  const std::string entry = R"({"kernel": "k", "n": 48, "path": "wgmma", "paths": {"wgmma": 48}, "share": 1.0, )"
                            R"("split_k_share": 0.0})";
  auto file = [&](const std::string& key, const std::string& e) {
    return R"({"schema": "loom-gemm-paths 1", "entries": {")" + key + "\": " + e + "}}";
  };
  auto with = [&](const std::string& from, const std::string& to) {
    std::string e = entry;
    e.replace(e.find(from), from.size(), to);
    return e;
  };
  const std::string key = "hopper|bf16|a16|b|m1";
  for (const auto& [text, where, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {file(key, with("\"n\": 48", "\"n\": 1e300")), "gemm_paths.json", "entry '" + key + "': 'n'"},
           {file(key, with("\"n\": 48", "\"n\": 0")), "gemm_paths.json", "entry '" + key + "': 'n'"},
           {file(key, with("\"share\": 1.0", "\"share\": \"1\"")), "gemm_paths.json", "entry '" + key + "': 'share'"},
           {file(key, with("\"split_k_share\": 0.0", "\"split_k_share\": 2")), "gemm_paths.json", "'split_k_share'"},
           {file(key, with("\"wgmma\",", "\"wgmmma\",")), "gemm_paths.json", "entry '" + key + "': 'path'"},
           {file(key, with("\"kernel\": \"k\"", "\"kernel\": 3")), "gemm_paths.json", "'kernel'"},
           {file(key, with("\"share\"", "\"shares\": 1, \"share\"")), "gemm_paths.json", "unknown key 'shares'"},
           {file("hopper|bf16|a16|b|m1-2", entry), "gemm_paths.json",
            "entry 'hopper|bf16|a16|b|m1-2': not a table key"},
           {file("hopper|bf17|a16|b|m1", entry), "gemm_paths.json", "not a table key"},
           {file(key, entry).replace(11, 19, "1"), "gemm_paths.json", "'schema'"},
           {R"({"schema": "loom-gemm-paths 1", "entries": [], "extra": 1})", "gemm_paths.json", "'extra'"},
           {R"({"schema": "loom-gemm-paths 1", "entries": []})", "gemm_paths.json", "'entries'"},
           {file(key, with("\"n\": 48", "\"n\": 48,\n\"n\": 49")), "gemm_paths.json:2", "duplicate key 'n'"},
           {"{\"schema\":\n", "gemm_paths.json:2", "not valid JSON"},
           {file(key, with("\"share\": 1.0", "\"share\": 1e400")), "gemm_paths.json", "beyond double"}}) {
    const InputError e = error_of([&] { parse_gemm_path_table(text, "gemm_paths.json"); });
    EXPECT_EQ(std::string(e.where()), where) << text;
    EXPECT_IN(e.what(), says);
  }
  EXPECT_EQ(parse_gemm_path_table(file(key, entry), "gemm_paths.json").at(key).n, 48);
}

// `j.value("schema", "")` threw nlohmann's type_error for a schema that is not a string (found writing the target).
TEST(CoverageFile, SchemaOfAnotherTypeIsRefused) {
  for (const char* text : {R"({"schema": 1, "families": {}})", R"({"schema": ["loom-coverage 1"], "families": {}})"}) {
    const InputError e = error_of([&] { Coverage::from_text(text, "coverage.json"); });
    EXPECT_IN(e.where(), "coverage.json");
    EXPECT_IN(e.what(), "not a coverage file");
  }
  EXPECT_FALSE(Coverage::from_text(read(data_dir() + "/models/efficiency/coverage.json"), "c").families.empty());
}

TEST(CollectiveFits, FromTextReadsWhatLoadReads) {
  const std::string path = data_dir() + "/models/collectives.json";
  EXPECT_EQ(CollectiveModel::from_text(read(path), path).fits.size(), CollectiveModel::load(path).fits.size());
  EXPECT_IN(error_of([] { CollectiveModel::from_text("{\"fits\": [1]}", "c.json"); }).what(), "fit 1");
}

// A count of 1e300 in per_request.csv or iterations.csv was cast to int64 out of range (undefined behaviour).
TEST(MeasuredRun, CountsBeyondRangeAreRefusedWithTheLine) {
  const std::string req = "arrival_s,prompt_tokens,output_tokens\n0,512,8\n0,512,9\n";
  const std::string per = "id,arrival_s,prompt_tokens,output_tokens,first_token_s,finish_s\n"
                          "0,0,512,8,0.1,0.2\n1,0,512,9,0.1,0.3\n";
  const std::string its_head = "start_s,end_s,gpu_ms,decodes,prefills,decode_kv,decode_kv_max,prefill_tokens,"
                               "prefill_pairs,graph_batch\n";
  const std::string its = its_head + "0,0.1,100,0,2,0,0,1024,262144,0\n0.1,0.2,9,2,0,1026,514,0,0,2\n";
  auto run = [&](const std::string& p, const std::string& i) {
    return serving::read_measured_run_text("run", serving::parse_requests(req, "run/requests.csv", false), p, i);
  };
  EXPECT_EQ(run(per, its).iterations.size(), 2u);
  {
    std::string p = per;
    p.replace(p.find("\n1,"), 3, "\n1e300,");
    const InputError e = error_of([&] { run(p, its); });
    EXPECT_IN(e.where(), "per_request.csv");
    EXPECT_IN(e.what(), "1e+300 is not a row");
  }
  {
    std::string p = per;
    p.replace(p.find(",512,9,"), 7, ",5.5e20,9,");
    const InputError e = error_of([&] { run(p, its); });
    EXPECT_IN(e.where(), "per_request.csv:3");
    EXPECT_IN(e.what(), "prompt_tokens");
  }
  for (const char* bad : {"1e300", "2.5"}) {
    const std::string i = its_head + "0,0.1,100,0,2,0,0,1024,262144,0\n0.1,0.2,9," + bad + ",0,1026,514,0,0,2\n";
    const InputError e = error_of([&] { run(per, i); });
    EXPECT_IN(e.where(), "iterations.csv:3");
    EXPECT_IN(e.what(), "decodes is");
  }
}

}  // namespace
}  // namespace loom
