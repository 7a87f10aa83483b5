// The predicted timeline of one step as Chrome-trace JSON (chrome://tracing, ui.perfetto.dev).
#pragma once

#include <nlohmann/json.hpp>

#include "e2e/e2e.h"

namespace loom {

/// {"traceEvents": [...]}: one complete ("X") event per kernel on a "GPU" track (ts/dur in us), the host's
/// launches on a "host" track, layer spans on a "layers" track, and process/thread names as metadata events.
nlohmann::json chrome_trace(const StepPrediction& p);

}  // namespace loom
