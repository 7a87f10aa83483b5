// Fuzz target: arbitrary bytes through every public-format reader of `loom trace import --from` (NeuSight, Vidur,
// PipeWeave, loom's collectives.py), with file names that select a GPU, and each GPU's rows through the check for rows
// faster than the GPU's peak (round 14). The only exception allowed out is loom::InputError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "hw/catalog.h"
#include "trace/import_public.h"
#include "trace/peak_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const loom::GpuNameTable names = [] {
    loom::GpuNameTable t;
    t.add("Tesla T4", "t4");
    t.add("NVIDIA L4", "l4");
    return t;
  }();
  loom::PublicImportContext ctx;
  ctx.names = &names;
  ctx.sms_for = [](const std::string&) { return int64_t(40); };
  static const char* const kFiles[][2] = {{"neusight", "test-bmm.csv"},
                                          {"vidur", "compute/a100/meta-llama/Llama-2-7b-hf/mlp.csv"},
                                          {"pipeweave", "moe_dse_H800_99.csv"},
                                          {"pipeweave", "unknown.csv"},
                                          {"loom", "collectives/rank0.csv"},
                                          {"vidur", "network/h100_dgx/send_recv.csv"},
                                          {"pipeweave", "collective/H20/all_reduce.csv"},
                                          {"pipeweave", "gemm_fp8_test.csv"}};  // the fp8 set: named train/test
  for (const auto& f : kFiles) {
    try {
      loom::PublicImportContext c = ctx;
      if (std::string_view(f[0]) == "loom") c.gpu_override = "h200";  // collectives.py files need --gpu
      loom::PublicImport imp = loom::import_public_text(f[0], text, f[1], c);
      static const loom::Catalog catalog = loom::Catalog::load();
      for (const auto& [key, corpus] : imp.by_gpu) {
        (void)loom::format_corpus(corpus);
        (void)loom::faster_than_peak(corpus, catalog.get(key));  // an unknown key: InputError
      }
    } catch (const loom::InputError&) {
    }
  }
  return 0;
}
