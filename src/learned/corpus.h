// Measured kernels from a trace corpus directory (traces/<gpu>/*.corpus.csv.gz), for training and validation.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "learned/dataset.h"

namespace loom {

struct MeasurementSet {
  std::vector<Measurement> rows;
  std::vector<std::string> files;      ///< corpus files read, sorted
  std::string corpus_hash;             ///< FNV-1a over the files' bytes (decompressed), in sorted order
  std::map<std::string, int> skipped;  ///< reason -> count (e.g. GPU not in the catalogue)
};

/// A row of a corpus with `#resolution_us=R` is used only when its median is at least this many R.
inline constexpr double kMinResolutionMultiple = 20;

/// Reads every corpus file under `traces_dir` (recursively). Throws InputError on unreadable/corrupt files.
MeasurementSet load_measurements(const std::string& traces_dir);

/// True for the case-list tools of the tuner's exhaustive sweeps (moe_sweep.py, gemm_sweep.py, with any options):
/// their corpora are `loom tune`'s data, never the efficiency model's.
bool is_tune_sweep_tool(const std::string& tool);

}  // namespace loom
