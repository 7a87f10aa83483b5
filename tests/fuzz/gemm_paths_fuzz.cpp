// Fuzz target: arbitrary bytes as kernels/gemm_paths.json (the learned GEMM path table written by `loom trace paths`)
// -> the table, read strictly. Only loom::InputError may come out; an accepted entry is one loom looks up.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "kernels/gemm_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& [key, c] : loom::parse_gemm_path_table(text, "gemm_paths.json"))
      if (c.key != key || c.path.empty() || c.n < 1 || !(c.share >= 0 && c.share <= 1) ||
          !(c.split_k_share >= 0 && c.split_k_share <= 1))
        __builtin_trap();
  } catch (const loom::InputError&) {
  }
  return 0;
}
