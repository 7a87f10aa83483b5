// Fuzz target: arbitrary bytes as a model directory's coverage.json (what the training corpus measured per family and
// the held-out error bands; read by `predict --interval`) -> the coverage and an interval for every family on every
// architecture. Only loom::InputError may come out.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hw/gpu_schema.h"
#include "kernels/shape.h"
#include "learned/uncertainty.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::Coverage c = loom::Coverage::from_text(text, "coverage.json");
    for (const auto& family : loom::family_names())
      for (const auto& arch : loom::gpu_architectures()) {
        const loom::Uncertainty u = loom::assess(c, family, arch, "h100-sxm", "cublas", 10.0);
        if (!(u.lo_us > 0) || !(u.hi_us >= u.lo_us) || !std::isfinite(u.hi_us))
          __builtin_trap();  // a band the reader let through
      }
  } catch (const loom::InputError&) {
  }
  return 0;
}
