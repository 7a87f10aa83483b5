// Hardening, round 16 (issue 17): calibrate's messages name FILE:LINE of the bad value (json_line_of finds it in the
// JSON text); the tune tables' per-config model refuses rows a moe table cannot have (6 numbers: its seventh feature
// would read as 0), coefficients beyond the pruned intercept or negative in a model fitted >= 0, a lambda outside
// [0, 100] and `features` other than this loom's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_strict.h"
#include "hw/calibration.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "scratch_dir.h"
#include "wave/config_model.h"
#include "wave/tables.h"

namespace loom {
namespace {

using loom::test::read_text;

TEST(JsonLineOf, FindsNestedValuesArraysAndTheParentOfAMissingKey) {
  const std::string t = "{\n \"a\": 1,\n \"b\": {\n  \"c\": [\n   1,\n   {\"d\": \"x,}]\"},\n   3\n  ]\n },\n"
                        " \"e\\\"q\": 2\n}\n";
  EXPECT_EQ(json_line_of(t, {}), 1);
  EXPECT_EQ(json_line_of(t, {"a"}), 2);
  EXPECT_EQ(json_line_of(t, {"b"}), 3);
  EXPECT_EQ(json_line_of(t, {"b", "c"}), 4);
  EXPECT_EQ(json_line_of(t, {"b", "c", "0"}), 5);
  EXPECT_EQ(json_line_of(t, {"b", "c", "1", "d"}), 6);
  EXPECT_EQ(json_line_of(t, {"b", "c", "2"}), 7);   // past a string holding , } ]
  EXPECT_EQ(json_line_of(t, {"e\"q"}), 10);         // an escaped quote in a key
  EXPECT_EQ(json_line_of(t, {"b", "zz"}), 3);       // missing: the object it belongs in
  EXPECT_EQ(json_line_of(t, {"b", "c", "9"}), 4);   // past the array's end
  EXPECT_EQ(json_line_of(t, {"a", "x"}), 2);        // below a number
  EXPECT_EQ(json_line_of("{\"a\": [1, 2", {"a", "5"}), 1);  // cut text: no read past the end
  EXPECT_EQ(json_line_of("", {"a"}), 1);
}

std::string calibration_error(const std::string& text) {
  const Catalog cat = Catalog::load();
  return error_of([&] { calibration_overlay(text, "r.json", "h100-sxm", cat.get("h100-sxm"), cat.get("h200")); })
      .what();
}

TEST(Calibration, MessagesNameTheLineOfTheBadValue) {
  // ordered_json: the file's key order (nlohmann::json sorts keys)
  nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(read_text(std::string(LOOM_TEST_DATA) + "/calibrate/good.json"));
  auto with = [&](const std::string& pointer, const nlohmann::ordered_json& v) {
    nlohmann::ordered_json k = j;
    k[nlohmann::ordered_json::json_pointer(pointer)] = v;
    return k.dump(1);
  };
  // good.json as dump(1): schema line 2, sms line 14, memory.dram_read line 23, tensor.bf16.slowdown line 33
  EXPECT_IN(calibration_error(with("/sms", 0)), "r.json:14: 'sms' = 0 is outside");
  EXPECT_IN(calibration_error(with("/memory/dram_read_bytes_per_s", 5)), "r.json:23: 'memory.dram_read_bytes_per_s'");
  EXPECT_IN(calibration_error(with("/tensor/bf16/slowdown", "1")), "r.json:33: 'tensor.bf16.slowdown' is not a");
  EXPECT_IN(calibration_error(with("/schema", "x")), "r.json:2: 'schema'");
  EXPECT_IN(calibration_error(with("/tensor/bf16/sustained_sm_mhz", 5000)), "r.json:34: 'tensor.bf16.sustained_sm");
  nlohmann::ordered_json k = j;
  k["memory"].erase("dram_read_bytes_per_s");
  EXPECT_IN(calibration_error(k.dump(1)), "r.json:22: missing 'memory.dram_read_bytes_per_s'");  // memory's line
}

// The committed Triton MoE fp8 table, its config_model edited by `edit`; the error of reading it back.
template <class F>
std::string moe_table_error(F edit) {
  nlohmann::json j =
      nlohmann::json::parse(read_text(std::string(LOOM_TEST_DATA) + "/../../models/tune/h200-moe-triton-fp8.json"));
  edit(j["config_model"]);
  return error_of([&] { wave::tables_from_json(j, "t.json"); }).what();
}

TEST(TuneTables, MoeConfigModelRowsAndCoefficientsAreChecked) {
  auto first = [](nlohmann::json& m) -> nlohmann::json& { return m["coef"].begin().value(); };
  EXPECT_IN(moe_table_error([&](nlohmann::json& m) { first(m).erase(6); }), "6 numbers");
  EXPECT_IN(moe_table_error([&](nlohmann::json& m) { first(m)[0] = -1.0; }), "negative");
  EXPECT_IN(moe_table_error([&](nlohmann::json& m) { first(m)[2] = 1e300; }), "beyond");
  EXPECT_IN(moe_table_error([&](nlohmann::json& m) { m["lambda"] = -0.03; }), "config_model.lambda");
  EXPECT_IN(moe_table_error([&](nlohmann::json& m) { m["features"][6] = "G*L/slots*(BM/M-1)"; }),
            "config_model.features");
  EXPECT_IN(moe_table_error([&](nlohmann::json& m) { m["features"] = "W*L"; }), "config_model.features");
  // A negative coefficient where the model was not fitted >= 0, and tables without `features`, read as before.
  nlohmann::json j =
      nlohmann::json::parse(read_text(std::string(LOOM_TEST_DATA) + "/../../models/tune/h200-moe-triton-fp8.json"));
  j["config_model"].erase("nonneg");
  j["config_model"].erase("features");
  first(j["config_model"])[0] = -1.0;
  EXPECT_NO_THROW(wave::tables_from_json(j, "t.json"));
}

}  // namespace
}  // namespace loom
