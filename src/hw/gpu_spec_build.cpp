// RawSpec -> GpuSpec (build_gpu_spec: each value parsed with its unit, plausible ranges, cross-field rules) and the
// other way for `loom gpus show` (describe). The key table itself: gpu_schema_table.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "core/error.h"
#include "core/suggest.h"
#include "core/units.h"
#include "hw/gpu_schema.h"
#include "hw/gpu_schema_table.h"
#include "hw/gpu_values.h"

namespace loom {

namespace {

using gpu_schema_detail::FieldDef;
using gpu_schema_detail::find_field;
using gpu_schema_detail::Need;
using gpu_schema_detail::schema;
using U = UnitKind;

std::string group_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}

// Plausible range of each numeric field, in the kind's base unit: a few times beyond every GPU shipped (Pascal to
// Blackwell) either way. Outside it a value is a typo or a unit slip (`dram.bandwidth=1e-300TB/s`, `l2.size=100TB`,
// `dram.size=1B`) and would give nonsense or overflow downstream; the message names the bound.
struct Range {
  double lo, hi;
};
Range plausible_range(const std::string& key, UnitKind kind) {
  constexpr double GiB = 1024.0 * 1024 * 1024, KiB = 1024, MiB = 1024 * 1024;
  if (key == "compute_capability") return {10, 200};
  if (key == "sms") return {1, 4096};
  if (key == "sm_limits.registers") return {1024, 16 * MiB};
  if (key == "sm_limits.max_regs_per_thread") return {16, 1024};
  if (key == "sm_limits.max_threads" || key == "sm_limits.max_threads_per_block") return {32, 16384};
  if (key == "sm_limits.max_ctas") return {1, 1024};
  if (key == "interconnect.gpus_per_node") return {1, 1024};
  if (key == "interconnect.nvlink_gpus") return {0, 1024};
  if (key == "l2.size") return {64 * KiB, 4 * GiB};
  if (key == "dram.size") return {256 * MiB, 64.0 * 1024 * GiB};
  if (key == "interconnect.nvlink") return {0, 1e14};
  if (key == "interconnect.pcie") return {1e8, 1e13};
  if (key == "sustained_load.tensor_slowdown") return {1, 3};
  if (key == "sustained_load.onset") return {1e-3, 100};
  if (key == "host.cpu_speed") return {0.05, 20};
  if (key == "graph_gap") return {0, 1e-4};  // 0 (not known: the profile's applies) .. 100 us a kernel
  switch (kind) {
    case UnitKind::frequency: return {1e8, 1e10};         // 100 MHz .. 10 GHz
    case UnitKind::bandwidth: return {1e9, 1e15};         // 1 GB/s .. 1 PB/s (DRAM, L2)
    case UnitKind::size: return {1 * KiB, 64 * MiB};      // per-SM L1 / shared memory
    case UnitKind::time: return {1e-9, 1e-2};             // launch overhead: 1 ns .. 10 ms
    case UnitKind::power: return {1, 1e4};                // TDP: 1 W .. 10 kW
    case UnitKind::money_rate: return {0, 1e4};           // USD/h
    case UnitKind::flop_per_clk:
    case UnitKind::ops_per_clk:
    case UnitKind::bytes_per_clk: return {0, 1e6};        // per SM per clock
    case UnitKind::count: return {0, 1e9};
  }
  return {0, 1e18};
}

std::string quantity_text(double v, UnitKind kind) {
  const FormattedQuantity q = format_quantity(v, kind);
  return q.unit.empty() ? q.number : q.number + " " + q.unit;
}

const char* const kArchitectures[] = {"pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell"};

// True when the value at `b` was given after the one at `a`: a --set beats a file, a user's file a catalogue entry.
bool given_later(const std::string& a, const std::string& b) {
  return b.rfind("--set", 0) == 0 || (a.rfind("--set", 0) != 0 && b.find("gpus/") == std::string::npos);
}

}  // namespace

const std::vector<std::string>& gpu_architectures() {
  static const std::vector<std::string> names(std::begin(kArchitectures), std::end(kArchitectures));
  return names;
}

const std::vector<std::string>& gpu_topologies() {
  static const std::vector<std::string> names = {"nvswitch", "nvlink-mesh", "nvlink-bridge", "pcie"};
  return names;
}

namespace {

/// The first rule of interconnect.topology that the NVLink keys break: the key that disagrees and what to say of it
/// (key null: they agree). The one statement of the rules, for topology_consistent and check_topology.
struct TopologyConflict {
  const char* key = nullptr;
  const char* what = nullptr;
};
TopologyConflict topology_conflict(const std::string& topology, double nvlink_bytes_per_s, int nvlink_gpus) {
  const bool nvlink = nvlink_bytes_per_s > 0;
  if (topology != "pcie" && !nvlink)
    return {"interconnect.nvlink", "joins GPUs by NVLink, but interconnect.nvlink is 0 or absent; give its bandwidth "
                                   "or set interconnect.topology=pcie"};
  if (topology == "nvlink-bridge" && nvlink_gpus < 2)
    return {"interconnect.nvlink_gpus", "needs interconnect.nvlink_gpus, the GPUs one bridge joins (2 for a 2-way "
                                        "bridge); give it or pick nvswitch or nvlink-mesh"};
  if (topology == "pcie" && nvlink)
    return {"interconnect.nvlink", "has no NVLink, but interconnect.nvlink is given; set interconnect.nvlink=0 or "
                                   "pick nvswitch, nvlink-mesh or nvlink-bridge"};
  if (topology == "pcie" && nvlink_gpus != 0)  // the range check keeps it >= 0
    return {"interconnect.nvlink_gpus", "has no NVLink domain, but interconnect.nvlink_gpus is given; set "
                                        "interconnect.nvlink_gpus=0"};
  return {};
}

}  // namespace

bool topology_consistent(const std::string& topology, double nvlink_bytes_per_s, int nvlink_gpus) {
  return topology_conflict(topology, nvlink_bytes_per_s, nvlink_gpus).key == nullptr;
}

namespace {

// interconnect.topology: one of gpu_topologies(), and agreeing with the NVLink keys. Absent (or `none`), it is
// inferred as loom did before the key existed, so no GPU without it changes. Each refusal names the value given
// last of the two that disagree, and both.
void check_topology(GpuSpec& g, const RawSpec& raw) {
  const auto it = raw.values.find("interconnect.topology");
  if (it == raw.values.end() || it->second.text == "none") {
    g.topology = infer_topology(g.nvlink_bytes_per_s, g.nvlink_gpus);
    g.key_sources["interconnect.topology"] = "default";  // as every absent key's
    return;
  }
  const std::string wt = it->second.where;
  const auto& names = gpu_topologies();
  if (std::find(names.begin(), names.end(), g.topology) == names.end())
    throw InputError(wt, "unknown interconnect.topology '" + g.topology + "'" + did_you_mean(g.topology, names) +
                             "; expected one of: nvswitch, nvlink-mesh, nvlink-bridge, pcie (gpus/README.md)");
  auto refuse = [&](const char* key, const std::string& what) {
    auto k = raw.values.find(key);
    const std::string wk = k == raw.values.end() ? "" : k->second.where;
    const std::string at = wk.empty() || given_later(wk, wt) ? wt : wk;
    throw InputError(at, "interconnect.topology " + g.topology + (at == wt ? " " : " (" + wt + ") ") + what);
  };
  const TopologyConflict c = topology_conflict(g.topology, g.nvlink_bytes_per_s, g.nvlink_gpus);
  if (c.key) refuse(c.key, c.what);
}

// Cross-field rules the unit parser cannot see; each error points at the value that breaks the rule.
void check_consistency(GpuSpec& g, const RawSpec& raw) {
  auto where = [&](const char* key) {
    auto it = raw.values.find(key);
    return it == raw.values.end() ? std::string() : it->second.where;
  };
  bool known_arch = false;
  for (const char* a : kArchitectures) known_arch |= g.architecture == a;
  if (!known_arch)
    throw InputError(where("architecture"),
                     "unknown architecture '" + g.architecture +
                         "'; expected one of: pascal, volta, turing, ampere, ada, hopper, blackwell");
  // The memory technology decides in-band ECC (GDDR*): a typo must not silently turn it off.
  static const char* const kDramTypes[] = {"HBM", "HBM2", "HBM2e", "HBM3", "HBM3e", "HBM4", "GDDR5", "GDDR5X",
                                           "GDDR6", "GDDR6X", "GDDR7", "LPDDR5", "LPDDR5X"};
  if (!g.dram_type.empty() &&
      std::none_of(std::begin(kDramTypes), std::end(kDramTypes), [&](const char* t) { return g.dram_type == t; }))
    throw InputError(where("dram.type"), "unknown dram.type '" + g.dram_type +
                                             "'; expected one of: HBM, HBM2, HBM2e, HBM3, HBM3e, HBM4, GDDR5, GDDR5X, "
                                             "GDDR6, GDDR6X, GDDR7, LPDDR5, LPDDR5X");
  if (!g.dram_ecc.empty() && g.dram_ecc != "on" && g.dram_ecc != "off")
    throw InputError(where("dram.ecc"),
                     "dram.ecc is '" + g.dram_ecc + "'; write on or off (the state the part ships in)");
  check_topology(g, raw);
  // Two keys disagree: name the one the user set last (a --set, or the file that overrides the other), and both.
  auto clash = [&](const char* low, double low_mhz, const char* what) {
    const std::string wl = where(low), wb = where("clock.boost");
    const bool boost_newer = given_later(wl, wb);
    throw InputError(boost_newer ? wb : wl, std::string(low) + " (" + std::to_string(int(low_mhz)) + " MHz, " + wl +
                                                ") " + what + " clock.boost (" +
                                                std::to_string(int(g.boost_clock_mhz)) + " MHz, " + wb + "); lower " +
                                                low + " or raise clock.boost");
  };
  if (g.sustained_clock_mhz > g.boost_clock_mhz) clash("clock.sustained", g.sustained_clock_mhz, "is above");
  if (g.tensor_load_clock_mhz > g.boost_clock_mhz) clash("clock.tensor_load", g.tensor_load_clock_mhz, "is above");
  // The same for the SM's limits: `--set sm_limits.max_threads=64` on h200 was blamed on gpus/h100-sxm.yaml:39.
  auto exceeds = [&](const char* big, const char* limit, const std::string& what) {
    const std::string wb = where(big), wl = where(limit);
    const bool limit_newer = given_later(wb, wl);
    throw InputError(limit_newer ? wl : wb, std::string(big) + " (" + wb + ") exceeds " + limit + " (" + wl + "): " +
                                                what + "; lower " + big + " or raise " + limit);
  };
  if (g.smem_per_block_bytes > g.smem_per_sm_bytes)
    exceeds("sm_limits.shared_memory_per_block", "sm_limits.shared_memory",
            "a block's shared memory is the SM's at most");
  if (g.smem_per_sm_bytes > g.l1_bytes_per_sm)
    exceeds("sm_limits.shared_memory", "l1", "shared memory is carved out of the L1/shared capacity");
  if (g.max_threads_per_sm % 32 != 0)
    throw InputError(where("sm_limits.max_threads"), "max_threads must be a multiple of the warp size (32)");
  if (g.max_threads_per_block > g.max_threads_per_sm)
    exceeds("sm_limits.max_threads_per_block", "sm_limits.max_threads", "a block's threads are the SM's at most");
}

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace

GpuSpec build_gpu_spec(const RawSpec& raw, const std::string& name, const std::string& source_file) {
  GpuSpec g;
  g.name = name;
  g.source_file = source_file;
  for (const auto& [key, value] : raw.values)
    if (!find_field(key))  // the loader rejects these first; this guards hand-built RawSpecs
      throw InputError(value.where, "unknown key '" + key + "'; valid keys: " + gpu_schema_detail::key_list());
  for (const auto& f : schema()) {
    auto it = raw.values.find(f.key);
    if (it == raw.values.end()) {
      if (f.need == Need::required) {
        const std::string group = group_of(f.key);
        auto gw = raw.group_where.find(group);
        if (gw == raw.group_where.end()) gw = raw.group_where.find("");
        throw InputError(gw == raw.group_where.end() ? source_file : gw->second,
                         std::string("missing required key '") + f.key + "'; add it (" +
                             (f.set_text ? std::string("text") : unit_kind_name(f.kind)) + "), see gpus/README.md");
      }
      g.key_sources[f.key] = "default";
      continue;
    }
    const RawValue& v = it->second;
    g.key_sources[f.key] = v.comment.empty() ? v.where : v.where + "  " + v.comment;
    if (v.text == "none") {  // clears an optional value inherited through `extends:`
      if (f.need == Need::required)
        throw InputError(v.where, std::string("'") + f.key + "' is required and cannot be none; give a value");
      continue;
    }
    if (f.set_text) {
      if (v.text.empty()) throw InputError(v.where, std::string("empty value for '") + f.key + "'; give a name");
      f.set_text(g, v.text);
      continue;
    }
    double x = 0;
    try {
      x = parse_quantity(v.text, f.kind, v.where, f.sign);
    } catch (const InputError& e) {  // the unit parser names the value; the line also names the field
      if (e.detail().find(f.key) != std::string::npos || e.where().find(f.key) != std::string::npos) throw;
      throw InputError(e.where(), std::string(f.key) + ": " + e.detail());
    }
    // Sizes live in int64 bytes (cap 1 PB), counts in int.
    const double limit = f.kind == U::size ? 1e15 : double(std::numeric_limits<int32_t>::max());
    if (f.integer && (x != std::floor(x) || x > limit))
      throw InputError(v.where, "'" + v.text + "' must be a whole number" +
                                    (f.kind == U::size ? " of bytes" : "") + " of realistic size; fix " + f.key);
    const Range r = plausible_range(f.key, f.kind);
    if (!(x >= r.lo && x <= r.hi))
      throw InputError(v.where, "'" + v.text + "' for " + f.key + " is outside the plausible range " +
                                    quantity_text(r.lo, f.kind) + " to " + quantity_text(r.hi, f.kind) +
                                    " (beyond every GPU made); check the value and its unit");
    f.set(g, x);
  }
  g.max_warps_per_sm = g.max_threads_per_sm / 32;  // CUDA warp size is 32 on every NVIDIA GPU
  check_consistency(g, raw);
  return g;
}

std::vector<SpecField> describe(const GpuSpec& g) {
  std::vector<SpecField> rows;
  auto source = [&](const char* key) {
    auto it = g.key_sources.find(key);
    return it == g.key_sources.end() ? std::string() : it->second;
  };
  for (const auto& f : schema()) {
    if (f.set_text) {
      const std::string& v = f.get_text(g);
      if (!v.empty()) rows.push_back({f.key, v, "", source(f.key)});
      continue;
    }
    if (std::string(f.key) == "price" && !g.price_per_hour_usd) continue;
    if (f.need == Need::optional && f.get(g) == 0 && (std::string(f.key) == "clock.tensor_load" ||
                                         std::string(f.key) == "sustained_load.tensor_slowdown" ||
                                         std::string(f.key) == "sustained_load.onset"))
      continue;  // not measured for this GPU
    const FormattedQuantity q = format_quantity(f.get(g), f.kind);
    rows.push_back({f.key, q.number, q.unit, source(f.key)});
  }
  rows.push_back({"sm_limits.max_warps", std::to_string(g.max_warps_per_sm), "", "derived: max_threads / 32"});
  for (Dtype d : kAllDtypes) {
    const double flops = g.tensor_flops_per_s(d);
    if (flops <= 0) continue;
    rows.push_back({"peak.tensor." + std::string(dtype_name(d)), fmt(flops / 1e12, 5),
                    d == Dtype::int8 ? "TOPS" : "TFLOPS", "derived: tensor x sms x clock.sustained"});
  }
  rows.push_back({"peak.fp32", fmt(g.fp32_flops_per_s() / 1e12, 5), "TFLOPS", "derived: fp32 x sms x clock.sustained"});
  rows.push_back({"peak.fp64", fmt(g.fp64_flops_per_clk_per_sm * g.sms * g.clock_hz() / 1e12, 5), "TFLOPS",
                  "derived: fp64 x sms x clock.sustained"});
  rows.push_back({"peak.smem_bandwidth", fmt(g.smem_bytes_per_clk_per_sm * g.sms * g.clock_hz() / 1e12, 5), "TB/s",
                  "derived: smem_bandwidth x sms x clock.sustained"});
  return rows;
}

std::string gpu_hardware_values(const GpuSpec& g, bool timing_only) {
  // A field added to GpuSpec must be added here (or to PredictMemo::gpu_key's names), or a variant differing only in
  // it would be served another GPU's prediction or taken for a catalogue entry (Catalog::get).
  std::string o;
  o.reserve(1024);
  auto num = [&o](auto v) { o.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto text = [&o, &num](const std::string& v) { num(v.size()), o += v; };
  text(g.architecture), num(g.compute_capability);
  if (!timing_only) num(g.sms);
  num(g.boost_clock_mhz), num(g.tensor_load_clock_mhz), num(g.tensor_load_slowdown);
  num(g.tensor_load_onset_s), num(g.sustained_clock_mhz);
  for (double f : g.tensor_flops_per_clk_per_sm) num(f);
  num(g.fp32_flops_per_clk_per_sm), num(g.fp64_flops_per_clk_per_sm), num(g.sfu_ops_per_clk_per_sm);
  num(g.int_ops_per_clk_per_sm), num(g.smem_bytes_per_clk_per_sm);
  num(g.regs_per_sm), num(g.max_regs_per_thread), num(g.smem_per_sm_bytes), num(g.smem_per_block_bytes);
  num(g.max_threads_per_sm), num(g.max_warps_per_sm), num(g.max_ctas_per_sm), num(g.max_threads_per_block);
  num(g.l1_bytes_per_sm), num(g.l2_bytes), num(g.l2_bytes_per_s), num(g.l2_bytes_per_clk_per_sm);
  num(g.dram_bytes), num(g.dram_bytes_per_s), text(g.dram_type), text(g.dram_ecc);
  num(g.launch_overhead_us), num(g.host_cpu_speed), num(g.nvlink_bytes_per_s), num(g.pcie_bytes_per_s);
  num(g.gpus_per_node), num(g.nvlink_gpus), num(g.tdp_w);
  if (timing_only) return o;
  text(g.topology), num(g.price_per_hour_usd.has_value());
  if (g.price_per_hour_usd) num(*g.price_per_hour_usd);
  return o;
}

}  // namespace loom
