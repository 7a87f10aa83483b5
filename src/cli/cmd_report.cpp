// `loom report`: writes one self-contained HTML file (inline SVG/CSS/JS) from demo data (--sample) or from a
// JSON serialization of report::Report (--json-in, as other commands produce it); --json-out writes that JSON.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands_report.h"
#include "core/error.h"
#include "report/report.h"
#include "report/report_json.h"

namespace loom::cli {

namespace {

void write_file(const std::string& path, const std::string& text, const std::string& flag) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(flag, "cannot write '" + path + "'; check that its folder exists and is writable");
  out << text;
  if (!out.flush()) throw InputError(flag, "writing '" + path + "' failed; check free disk space");
}

}  // namespace

int cmd_report(const std::vector<std::string>& argv) {
  Args args(argv, {"-o", "--out", "--json-in", "--json-out"}, {"--sample"});
  if (!args.positional().empty())
    throw InputError(args.positional().front(), "unexpected argument; usage: loom report (--sample | --json-in "
                                                "FILE) [-o FILE.html] [--json-out FILE.json]");
  bool sample = args.has("--sample");
  if (sample == args.has("--json-in"))
    throw InputError("--sample", "give exactly one of --sample (demo data) or --json-in FILE (report data)");

  report::Report rep;
  if (sample) {
    rep = report::sample_report();
  } else {
    const std::string path = args.get("--json-in");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("--json-in", "cannot read '" + path + "'; check the path");
    std::stringstream ss;
    ss << in.rdbuf();
    rep = report::report_from_json_text(ss.str(), path);
  }

  if (args.has("--json-out")) write_file(args.get("--json-out"), report::report_to_json(rep).dump(1) + "\n",
                                         "--json-out");
  const std::string out = args.has("-o") ? args.get("-o") : args.get("--out");
  std::string html = report::render_html(rep);
  if (out.empty()) {
    std::cout << html;
  } else {
    write_file(out, html, args.has("-o") ? "-o" : "--out");
    std::cout << "wrote " << out << " (" << html.size() / 1024 << " KiB, self-contained HTML)\n";
  }
  return 0;
}

}  // namespace loom::cli
