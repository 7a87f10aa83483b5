// `loom gpus` (the catalogue as a table) and `loom gpus show NAME` (every field of one GPU).
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

}  // namespace

int cmd_gpus(const Argv& argv) {
  Args args(argv, {"--format", "--set"});
  Catalog catalog = Catalog::load();
  const auto& pos = args.positional();
  const std::string format = args.format();
  if (pos.empty()) {
    Table t = catalogue_table(catalog, set_overrides(args));
    if (format == "json") {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& row : t.rows) {
        nlohmann::json o;
        for (size_t c = 0; c < t.columns.size(); ++c) o[t.columns[c]] = row[c];
        arr.push_back(o);
      }
      emit(nlohmann::json{{"schema", "loom.gpus/1"}, {"gpus", arr}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    } else {
      emit(format == "csv" ? t.csv() : t.text());
    }
    return 0;
  }
  if (pos[0] != "show" || pos.size() != 2)
    throw InputError("gpus", "usage: loom gpus [show NAME] [--format table|json|csv]");
  GpuSpec g = catalog.get(pos[1], set_overrides(args));
  Table t{{"field", "value", "unit"}, {}, {false, true, false}};
  for (const auto& f : describe(g)) t.add({f.key, f.value, f.unit});
  if (format == "json") {
    nlohmann::json o;
    o["schema"] = "loom.gpu/1";
    for (const auto& f : describe(g)) o[f.key] = {{"value", f.value}, {"unit", f.unit}};
    emit(o.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } else {
    emit(format == "csv" ? t.csv() : g.full_name + " (" + g.source_file + ")\n\n" + t.text());
  }
  return 0;
}

}  // namespace loom::cli
