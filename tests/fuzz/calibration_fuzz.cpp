// Fuzz target: arbitrary bytes as a calibration result (scripts/torch/calibrate.py's JSON) -> the GPU YAML overlay
// of `loom calibrate` for a fixed catalogue-like base GPU. Only loom::InputError may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hw/calibration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const loom::GpuSpec base = [] {
    loom::GpuSpec g;
    g.name = "h100-sxm", g.full_name = "NVIDIA H100 SXM5 80GB", g.sms = 132, g.boost_clock_mhz = 1980;
    g.dram_bytes_per_s = 3.35e12, g.graph_gap_us = 1.45;
    return g;
  }();
  try {
    (void)loom::calibration_overlay(text, "fuzz.json", "h100-sxm", base, base);
  } catch (const loom::InputError&) {
  }
  return 0;
}
