// `loom e2e --format json` -> step timeline (layers, GPU kernels, idle gaps); `loom whatif --format json` -> ranked GPU
// table + sensitivity bars. Field meanings: src/cli/cmd_e2e.cpp step_json() and src/cli/cmd_whatif.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/json_obj.h"
#include "report/loom_json.h"

namespace loom::report {

namespace {

/// A number with `digits` significant digits ("12.35"; whole numbers from 10^digits up), for table cells.
std::string cell(double v, int digits = 4) {
  char buf[64];
  if (std::abs(v) >= std::pow(10.0, digits) && std::abs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

/// Large counts as "1.77M" / "52.3k".
std::string count_cell(double v) {
  if (v >= 1e9) return cell(v / 1e9, 3) + "G";
  if (v >= 1e6) return cell(v / 1e6, 3) + "M";
  if (v >= 1e4) return cell(v / 1e3, 3) + "k";
  return cell(v, 4);
}

std::string bytes_cell(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return cell(b, 3) + " " + units[u];
}

}  // namespace

void add_e2e(Report& r, const json& j, const std::string& where) {
  Obj top(j, "$", where, {});  // memory, params, ...: not drawn
  if (top.get("trace", false) && top.get("source_gpu", false))
    top.fail("$", "this is `loom e2e --replay` output, which has no predicted timeline; give the output of "
                  "`loom e2e --gpu G --model M --phase P ... --format json`");
  top.require_schema("loom.e2e", 1, "loom e2e ... --format json");
  const std::string gpu = top.str("gpu"), model = top.str("model"), phase = top.str("phase"), mode = top.str("mode");
  Timeline tl;
  tl.lanes = {"layers", "GPU kernels", "idle (launch gaps)"};
  double prev_end_us = 0, busy_us = 0, end_us = 0;
  size_t kernels = 0;
  int layer_of_span = -2;
  std::vector<std::pair<int, std::pair<double, double>>> spans;  // layer -> (start, end)
  if (!top.get("kernels", false))
    top.fail("$.kernels", "required key missing; give `loom e2e ... --format json` output");
  top.each("kernels", [&](const json& e, const std::string& p) {
    Obj k(e, p, where, {"name", "layer", "family", "kernel", "gpu_us", "start_us", "end_us", "wall_us"});
    TimelineEvent ev{k.str("name", true), k.str("family", true), k.number("start_us"), 0, 1};
    const double kernel_end_us = k.number("end_us");
    if (kernel_end_us < ev.start_us) k.fail(p + ".end_us", "ends before start_us; the file is not loom e2e output");
    ev.dur_us = kernel_end_us - ev.start_us;
    const int layer = k.integer("layer");
    if (k.get("layer", false)) ev.name += layer < 0 ? "" : " (layer " + std::to_string(layer) + ")";
    const std::string spec = k.str("kernel");
    if (!spec.empty()) ev.name += ": " + spec;
    if (ev.start_us > prev_end_us + 1e-9)  // the GPU idles between kernels: launch overhead or host gaps
      tl.events.push_back({"idle " + cell(ev.start_us - prev_end_us, 3) + " us", "idle", prev_end_us,
                           ev.start_us - prev_end_us, 2});
    if (layer != layer_of_span || spans.empty()) spans.push_back({layer, {ev.start_us, kernel_end_us}});
    spans.back().second.second = std::max(spans.back().second.second, kernel_end_us);
    layer_of_span = layer;
    busy_us += ev.dur_us;
    ++kernels;
    prev_end_us = std::max(prev_end_us, kernel_end_us);
    end_us = std::max(end_us, kernel_end_us);
    tl.events.push_back(std::move(ev));
  });
  for (size_t i = 0; i < spans.size(); ++i) {
    const auto& [layer, se] = spans[i];
    std::string name = layer >= 0 ? "layer " + std::to_string(layer) : (i == 0 ? "pre" : "post");
    tl.events.push_back({name, "layer", se.first, se.second - se.first, 0});
  }
  const double wall_us = top.opt_number("wall_time_us").value_or(end_us);
  tl.title = (model.empty() ? std::string("step") : model) + (gpu.empty() ? "" : " on " + gpu) +
             (phase.empty() ? "" : ", " + phase) + (mode.empty() ? "" : " (" + mode + ")") + ": step " +
             cell(wall_us / 1000, 4) + " ms, GPU busy " + cell(busy_us / 1000, 4) + " ms, " +
             std::to_string(kernels) + " kernels";
  r.timelines.push_back(std::move(tl));
}

void add_whatif(Report& r, const json& j, const std::string& where) {
  Obj top(j, "$", where, {});  // lenient at the top: fields added to whatif later must not break the report
  top.require_schema("loom.whatif", 1, "loom whatif --batch B --input-len S --output-len N ... --format json");
  if (!top.get("ranked", false))
    top.fail("$.ranked", "required key missing; give `loom whatif ... --format json` output");
  const std::string request = top.str("model") + ", batch " + std::to_string(top.integer("batch")) + ", input " +
                              std::to_string(top.integer("input_len")) + ", output " +
                              std::to_string(top.integer("output_len")) +
                              (top.str("profile").empty() ? "" : ", profile " + top.str("profile"));
  RankedTable t{"GPUs ranked by output tokens/s: " + request,
                {"rank", "gpu", "tp", "TTFT (ms)", "TPOT (ms)", "tokens/s", "tokens/$", "memory/GPU", "fits"},
                {}};
  top.each("ranked", [&](const json& e, const std::string& p) {
    Obj w(e, p, where, {"rank", "gpu", "tp", "ttft_us", "tpot_us", "tokens_per_s", "fits", "memory_bytes",
                        "usable_bytes", "tokens_per_dollar", "error"});
    std::vector<std::string> row{std::to_string(w.integer("rank", true)), w.str("gpu", true),
                                 std::to_string(w.integer("tp", true))};
    if (w.get("error", false)) {
      row.insert(row.end(), {"-", "-", "-", "-", "-", "cannot run: " + w.str("error")});
    } else {
      const json* tpd = w.get("tokens_per_dollar", false);
      std::string per_dollar = "-";
      if (tpd && !tpd->is_null()) {
        if (!tpd->is_number()) w.fail(p + ".tokens_per_dollar", "expected a number or null");
        per_dollar = count_cell(tpd->get<double>());
      }
      const json* fits = w.get("fits", true);
      if (!fits->is_boolean()) w.fail(p + ".fits", "expected true or false");
      row.insert(row.end(), {cell(w.number("ttft_us") / 1000), cell(w.number("tpot_us") / 1000),
                             cell(w.number("tokens_per_s")), per_dollar, bytes_cell(w.number("memory_bytes")),
                             fits->get<bool>() ? "yes" : "NO (" + bytes_cell(w.number("usable_bytes")) + " usable)"});
    }
    t.rows.push_back(std::move(row));
  });
  r.tables.push_back(std::move(t));
  Sensitivity s{"", {}};
  top.each("sensitivity", [&](const json& e, const std::string& p) {
    Obj b(e, p, where, {"gpu", "change", "ttft_delta_pct", "tpot_delta_pct"});
    s.bars.push_back({b.str("gpu", true), b.str("change", true), b.number("ttft_delta_pct"),
                      b.number("tpot_delta_pct")});
  });
  if (s.bars.empty()) return;
  s.title = "Sensitivity of " + s.bars.front().gpu + " (the top-ranked GPU): " + request;
  r.sensitivities.push_back(std::move(s));
}

}  // namespace loom::report
