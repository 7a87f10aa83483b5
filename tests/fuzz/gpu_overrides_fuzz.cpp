// Fuzz target: arbitrary bytes as `--set` overrides (one "dotted.key=value with unit" or "GPU:key=value" a line) on
// a catalogue GPU, as predict/whatif apply them, then described as `gpus show` does. Only loom::InputError may
// come out.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/gpu_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const loom::Catalog catalog = loom::Catalog::load();
  std::vector<std::string> overrides;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(in, line) && overrides.size() < 64;) overrides.push_back(line);
  for (const char* gpu : {"h200", "t4"}) {
    try {
      (void)loom::describe(catalog.get(gpu, overrides));
    } catch (const loom::InputError&) {
    }
  }
  return 0;
}
