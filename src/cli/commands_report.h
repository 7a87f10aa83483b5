// Entry point of `loom report`: renders the self-contained HTML report (see src/report/report.h).
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom report (--sample | --json-in FILE | [--validation F] [--e2e F] [--whatif F] [--gpu G [--kernel SPEC]])
/// [-o|--out FILE.html] [--json-out FILE.json]`; returns the exit code.
int cmd_report(const std::vector<std::string>& argv);

}  // namespace loom::cli
