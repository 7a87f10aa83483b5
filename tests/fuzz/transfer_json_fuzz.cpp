// Fuzz target: arbitrary bytes as a model directory's transfer.json (per-family transfer weights, read by every
// learned prediction) -> the weights and a lookup for every family on every architecture. Only loom::InputError may
// come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hw/gpu_schema.h"
#include "kernels/shape.h"
#include "learned/transfer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::TransferWeights t = loom::TransferWeights::from_text(text, "transfer.json");
    for (const auto& family : loom::family_names())
      for (const auto& arch : loom::gpu_architectures()) {
        const double w = t.weight_for(family, arch);
        if (!(w >= 0 && w <= 1)) __builtin_trap();  // a weight the reader let through outside [0, 1]
      }
  } catch (const loom::InputError&) {
  }
  return 0;
}
