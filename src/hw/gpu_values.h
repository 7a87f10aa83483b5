// The values a GPU is modelled by, as bytes: what makes two GPU descriptions the same GPU to loom's models.
#pragma once

#include <string>

#include "hw/gpu_spec.h"

namespace loom {

/// Every GpuSpec field but its names (key, marketing name), source file and key sources, as bytes. `timing_only`:
/// without the fields that move no kernel's time (SM count, price, node topology: Catalog::get's anchor rule). Two
/// GPUs with equal bytes predict alike (PredictMemo::gpu_key adds the names). A field added to GpuSpec must be added
/// here, or a variant differing only in it would be served another GPU's prediction or taken for a catalogue entry.
std::string gpu_hardware_values(const GpuSpec& g, bool timing_only);

}  // namespace loom
