// `loom calibrate RESULT.json --gpu KEY [-o FILE.yaml]`: a calibration run (scripts/torch/calibrate.py) -> a GPU YAML
// overlay (hw/calibration.h says what it sets and why); written, then loaded back through the catalogue's checks.
#include <cstdio>

#include "cli/args.h"
#include "cli/commands_calibrate.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "core/suggest.h"
#include "hw/calibration.h"
#include "hw/catalog.h"
#include "trace/gpu_names.h"

namespace loom::cli {

int cmd_calibrate(const std::vector<std::string>& argv) {
  Args args(argv, {"--gpu", "-o", "--out"});
  const auto& pos = args.positional();
  if (pos.size() != 1)
    throw InputError("calibrate", "give one calibration result (scripts/torch/calibrate.py --out FILE)");
  const std::string file = pos[0];
  const std::string key = args.require("--gpu");
  const Catalog catalog = Catalog::load();
  const GpuSpec base = catalog.get(key);  // unknown keys refused with the catalogue's list
  const std::string body = read_input_file(file, "cannot read the calibration result");
  const CalibrationOverlay ov = calibration_overlay(body, file, key, base, catalog.get("h200"));
  // A result from another GPU model than --gpu names (traces/gpu_names.tsv) is refused, not blended in.
  const GpuNameTable names = GpuNameTable::load_default();
  const auto measured = names.key_for(ov.device);
  if (measured && *measured != key)
    throw InputError(ov.device_where, "was measured on " + ov.device + " (" + *measured + "), not " + key + "; pass --gpu " +
                               *measured);
  // A device name the table does not know is a new SKU (--gpu names the entry it extends, as for any result), unless
  // it is within 2 edits of a known name: "NVIDIA H100 80GB HBM" evaded the check above and blended another GPU's
  // measurements into --gpu (probe round 9). Refused with the name it is close to; a real SKU that close (an L40S
  // beside the L40) gets its line in traces/gpu_names.tsv first, as a newly traced GPU does.
  if (!measured) {
    const std::string near = closest_match(ov.device, names.names(), 2);
    if (!near.empty())
      throw InputError(ov.device_where, "'device.gpu' = '" + ov.device.substr(0, 80) + "' is not in " + names.path() +
                                 " (did you mean '" + near + "', " + *names.key_for(near) +
                                 "?); fix the name, or add a line for a new GPU");
  }
  const std::string& y = ov.yaml;
  // The overlay must load: the same checks as any catalogue file.
  const std::string out = args.output();
  if (out.empty() || is_stdout_path(out)) {
    emit(y);
  } else {
    write_file(out, y);
    (void)Catalog::load().get(out);
    std::fprintf(stderr, "loom: wrote %s (extends %s); use it with --gpu %s\n", out.c_str(), key.c_str(), out.c_str());
  }
  return 0;
}

}  // namespace loom::cli
