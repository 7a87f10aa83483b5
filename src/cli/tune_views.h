// Views of `loom tune`: the fit summary, the validation report (text and JSON) and one decision (text and JSON).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "wave/decide.h"
#include "wave/validate.h"

namespace loom::cli {

/// Pool and fit statistics of freshly built tables (ends with a newline).
std::string fit_summary_text(const wave::TuneTables& t, int64_t incomplete_shapes);
std::string validation_text(const wave::ValidationReport& r);
nlohmann::ordered_json validation_json(const wave::ValidationReport& r);
/// `--per-shape FILE`: one CSV row per held-out shape (the wave tuner, ratio mode): shape, rows, band, chosen and best
/// config, their measured latencies, the default's, chosen/best.
std::string per_shape_csv(const wave::ValidationReport& r);
/// One decision; `reps` 0 means it was not timed (deterministic output).
std::string decision_text(const wave::CompiledTables& t, const wave::TuneShape& s, const wave::Choice& c,
                          double median_ns, int reps);
nlohmann::ordered_json decision_json(const wave::CompiledTables& t, const wave::TuneShape& s, const wave::Choice& c,
                                     double median_ns, int reps);

}  // namespace loom::cli
