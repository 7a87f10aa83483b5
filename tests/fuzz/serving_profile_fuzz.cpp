// Fuzz target: arbitrary bytes read as a serving profile YAML (parse_profile, scheduler section included). Only
// loom::InputError may come out: yaml-cpp's own exceptions (bad conversions, non-scalar keys) must not escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "e2e/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)loom::parse_profile(text, "fuzz.yaml");
  } catch (const loom::InputError&) {
  }
  return 0;
}
