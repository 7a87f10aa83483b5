// Fuzz target: arbitrary bytes read as wave tuning tables (models/tune/<gpu>-<family>.json: tables_from_json, with
// the moe-triton per-config model), compiled, then a decision for a gemm and an moe shape and the engine-file
// choices. Only loom::InputError may come out (no crash, hang, division by zero or other exception).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "wave/decide.h"
#include "wave/engine_export.h"
#include "wave/tables.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  try {
    const loom::wave::TuneTables t = loom::wave::tables_from_json(j, "fuzz.json");
    const loom::wave::CompiledTables ct = loom::wave::compile_tables(t);
    loom::wave::TuneShape s;
    if (ct.moe) {
      s.family = "moe", s.tokens = 37, s.experts = 8, s.topk = 2, s.hidden = 4096, s.inter = 1792, s.stage = 2;
      (void)loom::wave::choose_engine_configs(ct, {8, 2, 4096, 1792}, {1, 64, 4096}, 2048);
    } else {
      s.family = "gemm", s.m = 37, s.n = 4096, s.k = 1000;
    }
    (void)loom::wave::decide(ct, s);
  } catch (const loom::InputError&) {
  }
  return 0;
}
