// `loom report`: writes one self-contained HTML file (inline SVG/CSS/JS) from demo data (--sample), from a JSON
// serialization of report::Report (--json-in, as other commands produce it), and/or from the analytical model
// (--gpu G --kernel SPEC: rooflines and speed-of-light bars); --json-out writes the JSON it rendered.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/args.h"
#include "cli/commands_report.h"
#include "cli/common.h"
#include "cli/report_from_analysis.h"
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
  Args args(argv, {"-o", "--out", "--json-in", "--json-out", "--gpu", "--set", "--kernel", "--measured-us",
                   "--title"},
            {"--sample"});
  if (!args.positional().empty())
    throw InputError(args.positional().front(), "unexpected argument; usage: loom report (--sample | --json-in "
                                                "FILE | --gpu G --kernel SPEC) [-o FILE.html] [--json-out FILE]");
  bool sample = args.has("--sample");
  bool model = args.has("--kernel");
  if (sample + args.has("--json-in") + model != 1)
    throw InputError("--sample", "give exactly one of --sample (demo data), --json-in FILE (report data) or "
                                 "--gpu G --kernel SPEC (the analytical model)");

  report::Report rep;
  if (sample) {
    rep = report::sample_report();
  } else if (model) {
    std::optional<double> measured = args.number("--measured-us");
    if (measured && *measured <= 0) throw InputError("--measured-us", "must be a positive time in microseconds");
    std::vector<KernelSpec> specs;
    for (const auto& k : args.all("--kernel")) specs.push_back(parse_kernel_spec(k, "--kernel"));
    if (measured && specs.size() != 1) throw InputError("--measured-us", "give it with exactly one --kernel");
    Catalog catalog = Catalog::load();
    rep.title = "loom report — predicted";
    rep.subtitle = "Analytical model, no traces: " + std::to_string(specs.size()) + " kernel(s).";
    std::vector<GpuSpec> gpus = select_gpus(catalog, args);
    std::string skipped;
    for (const GpuSpec& g : gpus) {
      std::vector<Analysis> analyses;
      for (const auto& spec : specs) {
        try {
          analyses.push_back(analyze(g, spec));
        } catch (const InputError& e) {
          if (gpus.size() == 1) throw;  // one GPU: the kernel is simply wrong for it
          skipped += (skipped.empty() ? "" : "; ") + g.name + ": " + e.detail();  // several: note it, go on
        }
      }
      rep.rooflines.push_back(roofline_from(g, analyses));
      for (const auto& a : analyses) rep.sol.push_back(sol_from(a, measured));
    }
    if (!skipped.empty()) rep.subtitle += " Not modelled: " + skipped + ".";
  } else {
    const std::string path = args.get("--json-in");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("--json-in", "cannot read '" + path + "'; check the path");
    std::stringstream ss;
    ss << in.rdbuf();
    rep = report::report_from_json_text(ss.str(), path);
  }

  if (args.has("--title")) rep.title = args.get("--title");
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
