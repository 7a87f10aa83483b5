// `loom report`: writes one self-contained HTML file (inline SVG/CSS/JS) from demo data (--sample), from a JSON
// serialization of report::Report (--json-in), or from loom's own outputs and model: --validation (scatters, and
// measured kernels on the --gpu rooflines), --e2e (step timeline), --whatif (ranking, sensitivity) and --gpu G
// --kernel SPEC (rooflines, speed-of-light bars), in any combination; --json-out writes the JSON it rendered.
#include <iostream>

#include "cli/args.h"
#include "cli/commands_report.h"
#include "cli/common.h"
#include "cli/report_from_analysis.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "report/loom_json.h"
#include "report/report.h"
#include "report/report_json.h"

namespace loom::cli {

namespace {

std::string read_file(const std::string& path, const std::string& flag) {
  return read_input_file(path, "cannot read '" + path + "'; check the path", flag);
}


/// A non-negative whole number from `flag` (0 = no limit), or `fallback`.
long count(const Args& args, const std::string& flag, long fallback) {
  std::optional<double> v = args.number(flag);
  if (!v) return fallback;
  if (*v < 0 || *v != static_cast<double>(static_cast<long>(*v)))
    throw InputError(flag, "'" + args.get(flag) + "' must be a whole number of points (0 = draw all)");
  return static_cast<long>(*v);
}

/// The measured time of `spec` on `gpu`'s whole chip in a validation file (same canonical spec text), if any.
std::optional<double> measured_time(const report::ValidationData& v, const GpuSpec& gpu, const KernelSpec& spec) {
  const std::string text = spec.to_string();
  for (const auto& p : v.points) {
    if (p.gpu != gpu.name || (p.sms != 0 && p.sms != gpu.sms)) continue;
    try {
      if (parse_kernel_spec(p.spec, "validation point").to_string() == text) return p.measured_us;
    } catch (const InputError&) {
      // a spec the parser rejects matches nothing
    }
  }
  return std::nullopt;
}

/// Rooflines (and speed-of-light bars) of --kernel specs and/or --validation's measured kernels on each --gpu.
void add_rooflines(report::Report& rep, const Args& args, const report::ValidationData* validation) {
  std::optional<double> measured = args.number("--measured-us");
  // A kernel's time, as the corpus reader takes one (1e300 us was answered "1e294x slower than its ceiling"; round 14).
  if (measured && !(*measured > 0 && *measured <= 1e9))
    throw InputError("--measured-us", "must be a kernel's time in microseconds, above 0 and at most 1e9");
  std::vector<KernelSpec> specs;
  for (const auto& k : args.all("--kernel")) specs.push_back(parse_kernel_spec(k, "--kernel"));
  if (measured && specs.size() != 1) throw InputError("--measured-us", "give it with exactly one --kernel");
  Catalog catalog = Catalog::load();
  std::vector<GpuSpec> gpus = select_gpus(catalog, args);
  std::string skipped;
  MeasuredPlacement total;
  const size_t max_drawn = static_cast<size_t>(count(args, "--roofline-max", 150));
  for (const GpuSpec& g : gpus) {
    std::vector<Analysis> analyses;
    std::vector<std::optional<double>> measured_us;  // per analysis: --measured-us, or the validation file's time
    for (const auto& spec : specs) {
      try {
        analyses.push_back(analyze(g, spec));
        measured_us.push_back(measured ? measured : validation ? measured_time(*validation, g, spec) : std::nullopt);
      } catch (const InputError& e) {
        if (gpus.size() == 1) throw;  // one GPU: the kernel is simply wrong for it
        skipped += (skipped.empty() ? "" : "; ") + g.name + ": " + e.detail();  // several: note it, go on
      }
    }
    report::RooflineChart chart = roofline_from(g, analyses);
    if (validation) {
      MeasuredPlacement m = add_measured_points(chart, g, validation->points, max_drawn);
      total.found += m.found, total.drawn += m.drawn, total.unplaced += m.unplaced;
    }
    rep.rooflines.push_back(std::move(chart));
    for (size_t i = 0; i < analyses.size(); ++i) rep.sol.push_back(sol_from(analyses[i], measured_us[i]));
  }
  if (!specs.empty()) rep.subtitle += " Analytical model: " + std::to_string(specs.size()) + " kernel(s).";
  if (validation)
    rep.subtitle += " Rooflines: " + std::to_string(total.drawn) + " of " + std::to_string(total.found) +
                    " measured whole-chip kernels (diamonds; rings = the learned prediction)" +
                    (total.unplaced ? ", " + std::to_string(total.unplaced) + " the model could not place" : "") + ".";
  if (!skipped.empty()) rep.subtitle += " Not modelled: " + skipped + ".";
}

report::Report from_loom_outputs(const Args& args) {
  report::Report rep;
  rep.title = "loom report";
  std::optional<report::ValidationData> validation;
  if (args.has("--validation")) {
    const std::string path = args.get("--validation");
    validation = report::validation_from_json(report::loom_json_text(read_file(path, "--validation"), path), path);
    rep.scatters = report::validation_scatters(*validation);
    for (auto& s : rep.scatters) s.max_drawn_per_panel = static_cast<size_t>(count(args, "--scatter-max", 200));
    rep.subtitle += "Validation: " + std::to_string(validation->points.size()) + " measured kernels" +
                    (validation->model_fingerprint.empty() ? "" : ", model " + validation->model_fingerprint) +
                    (validation->corpus_hash.empty() ? "" : ", corpus " + validation->corpus_hash) + ".";
  }
  if (args.has("--gpu")) add_rooflines(rep, args, validation ? &*validation : nullptr);
  if (args.has("--e2e")) {
    const std::string path = args.get("--e2e");
    report::add_e2e(rep, report::loom_json_text(read_file(path, "--e2e"), path), path);
  }
  if (args.has("--whatif")) {
    const std::string path = args.get("--whatif");
    report::add_whatif(rep, report::loom_json_text(read_file(path, "--whatif"), path), path);
  }
  if (args.has("--simulate")) {
    const std::string path = args.get("--simulate");
    report::add_simulate(rep, report::loom_json_text(read_file(path, "--simulate"), path), path);
  }
  if (!rep.subtitle.empty() && rep.subtitle.front() == ' ') rep.subtitle.erase(0, 1);
  return rep;
}

}  // namespace

int cmd_report(const std::vector<std::string>& argv) {
  Args args(argv, {"-o", "--out", "--json-in", "--json-out", "--gpu", "--set", "--kernel", "--measured-us",
                   "--title", "--validation", "--e2e", "--whatif", "--simulate", "--scatter-max", "--roofline-max"},
            {"--sample"});
  if (!args.positional().empty())
    throw InputError(args.positional().front(),
                     "unexpected argument; usage: loom report (--sample | --json-in FILE | [--validation FILE] "
                     "[--e2e FILE] [--whatif FILE] [--simulate FILE] [--gpu G [--kernel SPEC]...]) [-o FILE.html] "
                     "[--json-out FILE]");
  const bool sample = args.has("--sample");
  const bool loom_outputs =
      args.has("--kernel") || args.has("--validation") || args.has("--e2e") || args.has("--whatif") ||
      args.has("--simulate");
  if (args.has("--gpu") && !args.has("--kernel") && !args.has("--validation"))
    throw InputError("--gpu", "draws rooflines of --kernel SPEC or of --validation FILE's measured kernels; give one");
  if (sample + args.has("--json-in") + loom_outputs != 1)
    throw InputError("--sample",
                     "give exactly one of --sample (demo data), --json-in FILE (report data), or any "
                     "of --validation/--e2e/--whatif/--simulate FILE and --gpu G --kernel SPEC (loom's outputs and "
                     "model)");
  if (args.has("--kernel") && !args.has("--gpu")) args.require("--gpu");
  // Flags only one input reads are refused elsewhere, not silently ignored (--sample drew 200 points whatever
  // --scatter-max said).
  if (args.has("--scatter-max") && !args.has("--validation"))
    throw InputError("--scatter-max", "limits the points of --validation FILE's scatters; give it with --validation");
  if (args.has("--roofline-max") && !(args.has("--validation") && args.has("--gpu")))
    throw InputError("--roofline-max",
                     "limits --validation FILE's kernels drawn on --gpu G's roofline; give it with both");
  if (args.has("--set") && !args.has("--gpu"))
    throw InputError("--set", "overrides fields of --gpu G; give it with --gpu");
  if (args.has("--measured-us") && !args.has("--kernel"))
    throw InputError("--measured-us", "is the measured time of --kernel SPEC; give it with --gpu G --kernel SPEC");

  // `-` is stdout for -o and --json-out (round 12), but one of them: the page and the JSON would be one stream.
  if (args.has("--json-out") && (args.output().empty() || is_stdout_path(args.output())))
    refuse_stdout_output("--json-out", args.get("--json-out"), "also receives the HTML page; give -o FILE.html too");
  report::Report rep;
  if (sample) {
    rep = report::sample_report();
  } else if (loom_outputs) {
    rep = from_loom_outputs(args);
  } else {
    const std::string path = args.get("--json-in");
    rep = report::report_from_json_text(read_file(path, "--json-in"), path);
  }

  if (args.has("--title")) rep.title = args.get("--title");
  if (args.has("--json-out"))
    write_file(args.get("--json-out"),
               report::report_to_json(rep).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  const std::string out = args.output();
  std::string html = report::render_html(rep);
  if (out.empty() || is_stdout_path(out)) {
    std::cout << html;
  } else {
    write_file(out, html);
    std::cout << "wrote " << out << " (" << html.size() / 1024 << " KiB, self-contained HTML)\n";
  }
  return 0;
}

}  // namespace loom::cli
