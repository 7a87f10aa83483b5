// Fuzz target: arbitrary bytes as a file read by the gzip-or-plain readers (trace_io::LineReader::open_file and
// read_all, over trace/gz_stream.cpp's own member loop). The only exception allowed out is loom::InputError.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/error.h"
#include "trace/text_io.h"
#include "../unit/scratch_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const loom::test::ScratchDir scratch;  // this process's own input file, removed at exit
  static const std::string path = scratch.file("input.gz");
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    auto r = loom::trace_io::LineReader::open_file(path, size_t(1) << 24);
    for (std::string line; r.next(line);) {
    }
  } catch (const loom::InputError&) {
  }
  try {
    (void)loom::trace_io::read_all(path, size_t(1) << 24);
  } catch (const loom::InputError&) {
  }
  return 0;
}
