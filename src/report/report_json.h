// JSON form of report::Report: what `loom report --json-in FILE` reads, so any command (validate, whatif, e2e)
// can hand the report its data as a file. Reading is strict: unknown keys and wrong types are errors.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace loom::report {

/// The report as JSON; keys are the struct field names; absent optionals are left out.
nlohmann::json report_to_json(const Report& report);

/// Reads a report from JSON. Throws loom::InputError(where, "<json path>: what is wrong; what to do") for unknown
/// keys, missing required keys and wrong types. `where` names the source (e.g. the file path).
Report report_from_json(const nlohmann::json& j, const std::string& where);

/// Parses JSON text and reads it as a report; malformed JSON is an InputError with the byte offset.
Report report_from_json_text(const std::string& text, const std::string& where);

}  // namespace loom::report
