// Fuzz target: arbitrary bytes as models/collectives.json (the measured collective fits written by `loom trace
// fit-collectives`) -> the fits and an estimate of every op and impl on an NVLink and a PCIe GPU (own fit or the
// calibrated fit of the others). Only loom::InputError may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hw/catalog.h"
#include "learned/collectives.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const loom::Catalog catalog = loom::Catalog::load();
  static const loom::GpuSpec gpus[] = {catalog.get("h100-sxm"), catalog.get("l4")};
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const loom::CollectiveModel m = loom::CollectiveModel::from_text(text, "collectives.json");
    for (const auto& gpu : gpus)
      for (const auto& op : loom::collective_ops())
        for (const char* impl : {"nccl", "custom"}) {
          const auto e = loom::estimate_collective(m, gpu, op, 8, int64_t{1} << 20, impl);
          if (e && e->latency_us != e->latency_us) __builtin_trap();  // NaN from fits the reader let through
        }
  } catch (const loom::InputError&) {
  }
  return 0;
}
