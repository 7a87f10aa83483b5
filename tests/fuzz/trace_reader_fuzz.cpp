// Fuzz target: arbitrary bytes through the .lct, case-list and corpus readers (strict and lenient) and the kernel
// name classifier. The only exception allowed out of a reader is loom::InputError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "trace/kernel_names.h"
#include "trace/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool lenient : {false, true}) {
    loom::ReadOptions opts;
    opts.lenient = lenient;
    try {
      loom::LctTrace t = loom::parse_lct(text, "fuzz.lct", opts);
      for (const auto& k : t.kernels) (void)loom::classify_kernel(k.name);
    } catch (const loom::InputError&) {
    }
    try {
      (void)loom::parse_case_list(text, "fuzz.cases.csv", opts);
    } catch (const loom::InputError&) {
    }
    try {
      loom::Corpus c = loom::parse_corpus(text, "fuzz.corpus.csv", opts);
      (void)loom::format_corpus(c);
    } catch (const loom::InputError&) {
    }
  }
  (void)loom::classify_kernel(text.substr(0, 4096));
  return 0;
}
