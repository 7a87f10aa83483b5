// The sustained-load latency factor (see sustained_load.h).
#include "analytical/sustained_load.h"

#include <algorithm>

#include "core/error.h"

namespace loom {

ClockMode parse_clock_mode(const std::string& text) {
  if (text == "boost") return ClockMode::boost;
  if (text == "sustained") return ClockMode::sustained;
  if (text == "auto") return ClockMode::automatic;
  throw InputError("--clock", "'" + text.substr(0, 40) + "' is not a clock mode; use boost, sustained or auto");
}

const char* clock_mode_name(ClockMode m) {
  return m == ClockMode::sustained ? "sustained" : m == ClockMode::automatic ? "auto" : "boost";
}

double sustained_load_factor(const GpuSpec& gpu, const Analysis& a) {
  if (!(gpu.tensor_load_slowdown > 1)) return 1.0;
  double compute = 0, memory = 0;  // SM-clocked pipes vs the memory system and links
  for (const auto& p : a.pipes) {
    if (p.pipe == "dram" || p.pipe == "l2" || p.pipe == "link") memory = std::max(memory, p.time_us);
    else compute = std::max(compute, p.time_us);
  }
  if (!(compute > 0)) return 1.0;
  const double s = gpu.tensor_load_slowdown;
  if (!(memory > 0)) return s;
  const double r = compute / memory;
  return std::max(r * s, 1.0) / std::max(r, 1.0);
}

double sustained_load_weight(const GpuSpec& gpu, double boost_us, ClockMode mode) {
  if (mode == ClockMode::boost) return 0;
  if (mode == ClockMode::sustained) return 1;
  const double onset_us = gpu.tensor_load_onset_s * 1e6;
  if (!(onset_us > 0) || !(boost_us > onset_us)) return 0;
  return (boost_us - onset_us) / boost_us;
}

}  // namespace loom
