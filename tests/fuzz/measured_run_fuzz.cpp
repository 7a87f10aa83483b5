// Fuzz target: arbitrary bytes as one measured serving run of `validate --serving`
// (traces/serving/engine/<gpu>/<run>/): requests.csv, per_request.csv and iterations.csv in one input, separated by
// lines "====" (a missing part is empty). Only loom::InputError may come out; an accepted run pairs every request once
// and every iteration schedules something.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "serving/measured.h"
#include "serving/requests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (size_t at = 0; parts.size() < 3;) {
    const size_t sep = parts.size() < 2 ? text.find("\n====\n", at) : std::string::npos;
    parts.push_back(text.substr(std::min(at, text.size()), sep == std::string::npos ? std::string::npos : sep - at));
    if (sep == std::string::npos) break;
    at = sep + 6;
  }
  parts.resize(3);
  try {
    auto requests = loom::serving::parse_requests(parts[0], "run/requests.csv", false);
    const loom::serving::MeasuredRun run =
        loom::serving::read_measured_run_text("run", std::move(requests), parts[1], parts[2]);
    if (run.per_request.size() != run.requests.size()) __builtin_trap();
    for (const auto& it : run.iterations)
      if (it.batch.requests() <= 0 || it.wall_ms() < 0) __builtin_trap();
    for (const auto& r : run.per_request)
      if (r.ttft_ms() < 0 || r.tpot_ms() < 0) __builtin_trap();
  } catch (const loom::InputError&) {
  }
  return 0;
}
