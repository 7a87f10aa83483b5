// Fuzz target: any bytes, read as a GPU YAML document (extends resolved against the real catalogue) and built into
// a GpuSpec, must either succeed or throw loom::InputError; anything else (crash, other exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/gpu_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string catalog_dir = loom::data_dir() + "/gpus";
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::RawSpec raw = loom::read_gpu_text(text, "fuzz.yaml", catalog_dir);
    const loom::GpuSpec g = loom::build_gpu_spec(raw, "fuzz", "fuzz.yaml");
    (void)loom::describe(g);
  } catch (const loom::InputError&) {
  }
  return 0;
}
