// Fuzz target: arbitrary bytes read as a Hugging Face config.json (parse_model_config) and, when they parse, the
// parameter counts derived from it. Only loom::InputError may come out (no crash, hang or other exception).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "e2e/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::ModelConfig m = loom::parse_model_config(text, "fuzz.json");
    (void)m.param_count();
    (void)m.active_param_count();
  } catch (const loom::InputError&) {
  }
  return 0;
}
