// Fuzz target: arbitrary bytes -> parse_kernel_spec -> analyze on the unit-test H100 and A100. Only InputError may
// escape; anything else (other exceptions, crashes, sanitizer reports) is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analytical/analysis.h"
#include "core/error.h"
#include "../unit/test_gpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const loom::GpuSpec h100 = loom::test::test_h100();
  static const loom::GpuSpec a100 = loom::test::test_a100();
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    loom::KernelSpec spec = loom::parse_kernel_spec(text, "fuzz");
    for (const loom::GpuSpec* gpu : {&h100, &a100}) {
      loom::Analysis a = loom::analyze(*gpu, spec);
      if (!(a.latency_us >= 0) || !(a.ceiling_us >= 0)) std::abort();  // NaN or negative time is a bug
    }
  } catch (const loom::InputError&) {
  }
  return 0;
}
