// Fuzz target: arbitrary bytes as a model directory's model.json (the learned model's index: features and one
// {file, hash} per forest). Only loom::InputError may come out; an accepted index names only plain file names.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "learned/model_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::ModelIndex m = loom::parse_model_index(text, "model.json");
    if (m.features.empty() || m.models.empty()) __builtin_trap();
    for (const auto& e : m.models)
      if (e.file.empty() || e.file.find('/') != std::string::npos || e.hash.size() != 16) __builtin_trap();
  } catch (const loom::InputError&) {
  }
  return 0;
}
