// compulsory_dram_bytes: a kernel's compulsory DRAM bytes without the config search where the config cannot
// change them (the e2e cost cache asks it of every memory-bound launch to decide whether its inputs are still in L2).
#include "analytical/analysis.h"
#include "analytical/demand.h"
#include "kernels/config_space.h"
#include "kernels/shape.h"

namespace loom {

double compulsory_dram_bytes(const GpuSpec& gpu, const KernelSpec& spec) {
  if (gpu.sms <= 0 || gpu.sustained_clock_mhz <= 0) return analyze(gpu, spec, false).min_dram_bytes;  // its error
  const KernelShape s = parse_shape(spec, gpu);
  // Each of these demand models sets min_dram_bytes from the shape, dtypes and op alone (rowwise_model.cpp), so
  // the first candidate's demand carries the chosen config's value (tests/unit/compulsory_bytes_test.cpp checks
  // it against analyze() over random shapes on every GPU).
  Demand (*demand)(const GpuSpec&, const KernelShape&, const TileConfig&, bool) = nullptr;
  switch (s.family) {
    case Family::rms_norm:
    case Family::layer_norm:
    case Family::softmax: demand = rowwise_demand; break;
    case Family::elementwise: demand = elementwise_demand; break;
    case Family::rotary: demand = rotary_demand; break;
    default: break;
  }
  if (!demand || s.config) return analyze(gpu, spec, false).min_dram_bytes;
  const std::vector<TileConfig>& cands = candidate_configs_view(s, gpu);
  if (cands.empty()) return analyze(gpu, spec, false).min_dram_bytes;  // its error
  return demand(gpu, s, cands.front(), false).min_dram_bytes;
}

}  // namespace loom
