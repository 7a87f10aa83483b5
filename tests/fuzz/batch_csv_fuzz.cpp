// Fuzz target: arbitrary bytes as a `loom predict --batch` CSV: header, rows, kernel specs, shapes on a GPU.
// The only exception allowed out is loom::InputError.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/shape.h"
#include "trace/batch_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const loom::Catalog catalog = loom::Catalog::load();
  static const loom::GpuSpec gpu = catalog.get("h200");
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  try {
    if (!std::getline(in, line)) return 0;
    const loom::BatchHeader h = loom::parse_batch_header(line, "fuzz.csv:1");
    int lineno = 1;
    while (std::getline(in, line) && lineno < 64) {
      ++lineno;
      if (line.empty()) continue;
      std::string row_gpu;
      try {
        const loom::KernelSpec spec =
            loom::batch_row_spec(h, loom::split_csv_line(line), "fuzz.csv:" + std::to_string(lineno), row_gpu);
        (void)loom::parse_shape(spec, gpu);
      } catch (const loom::InputError&) {
      }
    }
  } catch (const loom::InputError&) {
  }
  return 0;
}
