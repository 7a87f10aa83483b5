// Fuzz target: arbitrary bytes through the .lct, case-list and corpus readers (strict and lenient) and the kernel
// name classifier. The only exception allowed out of a reader is loom::InputError; anything else is a bug. A corpus
// that reads is written again and must read back with the same kernel names (corpus version 2's dictionary).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.h"
#include "trace/kernel_names.h"
#include "trace/trace.h"

namespace {

// What the writer writes, version 2 (kernel dictionary) or its version 1 fallback, reads back with the same kernels
// on the same rows. (Numbers are written at 8 digits, so only a re-read that succeeds is compared, and only its
// kernels: a number rounded onto a bound may make a row invalid, which is not this target's concern.)
void check_kernels_round_trip(const loom::Corpus& c) {
  const std::string text = loom::format_corpus(c);
  loom::Corpus back;
  try {
    back = loom::parse_corpus(text, "fuzz-rewritten.corpus.csv");
  } catch (const loom::InputError&) {
    return;
  }
  if (back.rows.size() != c.rows.size()) std::abort();
  for (size_t i = 0; i < c.rows.size(); ++i)
    if (back.rows[i].kernels != c.rows[i].kernels) std::abort();
}

}  // namespace

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
      check_kernels_round_trip(c);
      (void)loom::format_corpus(c, 1);
    } catch (const loom::InputError&) {
    }
  }
  (void)loom::classify_kernel(text.substr(0, 4096));
  return 0;
}
