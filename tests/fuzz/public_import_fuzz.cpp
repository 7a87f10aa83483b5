// Fuzz target: arbitrary bytes -> the public-data importer (PipeWeave CSV) -> the corpus writer's text. Only
// InputError may escape; anything else (other exceptions, crashes, sanitizer reports) is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "trace/import_public.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    loom::PublicImport r = loom::import_public_text("fuzz_train.csv", text, "");
    for (const auto& co : r.corpora) {
      for (const auto& row : co.rows)
        if (!(row.median_us > 0)) std::abort();  // a non-positive time must have been refused
      (void)loom::format_corpus(co);
    }
  } catch (const loom::InputError&) {
  }
  return 0;
}
