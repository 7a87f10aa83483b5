// Learns kernels/gemm_paths.json from traced corpora: for each (architecture, dtype, K/N alignment, batched,
// M bucket), which code path cuBLAS ran most often, how often, and how often with split-K.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/catalog.h"
#include "trace/trace.h"

namespace loom {

/// Builds the table from the whole-chip cuBLAS GEMM rows of `corpora` (rows whose kernels name no GEMM are
/// counted as skipped). Throws InputError for a corpus row whose spec does not parse.
nlohmann::json build_gemm_path_table(const std::vector<Corpus>& corpora, const Catalog& catalog);

}  // namespace loom
