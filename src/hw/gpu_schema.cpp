// The GPU schema's key table (key -> unit kind -> GpuSpec member), its lookups and --set overrides. Turning values
// into a GpuSpec (units, ranges, cross-field rules) and describe() live in gpu_spec_build.cpp.
#include "hw/gpu_schema.h"

#include "core/error.h"
#include "hw/gpu_schema_table.h"

namespace loom {

namespace gpu_schema_detail {

namespace {

template <Dtype D>
void set_tensor(GpuSpec& g, double v) {
  g.tensor_flops_per_clk_per_sm[static_cast<int>(D)] = v;
}
template <Dtype D>
double get_tensor(const GpuSpec& g) {
  return g.tensor_flops_per_clk(D);
}

FieldDef text_field(const char* key, Need need, void (*set)(GpuSpec&, const std::string&),
                    const std::string& (*get)(const GpuSpec&)) {
  return {key, UnitKind::count, need, Sign::positive, false, nullptr, nullptr, set, get};
}

FieldDef tensor_field(const char* key, UnitKind kind, void (*set)(GpuSpec&, double), double (*get)(const GpuSpec&)) {
  return {key, kind, Need::optional, Sign::non_negative, false, set, get};
}

using U = UnitKind;
constexpr Need REQ = Need::required;
constexpr Need OPT = Need::optional;
constexpr Sign POS = Sign::positive;

}  // namespace

// Schema order is the order of `loom gpus show` and of gpus/README.md.
const std::vector<FieldDef>& schema() {
  static const std::vector<FieldDef> fields = {
      text_field(
          "name", REQ, [](GpuSpec& g, const std::string& v) { g.full_name = v; },
          [](const GpuSpec& g) -> const std::string& { return g.full_name; }),
      text_field(
          "architecture", REQ, [](GpuSpec& g, const std::string& v) { g.architecture = v; },
          [](const GpuSpec& g) -> const std::string& { return g.architecture; }),
      {"compute_capability", U::count, REQ, POS, true, [](GpuSpec& g, double v) { g.compute_capability = int(v); },
       [](const GpuSpec& g) { return double(g.compute_capability); }},
      {"sms", U::count, REQ, POS, true, [](GpuSpec& g, double v) { g.sms = int(v); },
       [](const GpuSpec& g) { return double(g.sms); }},
      {"clock.boost", U::frequency, REQ, POS, false, [](GpuSpec& g, double v) { g.boost_clock_mhz = v / 1e6; },
       [](const GpuSpec& g) { return g.boost_clock_mhz * 1e6; }},
      {"clock.sustained", U::frequency, REQ, POS, false, [](GpuSpec& g, double v) { g.sustained_clock_mhz = v / 1e6; },
       [](const GpuSpec& g) { return g.sustained_clock_mhz * 1e6; }},
      {"clock.tensor_load", U::frequency, OPT, POS, false,
       [](GpuSpec& g, double v) { g.tensor_load_clock_mhz = v / 1e6; },
       [](const GpuSpec& g) { return g.tensor_load_clock_mhz * 1e6; }},
      {"sustained_load.tensor_slowdown", U::count, OPT, POS, false,
       [](GpuSpec& g, double v) { g.tensor_load_slowdown = v; },
       [](const GpuSpec& g) { return g.tensor_load_slowdown; }},
      {"sustained_load.onset", U::time, OPT, POS, false, [](GpuSpec& g, double v) { g.tensor_load_onset_s = v; },
       [](const GpuSpec& g) { return g.tensor_load_onset_s; }},
      tensor_field("tensor.fp64", U::flop_per_clk, set_tensor<Dtype::fp64>, get_tensor<Dtype::fp64>),
      tensor_field("tensor.tf32", U::flop_per_clk, set_tensor<Dtype::tf32>, get_tensor<Dtype::tf32>),
      tensor_field("tensor.fp16", U::flop_per_clk, set_tensor<Dtype::fp16>, get_tensor<Dtype::fp16>),
      tensor_field("tensor.bf16", U::flop_per_clk, set_tensor<Dtype::bf16>, get_tensor<Dtype::bf16>),
      tensor_field("tensor.fp8", U::flop_per_clk, set_tensor<Dtype::fp8>, get_tensor<Dtype::fp8>),
      tensor_field("tensor.int8", U::ops_per_clk, set_tensor<Dtype::int8>, get_tensor<Dtype::int8>),
      tensor_field("tensor.fp4", U::flop_per_clk, set_tensor<Dtype::fp4>, get_tensor<Dtype::fp4>),
      {"fp32", U::flop_per_clk, REQ, POS, false, [](GpuSpec& g, double v) { g.fp32_flops_per_clk_per_sm = v; },
       [](const GpuSpec& g) { return g.fp32_flops_per_clk_per_sm; }},
      {"fp64", U::flop_per_clk, REQ, POS, false, [](GpuSpec& g, double v) { g.fp64_flops_per_clk_per_sm = v; },
       [](const GpuSpec& g) { return g.fp64_flops_per_clk_per_sm; }},
      {"sfu", U::ops_per_clk, REQ, POS, false, [](GpuSpec& g, double v) { g.sfu_ops_per_clk_per_sm = v; },
       [](const GpuSpec& g) { return g.sfu_ops_per_clk_per_sm; }},
      {"int", U::ops_per_clk, REQ, POS, false, [](GpuSpec& g, double v) { g.int_ops_per_clk_per_sm = v; },
       [](const GpuSpec& g) { return g.int_ops_per_clk_per_sm; }},
      {"smem_bandwidth", U::bytes_per_clk, REQ, POS, false,
       [](GpuSpec& g, double v) { g.smem_bytes_per_clk_per_sm = v; },
       [](const GpuSpec& g) { return g.smem_bytes_per_clk_per_sm; }},
      {"sm_limits.registers", U::count, REQ, POS, true, [](GpuSpec& g, double v) { g.regs_per_sm = int64_t(v); },
       [](const GpuSpec& g) { return double(g.regs_per_sm); }},
      {"sm_limits.max_regs_per_thread", U::count, REQ, POS, true,
       [](GpuSpec& g, double v) { g.max_regs_per_thread = int(v); },
       [](const GpuSpec& g) { return double(g.max_regs_per_thread); }},
      {"sm_limits.shared_memory", U::size, REQ, POS, true,
       [](GpuSpec& g, double v) { g.smem_per_sm_bytes = int64_t(v); },
       [](const GpuSpec& g) { return double(g.smem_per_sm_bytes); }},
      {"sm_limits.shared_memory_per_block", U::size, REQ, POS, true,
       [](GpuSpec& g, double v) { g.smem_per_block_bytes = int64_t(v); },
       [](const GpuSpec& g) { return double(g.smem_per_block_bytes); }},
      {"sm_limits.max_threads", U::count, REQ, POS, true, [](GpuSpec& g, double v) { g.max_threads_per_sm = int(v); },
       [](const GpuSpec& g) { return double(g.max_threads_per_sm); }},
      {"sm_limits.max_ctas", U::count, REQ, POS, true, [](GpuSpec& g, double v) { g.max_ctas_per_sm = int(v); },
       [](const GpuSpec& g) { return double(g.max_ctas_per_sm); }},
      {"sm_limits.max_threads_per_block", U::count, OPT, POS, true,
       [](GpuSpec& g, double v) { g.max_threads_per_block = int(v); },
       [](const GpuSpec& g) { return double(g.max_threads_per_block); }},
      {"l1", U::size, REQ, POS, true, [](GpuSpec& g, double v) { g.l1_bytes_per_sm = int64_t(v); },
       [](const GpuSpec& g) { return double(g.l1_bytes_per_sm); }},
      {"l2.size", U::size, REQ, POS, true, [](GpuSpec& g, double v) { g.l2_bytes = int64_t(v); },
       [](const GpuSpec& g) { return double(g.l2_bytes); }},
      {"l2.bandwidth", U::bandwidth, REQ, POS, false, [](GpuSpec& g, double v) { g.l2_bytes_per_s = v; },
       [](const GpuSpec& g) { return g.l2_bytes_per_s; }},
      {"l2.per_sm", U::bytes_per_clk, REQ, POS, false, [](GpuSpec& g, double v) { g.l2_bytes_per_clk_per_sm = v; },
       [](const GpuSpec& g) { return g.l2_bytes_per_clk_per_sm; }},
      {"dram.size", U::size, REQ, POS, true, [](GpuSpec& g, double v) { g.dram_bytes = int64_t(v); },
       [](const GpuSpec& g) { return double(g.dram_bytes); }},
      {"dram.bandwidth", U::bandwidth, REQ, POS, false, [](GpuSpec& g, double v) { g.dram_bytes_per_s = v; },
       [](const GpuSpec& g) { return g.dram_bytes_per_s; }},
      text_field(
          "dram.type", OPT, [](GpuSpec& g, const std::string& v) { g.dram_type = v; },
          [](const GpuSpec& g) -> const std::string& { return g.dram_type; }),
      text_field(
          "dram.ecc", OPT, [](GpuSpec& g, const std::string& v) { g.dram_ecc = v; },
          [](const GpuSpec& g) -> const std::string& { return g.dram_ecc; }),
      {"launch_overhead", U::time, REQ, POS, false, [](GpuSpec& g, double v) { g.launch_overhead_us = v * 1e6; },
       [](const GpuSpec& g) { return g.launch_overhead_us / 1e6; }},
      {"graph_gap", U::time, OPT, Sign::non_negative, false, [](GpuSpec& g, double v) { g.graph_gap_us = v * 1e6; },
       [](const GpuSpec& g) { return g.graph_gap_us / 1e6; }},
      {"host.cpu_speed", U::count, OPT, POS, false, [](GpuSpec& g, double v) { g.host_cpu_speed = v; },
       [](const GpuSpec& g) { return g.host_cpu_speed; }},
      {"interconnect.nvlink", U::bandwidth, OPT, Sign::non_negative, false,
       [](GpuSpec& g, double v) { g.nvlink_bytes_per_s = v; }, [](const GpuSpec& g) { return g.nvlink_bytes_per_s; }},
      {"interconnect.pcie", U::bandwidth, REQ, POS, false, [](GpuSpec& g, double v) { g.pcie_bytes_per_s = v; },
       [](const GpuSpec& g) { return g.pcie_bytes_per_s; }},
      {"interconnect.gpus_per_node", U::count, REQ, POS, true, [](GpuSpec& g, double v) { g.gpus_per_node = int(v); },
       [](const GpuSpec& g) { return double(g.gpus_per_node); }},
      {"interconnect.nvlink_gpus", U::count, OPT, Sign::non_negative, true,
       [](GpuSpec& g, double v) { g.nvlink_gpus = int(v); }, [](const GpuSpec& g) { return double(g.nvlink_gpus); }},
      text_field(
          "interconnect.topology", OPT, [](GpuSpec& g, const std::string& v) { g.topology = v; },
          [](const GpuSpec& g) -> const std::string& { return g.topology; }),
      {"tdp", U::power, REQ, POS, false, [](GpuSpec& g, double v) { g.tdp_w = v; },
       [](const GpuSpec& g) { return g.tdp_w; }},
      {"price", U::money_rate, OPT, POS, false, [](GpuSpec& g, double v) { g.price_per_hour_usd = v; },
       [](const GpuSpec& g) { return g.price_per_hour_usd.value_or(0); }},
  };
  return fields;
}

const FieldDef* find_field(const std::string& key) {
  for (const auto& f : schema())
    if (key == f.key) return &f;
  return nullptr;
}

std::string key_list() {
  std::string out;
  for (const auto& f : schema()) out += (out.empty() ? "" : ", ") + std::string(f.key);
  return out;
}

}  // namespace gpu_schema_detail

using gpu_schema_detail::FieldDef;
using gpu_schema_detail::find_field;
using gpu_schema_detail::schema;

std::vector<std::string> gpu_spec_keys() {
  std::vector<std::string> keys;
  for (const auto& f : schema()) keys.emplace_back(f.key);
  return keys;
}

std::vector<std::string> gpu_spec_children(const std::string& group) {
  std::vector<std::string> out;
  const std::string prefix = group.empty() ? "" : group + ".";
  for (const auto& f : schema()) {
    const std::string key = f.key;
    if (key.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = key.substr(prefix.size());
    const std::string child = rest.substr(0, rest.find('.'));
    bool seen = false;
    for (const auto& c : out) seen |= c == child;
    if (!seen) out.push_back(child);
  }
  return out;
}

bool is_gpu_spec_leaf(const std::string& key) { return find_field(key) != nullptr; }
bool is_gpu_spec_text(const std::string& key) {
  const FieldDef* f = find_field(key);
  return f && f->set_text;
}

bool is_gpu_spec_group(const std::string& key) {
  if (key.empty() || is_gpu_spec_leaf(key)) return false;
  return !gpu_spec_children(key).empty();
}

void apply_overrides(RawSpec& raw, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", "'" + o + "' is not key=value; write e.g. --set dram.bandwidth=4.8TB/s");
    const std::string key = o.substr(0, eq);
    if (!is_gpu_spec_leaf(key))
      throw InputError("--set", "unknown key '" + key + "'; valid keys: " + gpu_schema_detail::key_list());
    raw.values[key] = RawValue{o.substr(eq + 1), "--set " + key, ""};
  }
}

}  // namespace loom
