// Fuzz target: arbitrary bytes through the request-stream readers (CSV and JSONL), the length / arrival / SLO
// parsers, and, when a small stream parses, through a short simulation. Only loom::InputError may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hw/catalog.h"
#include "serving/engine.h"
#include "serving/metrics.h"
#include "serving/requests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (bool jsonl : {false, true}) {
    try {
      auto reqs = loom::serving::parse_requests(text, "fuzz.csv", jsonl);
      if (reqs.size() <= 4) {
        bool small = true;
        for (const auto& r : reqs) small &= r.prompt_tokens <= 4096 && r.output_tokens <= 64 && r.arrival_s < 100;
        if (small) {
          static const loom::Catalog catalog = loom::Catalog::load();
          static const loom::GpuSpec gpu = catalog.get("h200");
          static const loom::ModelConfig model = loom::load_model("llama-3.2-1b");
          static const loom::ServingProfile profile = loom::load_profile("vllm");
          const auto r = loom::serving::simulate(gpu, model, profile, reqs, {}, {});
          (void)loom::serving::summarize(r, {});
        }
      }
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
