// GPU selection and JSON views shared by predict, diagnose and batch mode.
#include "cli/common.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <cstdio>
#include <sstream>

#include "cli/table.h"
#include "core/error.h"

namespace loom::cli {

std::vector<std::string> set_overrides(const Args& args) {
  const std::vector<std::string> sets = args.all("--set");
  std::map<std::string, std::string> seen;  // "scope|key" -> the --set that gave it
  for (const auto& s : sets) {
    const size_t eq = s.find('='), colon = s.find(':');
    const bool scoped = colon != std::string::npos && colon < eq;
    const std::string scope = scoped ? s.substr(0, colon) : "";
    const std::string key = s.substr(scoped ? colon + 1 : 0, eq == std::string::npos ? std::string::npos
                                                                                       : eq - (scoped ? colon + 1 : 0));
    // Twice with one value is refused too, as any single-valued flag given twice is (round 10).
    if (auto [it, fresh] = seen.emplace(scope + "|" + key, s); !fresh)
      throw InputError("--set", "'" + key.substr(0, 60) + "' given twice (" +
                                    (it->second != s ? "'" + it->second.substr(0, 60) + "', '" + s.substr(0, 60) + "'"
                                                     : "each '" + s.substr(0, 60) + "'") +
                                    "); give it once");
  }
  return sets;
}

GpuSpec gpu_named(const Catalog& catalog, const std::string& name, const std::vector<std::string>& overrides,
                  const std::string& flag) {
  try {
    return catalog.get(name, overrides);
  } catch (const InputError& e) {
    if (e.where() != "--gpu" || flag == "--gpu") throw;
    throw InputError(flag, e.detail());
  }
}

std::vector<std::string> gpu_list(const std::string& which, const std::string& flag) {
  // A GPU YAML file whose name holds a comma ("lab,v2.yaml") must stay nameable, alone or in a list: from each item,
  // the longest run of items that joins (with its commas) into an existing file is one name (up to 8 commas in a
  // name, so a long list costs a few stat calls an item, not a number that grows with its square).
  std::vector<std::string> items;
  std::stringstream ss(which + ",");  // the sentinel makes a trailing empty item visible
  for (std::string n; std::getline(ss, n, ',');) items.push_back(n);
  std::vector<std::string> names;
  for (size_t i = 0; i < items.size();) {
    size_t end = i + 1;
    std::string joined = items[i], name = items[i];
    for (size_t j = i + 1; j < items.size() && j <= i + 8; ++j) {
      joined += "," + items[j];
      std::error_code ec;
      if (std::filesystem::is_regular_file(joined, ec)) name = joined, end = j + 1;
    }
    if (name.empty())
      throw InputError(flag, "'" + which.substr(0, 80) + "' has an empty item; give a comma list without gaps");
    if (name == "all") throw InputError(flag, "'" + which.substr(0, 80) + "': all is every GPU; give it alone");
    names.push_back(name);
    i = end;
  }
  return names;
}

void refuse_duplicate_gpus(const Catalog& catalog, const std::vector<std::string>& names, const std::string& flag) {
  std::map<std::string, std::string> seen;  // file -> the name that gave it
  for (const auto& n : names)
    if (auto [it, fresh] = seen.emplace(catalog.file_of(n), n); !fresh)
      throw InputError(flag, it->second == n ? "'" + n + "' is named twice; name each GPU once"
                                             : "'" + it->second + "' and '" + n + "' are one GPU (" + it->first +
                                                   "); name each GPU once");
}

std::vector<std::string> overrides_for(const std::string& gpu, const std::vector<std::string>& names,
                                       const Args& args, const std::string& flag) {
  // General keys first, then this GPU's `GPU:key` ones, whatever the order given: the scoped value is the GPU's
  // (`--set h200:sms=66 --set sms=120` gave the H200 120 SMs, its own 66 dropped without a word; round 13).
  std::vector<std::string> overrides, scoped;
  for (const auto& s : set_overrides(args)) {
    const size_t eq = s.find('='), colon = s.find(':');
    if (colon == std::string::npos || colon > eq) {
      overrides.push_back(s);
      continue;
    }
    const std::string target = s.substr(0, colon);
    if (std::find(names.begin(), names.end(), target) == names.end())
      throw InputError("--set", "'" + s.substr(0, 80) + "' names GPU '" + target.substr(0, 60) + "', which is not in " +
                                    flag + "; name one of its GPUs or drop the 'GPU:' scope");
    if (target == gpu) scoped.push_back(s.substr(colon + 1));
  }
  overrides.insert(overrides.end(), scoped.begin(), scoped.end());
  return overrides;
}

std::vector<GpuSpec> gpus_named(const Catalog& catalog, const std::vector<std::string>& names, const Args& args,
                                const std::string& flag) {
  if (names.empty()) throw InputError(flag, "no GPU named; try `loom gpus` for the catalogue");
  refuse_duplicate_gpus(catalog, names, flag);
  std::vector<GpuSpec> gpus;
  for (const auto& n : names) gpus.push_back(gpu_named(catalog, n, overrides_for(n, names, args, flag), flag));
  return gpus;
}

std::vector<GpuSpec> select_gpus(const Catalog& catalog, const Args& args) {
  const std::string which = args.require("--gpu");
  return gpus_named(catalog, which == "all" ? catalog.names() : gpu_list(which, "--gpu"), args, "--gpu");
}

nlohmann::json analysis_json(const Analysis& a) {
  nlohmann::json pipes = nlohmann::json::array();
  for (const auto& p : a.pipes) {
    pipes.push_back({{"pipe", p.pipe},
                     {"unit", p.unit},
                     {"total", p.total},
                     {"busiest_sm", p.busiest_sm},
                     {"time_us", p.time_us},
                     {"share_of_ceiling", a.ceiling_us > 0 ? p.time_us / a.ceiling_us : 0.0}});
  }
  const auto& l = a.launch;
  return {{"gpu", a.gpu},
          {"kernel", a.kernel},
          {"family", a.family},
          {"config", a.config},
          {"config_pinned", a.config_pinned},
          {"config_reason", a.config_reason},
          {"latency_us", a.latency_us},
          {"ceiling_us", a.ceiling_us},
          {"bottleneck", a.bottleneck},
          {"fixed_overhead_us", a.fixed_overhead_us},
          {"flops", a.flops},
          {"dram_bytes", a.dram_bytes},
          {"min_dram_bytes", a.min_dram_bytes},
          {"l2_bytes", a.l2_bytes},
          {"launch",
           {{"ctas", l.ctas},
            {"loop_iters", l.loop_iters},
            {"threads_per_cta", l.threads_per_cta},
            {"regs_per_thread", l.regs_per_thread},
            {"smem_per_cta_bytes", l.smem_per_cta_bytes},
            {"ctas_per_sm", l.ctas_per_sm},
            {"occupancy_limit", l.occupancy_limit},
            {"occupancy", l.occupancy},
            {"waves", l.waves},
            {"last_wave_fill", l.last_wave_fill},
            {"tile_waste", l.tile_waste}}},
          {"pipelines", pipes},
          {"notes", a.notes}};
}

nlohmann::json prediction_json(const Prediction& p) {
  nlohmann::json j = analysis_json(*p.shown_analysis());  // with a warm ceiling, its bottleneck and note
  j["analytical_latency_us"] = p.analysis->latency_us;
  j["latency_us"] = p.latency_us;
  j["model"] = p.model;
  if (p.achievable_us) j["achievable_us"] = *p.achievable_us;
  if (p.at_ceiling) j["at_ceiling"] = true;  // clamped: the learned model went below the speed-of-light ceiling
  if (p.clock_factor != 1.0) j["sustained_load_factor"] = p.clock_factor;  // --clock sustained|auto slowed it
  if (p.transfer_weight < 1.0) {  // an architecture the family was never measured on (learned/transfer.h)
    j["transfer_weight"] = p.transfer_weight;
    j["extrapolated"] = "no measured " + p.analysis->family + " kernels on this architecture: learned^" +
                        fmt(p.transfer_weight, 2) + " x analytical^" + fmt(1 - p.transfer_weight, 2);
  }
  if (p.collective) {
    j["collective_basis"] = p.collective->basis;
    if (!p.collective->extrapolation.empty()) j["extrapolation"] = p.collective->extrapolation;
  }
  return j;
}

KernelPredictor kernel_predictor(const Args& args, std::optional<ClockMode> mode, double sustained_weight) {
  const ClockMode clock = mode ? *mode : parse_clock_mode(args.get("--clock", "boost"));
  const std::string km = args.get("--kernel-model", "learned");
  if (km != "learned" && km != "analytical")
    throw InputError("--kernel-model", "'" + km.substr(0, 40) + "' is not a kernel model; use learned or analytical");
  Predictor predictor(km);
  predictor.set_clock(clock, sustained_weight);
  if (!predictor.learned() && clock == ClockMode::boost) return {};
  return as_kernel_predictor(predictor);  // pure: its costs are shared by every step of the command
}

ServingPredictors serving_predictors(const Args& args) {
  if (parse_clock_mode(args.get("--clock", "boost")) != ClockMode::automatic) return {kernel_predictor(args), {}};
  return {kernel_predictor(args, ClockMode::boost), kernel_predictor(args, ClockMode::sustained)};
}

void emit(const std::string& text) {
  // Names come from files (a GPU YAML's name, a trace's kernel names): a control byte in one must not reach the
  // terminal, where an escape sequence rewrites the screen, nor a CSV, where a carriage return splits a row.
  auto is_control = [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
  };
  if (std::none_of(text.begin(), text.end(), is_control)) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  std::string shown = text;
  std::replace_if(shown.begin(), shown.end(), is_control, '?');
  std::fwrite(shown.data(), 1, shown.size(), stdout);
}

std::string warning_lines(const std::vector<std::string>& warnings) {
  std::string out;
  for (const auto& w : warnings) out += "WARNING: " + w + "\n";
  return out;
}

void warn_stderr(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "loom: warning: %s\n", w.c_str());
}

}  // namespace loom::cli
