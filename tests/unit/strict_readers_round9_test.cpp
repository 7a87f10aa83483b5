// Hardening, round 9 (issue 17): every number of a calibration result checked where present (and SM counts whole),
// a sustained clock above the chip's maximum refused, and Vidur's skipped op read before it is skipped.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "hw/calibration.h"
#include "hw/catalog.h"
#include "input_error_util.h"
#include "trace/gpu_names.h"
#include "trace/import_public.h"
#include "scratch_dir.h"

namespace loom {
namespace {

using loom::test::read_text;

// tests/data/calibrate/good.json with one value set (a JSON pointer such as /tensor/bf16/power_w).
std::string calibration_with(const std::string& pointer, const nlohmann::json& value) {
  nlohmann::json j = nlohmann::json::parse(read_text(std::string(LOOM_TEST_DATA) + "/calibrate/good.json"));
  j[nlohmann::json::json_pointer(pointer)] = value;
  return j.dump();
}

std::string overlay_error(const std::string& text) {
  const Catalog cat = Catalog::load();
  return error_of([&] { calibration_overlay(text, "r.json", "h100-sxm", cat.get("h100-sxm"), cat.get("h200")); })
      .what();
}

TEST(Calibration, EveryNumberPresentIsChecked) {
  for (const auto& [pointer, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"/tensor/fp16/power_w", -5},
           {"/tensor/bf16/cool_us", 0},
           {"/tensor/bf16/sustained_us", "1641"},
           {"/tensor/bf16/max_sm_mhz", -1},
           {"/memory/dram_copy_bytes_per_s", -1.0},
           {"/memory/l2_bytes", 0},
           {"/device/clock_mhz", 0},
           {"/device/sms_total", 0},
           {"/tensor/bf16/slowdown", 0.5}}) {
    const std::string e = overlay_error(calibration_with(pointer, value));
    EXPECT_IN(e, "r.json");
    EXPECT_IN(e, pointer.substr(pointer.rfind('/') + 1));  // the field's name
  }
  EXPECT_IN(overlay_error(calibration_with("/nvml", "yes")), "'nvml'");
}

TEST(Calibration, NullMeansNoNvmlAndIsTaken) {
  const Catalog cat = Catalog::load();
  std::string t = calibration_with("/tensor/bf16/power_w", nullptr);
  nlohmann::json j = nlohmann::json::parse(t);
  j["tensor"]["bf16"]["max_sm_mhz"] = nullptr;
  j["tensor"]["bf16"]["sustained_sm_mhz"] = nullptr;
  EXPECT_NO_THROW(calibration_overlay(j.dump(), "r.json", "h100-sxm", cat.get("h100-sxm"), cat.get("h200")));
}

TEST(Calibration, SmCountIsWholeAndClockAtMostTheMaximum) {
  EXPECT_IN(overlay_error(calibration_with("/sms", 131.5)), "not a whole number");
  const std::string e = overlay_error(calibration_with("/tensor/bf16/sustained_sm_mhz", 5000));
  EXPECT_IN(e, "tensor.bf16.sustained_sm_mhz");
  EXPECT_IN(e, "above the chip's maximum");
  EXPECT_IN(overlay_error(calibration_with("/tensor/fp8/sustained_sm_mhz", 1990)), "tensor.fp8.sustained_sm_mhz");
}

TEST(Vidur, SkippedOpIsReadBeforeItIsSkipped) {
  const std::string path = std::string(LOOM_TEST_DATA) + "/public/vidur_no_gpu_path.csv";
  std::string text = read_text(path);
  const Catalog cat = Catalog::load();
  const GpuNameTable names = GpuNameTable::load_default();
  PublicImportContext ctx;
  ctx.names = &names;
  ctx.sms_for = [&cat](const std::string& key) { return int64_t(cat.get(key).sms); };
  ctx.gpu_override = "a100-sxm4-80gb";
  EXPECT_NO_THROW(import_public_text("vidur", text, "v.csv", ctx));
  const std::string bad = read_text(std::string(LOOM_TEST_DATA) + "/public/vidur_emb_negative.csv");
  const std::string e = error_of([&] { import_public_text("vidur", bad, "v.csv", ctx); }).what();
  EXPECT_IN(e, "v.csv:2");
  EXPECT_IN(e, "time_stats.emb.median");
}

}  // namespace
}  // namespace loom
