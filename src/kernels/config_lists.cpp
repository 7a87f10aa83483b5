// Config enumeration: every valid config of a shape (the wave model and `loom tune`), the named config space, and
// macro/micro splits of a config name.
#include <string_view>

#include "core/error.h"
#include "kernels/config_space.h"

namespace loom {
namespace {

bool is_decode(const ConfigTable& t) { return t.family == "attention_decode"; }

}  // namespace

std::vector<TileConfig> valid_configs(const KernelShape& s, const GpuSpec& gpu) {
  const ConfigTable& table = config_table(s.family);
  std::vector<TileConfig> out;
  auto add = [&](TileConfig c) {  // named only when it fits (config_fits does not read the name)
    if (!config_fits(c, table, s, gpu, nullptr)) return;
    c.name = config_name(table, c);
    out.push_back(std::move(c));
  };
  if (table.naming == "tile") {
    for (const auto& e : table.tiles)
      for (int st : table.stages.at(e.mma))
        for (int sk : table.split_k) {
          TileConfig c;
          c.bm = e.bm, c.bn = e.bn, c.bk = e.bk, c.warps = e.warps, c.stages = st, c.split_k = sk;
          add(c);
        }
  } else if (table.naming == "attention") {
    std::vector<int> splits = {0};
    if (is_decode(table)) splits = {1, 2, 4, 8, 16, 32, 64};
    for (const auto& e : table.tiles)
      for (int sp : splits) {
        TileConfig c;
        c.bm = e.bm, c.bn = e.bn, c.warps = e.warps, c.kv_stages = e.kv_stages, c.splits = sp;
        add(c);
      }
  } else if (table.naming == "rows") {
    for (int r : table.rows_per_cta)
      for (int w : table.warps) {
        TileConfig c;
        c.rows_per_cta = r, c.warps = w;
        add(c);
      }
  } else if (table.naming == "flat") {
    for (int w : table.warps)
      for (int e : table.elems_per_thread) {
        TileConfig c;
        c.warps = w, c.elems_per_thread = e;
        add(c);
      }
  } else {
    for (const auto& name : table.fixed) {
      TileConfig c;
      c.name = name;
      add(c);
    }
  }
  return out;
}

ConfigSpace config_space(const GpuSpec& gpu, const KernelSpec& spec) {
  KernelShape s = parse_shape(spec, gpu);
  ConfigSpace out;
  out.family = spec.family;
  for (const auto& c : valid_configs(s, gpu)) out.configs.push_back(c.name);
  for (const auto& c : candidate_configs(s, gpu)) out.candidates.push_back(c.name);
  return out;
}

ConfigSplit split_config(const std::string& family, const std::string& config) {
  int f = -1;
  for (size_t i = 0; i < family_names().size(); ++i)
    if (family_names()[i] == family) f = static_cast<int>(i);
  if (f < 0) throw InputError("config", "unknown kernel family '" + family + "'");
  const ConfigTable& table = config_table(static_cast<Family>(f));
  TileConfig c = parse_config(table, static_cast<Family>(f), config, "config");
  const std::string& n = table.naming;
  if (n == "tile")
    return {std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) +
                (c.split_k > 1 ? "_sk" + std::to_string(c.split_k) : ""),
            "s" + std::to_string(c.stages) + "_w" + std::to_string(c.warps)};
  if (n == "attention")
    return {std::to_string(c.bm) + "x" + std::to_string(c.bn) + (c.splits > 0 ? "_sp" + std::to_string(c.splits) : ""),
            "w" + std::to_string(c.warps)};
  if (n == "rows") return {"r" + std::to_string(c.rows_per_cta), "w" + std::to_string(c.warps)};
  return {c.name, ""};
}

}  // namespace loom
