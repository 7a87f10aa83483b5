// Fuzz target: arbitrary bytes through the request-stream readers (CSV and JSONL) and the length / arrival / SLO
// parsers (serving_sim_fuzz runs the simulator on what parses). Only loom::InputError may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "serving/metrics.h"
#include "serving/requests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (bool jsonl : {false, true}) {
    try {
      (void)loom::serving::parse_requests(text, "fuzz.csv", jsonl);
    } catch (const loom::InputError&) {
    }
  }
  const std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("file:", 0) != 0) {  // no file reads from fuzz input
    try {
      (void)loom::serving::parse_length_dist(line, "--prompt-len");
    } catch (const loom::InputError&) {
    }
  }
  try {
    (void)loom::serving::parse_arrivals(line, "--arrivals");
  } catch (const loom::InputError&) {
  }
  try {
    (void)loom::serving::parse_slo(line, "--slo");
  } catch (const loom::InputError&) {
  }
  return 0;
}
