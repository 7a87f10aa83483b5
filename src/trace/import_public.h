// Importers for public per-kernel measurements (other projects' profiling data), written as loom corpus files so
// `loom train` / `loom validate` read them like loom's own traces. Formats are recognised by their CSV header.
#pragma once

#include <string>
#include <vector>

#include "trace/trace.h"

namespace loom {

/// One public source format: a name, how to recognise its header, and the reader.
struct PublicImport {
  std::vector<Corpus> corpora;  ///< one per GPU (and split), rows in file order
  std::string format;           ///< e.g. "pipeweave-gemm-fp8"
  size_t rows = 0;
};

/// Reads public profiling files of the given source ("pipeweave"); the format is recognised from each file's
/// header. `split` tags the rows ("train" / "test"; "" infers it from a file name containing train or test).
/// Throws InputError("FILE:LINE", "field ...") on an unknown header, a bad or missing value, an unknown GPU, or a
/// duplicate row.
PublicImport import_public(const std::string& source, const std::vector<std::string>& files, const std::string& split);

/// The same for one file's text already in memory (`name` appears in messages; `split` as above).
PublicImport import_public_text(const std::string& name, std::string text, const std::string& split);

/// The names `--from` accepts.
const std::vector<std::string>& public_sources();

}  // namespace loom
