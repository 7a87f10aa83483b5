// Fuzz target: arbitrary bytes through the PyTorch profiler (Chrome / Kineto JSON) trace reader and the spec
// recovery from its ops. The only exception allowed out is loom::InputError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "trace/chrome_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::ChromeTrace t = loom::parse_chrome_trace(text, "fuzz.json");
    for (const auto& k : t.kernels) (void)loom::spec_from_op(k.op);
  } catch (const loom::InputError&) {
  }
  return 0;
}
