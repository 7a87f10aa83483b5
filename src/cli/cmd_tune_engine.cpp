// `loom tune --export-moe-configs`: fused-MoE config files that vLLM and SGLang load without code changes, one per
// tensor-parallel degree of the model's MoE layers, decided by the moe-triton wave tables (src/wave/engine_export.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands_tune.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/file_io.h"
#include "e2e/model_config.h"
#include "e2e/op_graph.h"
#include "hw/catalog.h"
#include "trace/gpu_names.h"
#include "wave/engine_export.h"
#include "wave/tables.h"

namespace loom::cli {

using namespace loom::wave;

namespace {

std::vector<int> tp_list(const Args& args) {
  std::vector<int> tps;
  std::stringstream ss(args.get("--tp", "1,2,4,8") + ",");  // the sentinel makes a trailing empty item visible
  for (std::string t; std::getline(ss, t, ',');) {
    if (t.size() != 1 || t[0] < '1' || t[0] > '8')
      throw InputError("--tp", "'" + t + "' is not a tensor-parallel degree; use 1-8 or a list such as 1,2,4");
    if (std::find(tps.begin(), tps.end(), t[0] - '0') != tps.end())  // as whatif: each degree once
      throw InputError("--tp", "'" + t + "' is given twice; list each degree once");
    tps.push_back(t[0] - '0');
  }
  return tps;
}

// Largest tokens= among the specs the tables were fitted on (decisions above it extrapolate).
int64_t max_sampled_tokens(const TuneTables& t) {
  int64_t m = 0;
  for (const auto& spec : t.sampled) {
    auto p = spec.find("tokens=");
    if (p != std::string::npos) m = std::max<int64_t>(m, std::atoll(spec.c_str() + p + 7));
  }
  return m;
}

}  // namespace

int run_export_moe_configs(const Args& args) {
  const std::string gpu_key = args.require("--gpu");
  Catalog::load().get(gpu_key);  // validates the name
  const std::string dtype = args.get("--dtype", "bf16");
  if (dtype != "bf16" && dtype != "fp8") throw InputError("--dtype", "'" + dtype + "' is not bf16 or fp8");
  const std::vector<int> tps = tp_list(args);
  const ModelConfig model = load_model(args.require("--model"));
  if (!model.is_moe())
    throw InputError("--model",
                     model.name + " has no MoE layers; give an MoE model (e.g. qwen3-30b-a3b, mixtral-8x7b)");
  // A degree the user names must split the model (heads, KV heads, widths) as the engines require; the default list
  // skips the degrees that do not.
  if (args.has("--tp"))
    for (int tp : tps) shard(model, tp);  // throws InputError("--tp", "... is not divisible by tp=N; ...")
  const auto device = GpuNameTable::load_default().name_for(gpu_key);
  if (!device)
    throw InputError("--gpu", "no CUDA device name for '" + gpu_key + "' in traces/gpu_names.tsv (the engines name "
                              "config files by it); add a line there");
  const std::string target = dtype == "fp8" ? "moe-triton-fp8" : "moe-triton";
  const TuneTables t = load_tables(args.get("--tables", tables_path(gpu_key, target)), gpu_key, target);
  const CompiledTables ct = compile_tables(t);
  const int64_t max_m = max_sampled_tokens(t);
  const std::string dir = args.require("--export-moe-configs");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, "cannot create the directory: " + ec.message());

  Table table;
  table.columns = {"file", "M", "config", "w13 us", "w2 us", "note"};
  table.right_align = {false, true, false, true, true, false};
  nlohmann::ordered_json prov{{"schema", "loom.moe_configs/1"}, {"gpu", gpu_key}, {"device_name", *device},
                              {"model", model.name}, {"dtype", dtype}, {"tables", t.gpu + "-" + t.family},
                              {"max_measured_tokens", max_m}, {"files", nlohmann::ordered_json::array()}};
  for (int tp : tps) {
    if (model.moe_intermediate % tp != 0) {
      std::fprintf(stderr, "loom: skipping tp %d: expert intermediate size %lld is not divisible by it\n", tp,
                   static_cast<long long>(model.moe_intermediate));
      continue;
    }
    const MoeLayerShape l{model.experts, model.experts_per_token, model.hidden, model.moe_intermediate / tp};
    const auto choices = choose_engine_configs(ct, l, engine_batch_sizes(), max_m);
    const std::string name = moe_config_file_name(l, *device, dtype);
    write_file(dir + "/" + name, engine_config_json(ct, choices).dump(4) + "\n");
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& c : choices) {
      const std::string note = c.extrapolated ? "extrapolated" : "";
      table.add({name, std::to_string(c.m), ct.configs[size_t(c.config)], fmt(c.w13_us), fmt(c.w2_us), note});
      rows.push_back({{"m", c.m}, {"config", ct.configs[size_t(c.config)]}, {"w13_us", c.w13_us}, {"w2_us", c.w2_us},
                      {"extrapolated", c.extrapolated}});
    }
    prov["files"].push_back({{"file", name}, {"tp", tp}, {"E", l.experts}, {"N", l.inter}, {"decisions", rows}});
  }
  // Provenance beside the engine files (the engines open only their exact file names).
  const std::string prov_name = "loom-moe-configs-" + model.name + "-" + dtype + ".json";
  write_file(dir + "/" + prov_name, prov.dump(1) + "\n");
  if (args.format("`loom tune --export-moe-configs`", {"table", "json"}) == "json")
    emit(prov.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  else
    emit(table.text() + "wrote " + std::to_string(prov["files"].size()) + " config file(s) and " + prov_name + " to " +
         dir + "\n");
  return 0;
}

}  // namespace loom::cli
