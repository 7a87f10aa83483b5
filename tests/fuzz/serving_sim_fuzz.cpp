// Fuzz target: request streams that parse (CSV), at most 4 requests of modest length, through a whole serving
// simulation (scheduler, KV cache, step model) and its summary. Slow per input by nature (a simulation each), so
// it runs beside the fast reader target serving_requests_fuzz. Only loom::InputError may come out.
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
  try {
    const auto reqs = loom::serving::parse_requests(text, "fuzz.csv", false);
    if (reqs.size() > 4) return 0;
    for (const auto& r : reqs)
      if (r.prompt_tokens > 4096 || r.output_tokens > 64 || r.arrival_s > 100) return 0;
    static const loom::Catalog catalog = loom::Catalog::load();
    static const loom::GpuSpec gpu = catalog.get("h200");
    static const loom::ModelConfig model = loom::load_model("llama-3.2-1b");
    static const loom::ServingProfile profile = loom::load_profile("vllm");
    const auto r = loom::serving::simulate(gpu, model, profile, reqs, {}, {});
    (void)loom::serving::summarize(r, {});
  } catch (const loom::InputError&) {
  }
  return 0;
}
