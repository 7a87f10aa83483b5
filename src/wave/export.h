// Wave model export: the compiled dual tables as a self-contained C header (static arrays + an inline dispatch
// function) that a kernel library can embed, next to the tables' JSON.
#pragma once

#include <string>

#include "wave/decide.h"

namespace loom::wave {

/// C identifier prefix of a GPU and family, e.g. "loom_tune_h100_sxm_gemm".
std::string export_prefix(const std::string& gpu, const std::string& family);
/// The header text. Its dispatch function `<prefix>_pick(...)` (gemm: m, n, k; moe: tokens, experts, topk, hidden,
/// inter, stage 13|2) returns an index into `<prefix>_configs` and makes the same choice as decide() in ratio mode.
std::string export_header(const CompiledTables& t);
/// Writes DIR/<prefix>.h and DIR/<gpu>-<family>.json; returns the two paths joined by ", ".
std::string export_tables(const TuneTables& tables, const std::string& dir);

}  // namespace loom::wave
