// `loom gpus` (the catalogue as a table) and `loom gpus show NAME` (every field of one GPU).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"

namespace loom::cli {

namespace {

std::string tflops(const GpuSpec& g, Dtype d) {
  double v = g.tensor_flops_per_s(d);
  return v > 0 ? fmt(v / 1e12, 3) : "-";
}

Table catalogue_table(const Catalog& catalog, const std::vector<std::string>& overrides) {
  Table t{{"gpu", "name", "arch", "SMs", "clock MHz", "bf16 TF", "fp8 TF", "fp32 TF", "DRAM GB", "DRAM TB/s",
           "L2 MiB", "TDP W", "USD/h"},
          {},
          {false, false, false, true, true, true, true, true, true, true, true, true, true}};
  for (const auto& n : catalog.names()) {
    GpuSpec g = catalog.get(n, overrides);  // --set applies to every row (it was silently ignored here)
    t.add({g.name, g.full_name, g.architecture, std::to_string(g.sms), fmt(g.sustained_clock_mhz, 4),
           tflops(g, Dtype::bf16), tflops(g, Dtype::fp8), fmt(g.fp32_flops_per_s() / 1e12, 3),
           fmt(g.dram_bytes / 1e9, 3), fmt(g.dram_bytes_per_s / 1e12, 3), fmt(g.l2_bytes / 1048576.0, 3),
           fmt(g.tdp_w, 3), g.price_per_hour_usd ? fmt(*g.price_per_hour_usd, 3) : "-"});
  }
  return t;
}

/// The catalogue for programs: numbers as numbers (SI values in the unit the key names), null where a GPU has none.
nlohmann::json catalogue_json(const Catalog& catalog, const std::vector<std::string>& overrides) {
  nlohmann::json arr = nlohmann::json::array();
  auto tf = [](double v) { return v > 0 ? nlohmann::json(v / 1e12) : nlohmann::json(nullptr); };
  for (const auto& n : catalog.names()) {
    GpuSpec g = catalog.get(n, overrides);
    arr.push_back(
        {{"gpu", g.name},
         {"name", g.full_name},
         {"architecture", g.architecture},
         {"sms", g.sms},
         {"clock_mhz", g.sustained_clock_mhz},
         {"bf16_tflops", tf(g.tensor_flops_per_s(Dtype::bf16))},
         {"fp8_tflops", tf(g.tensor_flops_per_s(Dtype::fp8))},
         {"fp32_tflops", g.fp32_flops_per_s() / 1e12},
         {"dram_gb", g.dram_bytes / 1e9},
         {"dram_tb_per_s", g.dram_bytes_per_s / 1e12},
         {"l2_mib", g.l2_bytes / 1048576.0},
         {"tdp_w", g.tdp_w},
         {"usd_per_hour", g.price_per_hour_usd ? nlohmann::json(*g.price_per_hour_usd) : nlohmann::json(nullptr)}});
  }
  return arr;
}

/// A describe() value as JSON: a number when the whole text is one, else the text.
nlohmann::json value_json(const std::string& v) {
  if (v.empty()) return v;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() + v.size() && std::isfinite(d)) return d;
  return v;
}

}  // namespace

int cmd_gpus(const Argv& argv) {
  Args args(argv, {"--format", "--set"});
  Catalog catalog = Catalog::load();
  const auto& pos = args.positional();
  const std::string format = args.format();
  if (pos.empty()) {
    if (format == "json") {
      emit(nlohmann::json{{"schema", "loom.gpus/2"}, {"gpus", catalogue_json(catalog, set_overrides(args))}}
               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    } else {
      Table t = catalogue_table(catalog, set_overrides(args));
      emit(format == "csv" ? t.csv() : t.text());
    }
    return 0;
  }
  if (pos[0] != "show" || pos.size() != 2)
    throw InputError("gpus", "usage: loom gpus [show NAME] [--format table|json|csv]");
  GpuSpec g = gpu_named(catalog, pos[1], overrides_for(pos[1], {pos[1]}, args, "gpus show"), "gpus show");
  Table t{{"field", "value", "unit"}, {}, {false, true, false}};
  for (const auto& f : describe(g)) t.add({f.key, f.value, f.unit});
  if (format == "json") {
    nlohmann::json o;
    o["schema"] = "loom.gpu/2";
    for (const auto& f : describe(g)) o[f.key] = {{"value", value_json(f.value)}, {"unit", f.unit}};
    emit(o.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else {
    // A GPU file with a catalogue entry's values is that entry (Catalog::get): the header says so.
    const std::vector<std::string> keys = catalog.names();
    const bool matched = pos[1] != g.name && std::find(keys.begin(), keys.end(), g.name) != keys.end();
    const std::string origin = matched ? pos[1] + ": the values of catalogue entry '" + g.name + "', " + g.source_file
                                       : g.source_file;
    emit(format == "csv" ? t.csv() : g.full_name + " (" + origin + ")\n\n" + t.text());
  }
  return 0;
}

}  // namespace loom::cli
