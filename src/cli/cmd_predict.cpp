// `loom predict`: one kernel on one or more GPUs, or a CSV batch of kernels.
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/file_io.h"
#include "trace/batch_csv.h"
#include "learned/uncertainty.h"
#include "trace/text_io.h"

namespace loom::cli {

namespace {


Table single_table(const std::vector<Prediction>& results) {
  Table t{{"gpu", "latency_us", "model", "ceiling_us", "bottleneck", "config", "ctas", "waves", "occupancy"},
          {},
          {false, true, false, true, false, false, true, true, true}};
  for (const auto& p : results) {
    const Analysis& a = *p.analysis;
    t.add({a.gpu, fmt(p.latency_us), p.model, fmt(p.ceiling_us()), p.bottleneck(), a.config,
           std::to_string(a.launch.ctas), std::to_string(a.launch.waves), fmt(a.launch.occupancy, 2)});
  }
  return t;
}

int predict_one(const Catalog& catalog, const Args& args, const Predictor& predictor) {
  KernelSpec spec = parse_kernel_spec(args.require("--kernel"), "--kernel");
  std::vector<Prediction> results;
  std::vector<std::pair<std::string, std::string>> unsupported;  // gpu, why (only when several GPUs are asked for)
  const std::vector<GpuSpec> gpus = select_gpus(catalog, args);
  const std::string format = args.format();
  // The achievable latency (the quantile forest) is printed in JSON only: the table and CSV never load it.
  for (const auto& gpu : gpus) {
    try {
      Prediction p = predictor.predict(gpu, spec, format == "json");
      require_fits_memory(p, gpu, "--kernel");
      results.push_back(std::move(p));
    } catch (const InputError& e) {
      if (gpus.size() == 1) throw;
      unsupported.emplace_back(gpu.name, e.detail());
    }
  }
  if (results.empty()) throw InputError("--kernel", "no GPU asked for can run this kernel: " + unsupported[0].second);
  // --interval: the uncertainty band and extrapolation flags (coverage.json of the model; loaded only on request).
  std::vector<Uncertainty> bands;
  if (args.has("--interval")) {
    std::optional<Coverage> cov;
    if (predictor.learned()) cov = Coverage::load(default_model_dir());
    for (const auto& p : results) {
      const GpuSpec* g = nullptr;
      for (const auto& x : gpus)
        if (x.name == p.analysis->gpu || x.full_name == p.analysis->gpu) g = &x;
      if (!g) g = &gpus[0];
      bands.push_back(assess_prediction(cov ? &*cov : nullptr, p, *g, spec));
    }
  }
  auto with_band = [&](nlohmann::json j, size_t i) {
    if (i < bands.size()) {
      j["interval_us"] = {bands[i].lo_us, bands[i].hi_us};
      j["extrapolated"] = bands[i].extrapolated;
      j["uncertainty_notes"] = bands[i].reasons;
    }
    return j;
  };
  if (format == "json") {  // one shape for one GPU or many; GPUs that cannot run the kernel stay, with the reason
    nlohmann::json arr = nlohmann::json::array();
    for (size_t i = 0; i < results.size(); ++i) arr.push_back(with_band(prediction_json(results[i]), i));
    for (const auto& [gpu, why] : unsupported) arr.push_back({{"gpu", gpu}, {"error", why}});
    emit(nlohmann::json{{"schema", "loom.predict/1"}, {"predictions", arr}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n");
    return 0;
  }
  Table t = single_table(results);
  if (!bands.empty()) {
    t.columns.insert(t.columns.begin() + 2, {"interval_us", "extrapolated"});
    if (t.right_align.size() >= 2) t.right_align.insert(t.right_align.begin() + 2, {true, false});
    for (size_t i = 0; i < t.rows.size(); ++i)
      t.rows[i].insert(t.rows[i].begin() + 2,
                       {fmt(bands[i].lo_us) + "-" + fmt(bands[i].hi_us), bands[i].extrapolated ? "yes" : "no"});
  }
  if (format == "csv") {  // an `error` column: GPUs that cannot run the kernel are rows too
    t.columns.push_back("error");
    for (auto& row : t.rows) row.push_back("");
    for (const auto& [gpu, why] : unsupported) {
      std::vector<std::string> row(t.columns.size(), "");
      row[0] = gpu;
      row.back() = why;
      t.rows.push_back(std::move(row));
    }
    emit(t.csv());
  } else {
    std::string s = "kernel: " + results[0].analysis->kernel + "\n\n" + t.text();
    for (const auto& [gpu, why] : unsupported) s += "not run on " + gpu + ": " + why + "\n";
    for (size_t i = 0; i < bands.size(); ++i)
      for (const auto& r : bands[i].reasons) s += results[i].analysis->gpu + ": " + r + "\n";
    emit(s);
  }
  return 0;
}

/// --threads N (default 1): threads that analyse batch rows; 1..256.
int parse_threads(const Args& args) {
  if (!args.has("--threads")) return 1;
  const std::string v = args.get("--threads", "1");
  if (v.empty() || v.size() > 3 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1 ||
      std::stoi(v) > 256)
    throw InputError("--threads", "'" + v + "' is not a thread count; give an integer from 1 to 256");
  return std::stoi(v);
}

/// JSON of one batch row, indented as an element of the top-level array (what arr.dump(2) wrote before rows streamed).
std::string json_element(const Prediction& p) {
  std::string one = nlohmann::json::array({prediction_json(p)})
                        .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);  // "[\n  {...}\n]"
  return one.substr(2, one.size() - 4);
}

/// Batch mode: every CSV row becomes a KernelSpec (`family` column, other non-empty cells as key=value;
/// an optional `gpu` column overrides --gpu per row). Output: the input columns plus predictions. Rows stream in
/// blocks (grouped by family inside a block: Predictor::predict_many), so CSV and JSON output use constant memory;
/// the aligned table needs every row for its column widths and keeps them.
int predict_batch(const Catalog& catalog, const Args& args, const Predictor& predictor) {
  const std::string path = args.require("--batch");
  if (std::error_code ec; std::filesystem::is_directory(path, ec))
    throw InputError("--batch", "'" + path + "' is a directory; give a CSV file");
  check_input_file(path);
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open batch file; check the path");
  std::string line;
  if (!std::getline(in, line)) throw InputError(path + ":1", "empty batch file; expected a header with `family`");
  refuse_cr_line_ends(line, path + ":1");
  const BatchHeader batch_header = parse_batch_header(line, path + ":1");
  const std::vector<std::string>& header = batch_header.columns;
  std::vector<GpuSpec> default_gpus;
  if (args.has("--gpu")) default_gpus = select_gpus(catalog, args);
  if (default_gpus.size() > 1) throw InputError("--gpu", "batch mode takes one GPU (or a `gpu` column)");

  const std::string format = args.format();
  const int threads = parse_threads(args);
  Table out{header, {}, {}};
  for (const char* c : {"latency_us", "model", "ceiling_us", "bottleneck", "config"}) out.columns.push_back(c);
  bool csv_header = format == "csv";  // written with the first rows: a file without rows is refused, not a header
  std::map<std::string, GpuSpec> gpu_cache;  // the `gpu` column's GPUs, each loaded once
  constexpr size_t kBlock = 4096;
  std::vector<std::vector<std::string>> cells_block;
  std::vector<KernelSpec> specs;
  std::vector<const GpuSpec*> gpus;
  std::vector<Prediction> preds;
  size_t emitted = 0;
  auto flush = [&] {
    // CSV and the table print no analysis text (kernel, reason, notes): predicted without it.
    predictor.predict_many(gpus, specs, format == "json", preds, threads, format == "json");
    std::string text;
    if (csv_header && !preds.empty()) text = csv_row(out.columns), csv_header = false;
    for (size_t i = 0; i < preds.size(); ++i) {
      const Prediction& p = preds[i];
      require_fits_memory(p, *gpus[i], specs[i].where);
      const Analysis& a = *p.analysis;
      if (format == "json") {
        text += emitted++ ? ",\n" : "{\n  \"schema\": \"loom.predict/1\",\n  \"predictions\": [\n";
        text += json_element(p);
        continue;
      }
      std::vector<std::string>& row = cells_block[i];
      row.insert(row.end(), {fmt(p.latency_us, 4), p.model, fmt(p.ceiling_us(), 4), p.bottleneck(), a.config});
      if (format == "csv") text += csv_row(row);
      else out.add(std::move(row));
    }
    emit(text);
    cells_block.clear();
    specs.clear();
    gpus.clear();
  };
  int lineno = 1;
  size_t rows_read = 0;
  while (std::getline(in, line)) {
    ++lineno;
    refuse_cr_line_ends(line, path + ":" + std::to_string(lineno));
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> cells = split_csv_line(line);
    const std::string where = path + ":" + std::to_string(lineno);
    std::string row_gpu;
    KernelSpec spec = batch_row_spec(batch_header, cells, where, row_gpu);
    const GpuSpec* gpu = nullptr;
    if (!row_gpu.empty()) {
      auto it = gpu_cache.find(row_gpu);
      if (it == gpu_cache.end())
        it = gpu_cache.emplace(row_gpu, gpu_named(catalog, row_gpu, set_overrides(args), where)).first;
      gpu = &it->second;
    } else if (!default_gpus.empty()) {
      gpu = &default_gpus[0];
    } else {
      throw InputError(where, "no GPU for this row; add a `gpu` column or pass --gpu");
    }
    ++rows_read;
    specs.push_back(std::move(spec));
    gpus.push_back(gpu);
    cells_block.push_back(std::move(cells));
    if (specs.size() == kBlock) flush();
  }
  flush();
  if (rows_read == 0)
    throw InputError(path, "no rows after the header; give one kernel a row (see examples/kernels.csv)");
  if (format == "json")
    emit(emitted ? "\n  ]\n}\n" : "{\n  \"schema\": \"loom.predict/1\",\n  \"predictions\": []\n}\n");
  else if (format != "csv") emit(out.text());
  return 0;
}

}  // namespace

int cmd_predict(const Argv& argv) {
  Args args(argv, {"--gpu", "--set", "--kernel", "--batch", "--format", "--model", "--threads", "--clock"},
            {"--interval"});
  args.no_positionals("predict");
  Catalog catalog = Catalog::load();
  if (args.has("--batch") == args.has("--kernel"))
    throw InputError("predict", "give exactly one of --kernel SPEC or --batch FILE.csv");
  Predictor predictor(args.get("--model", "learned"));
  predictor.set_clock(parse_clock_mode(args.get("--clock", "boost")));
  if (args.has("--threads") && !args.has("--batch"))
    throw InputError("--threads", "applies to --batch only (one --kernel is one prediction)");
  return args.has("--batch") ? predict_batch(catalog, args, predictor) : predict_one(catalog, args, predictor);
}

}  // namespace loom::cli
