// Loads kernels/<family>.yaml config-space files with yaml-cpp; strict keys, errors as FILE:LINE.
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/error.h"
#include "core/file_io.h"
#include "core/strict_yaml.h"
#include "hw/catalog.h"
#include "kernels/config_space.h"

namespace loom {
namespace {

std::string at(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1);
}

void check_keys(const std::string& file, const YAML::Node& map, const std::set<std::string>& allowed) {
  if (!map.IsMap()) throw InputError(at(file, map), "expected a mapping");
  for (const auto& kv : map) {
    std::string k = kv.first.as<std::string>();
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(at(file, kv.first), "unknown key '" + k + "'; valid keys: " + list);
    }
  }
}

int to_int(const std::string& file, const YAML::Node& n, const std::string& key) {
  refuse_quoted(n, at(file, n), key, "an integer");
  int v = 0;
  try {
    v = n.as<int>();
  } catch (const YAML::Exception&) {
    throw InputError(at(file, n), "'" + key + "' expects a positive integer");
  }
  // 65536 is far above any tile, warp, stage or split count a kernel uses; beyond it a typo, not a config.
  if (v <= 0 || v > 65536)
    throw InputError(at(file, n), "'" + key + "' expects a positive integer up to 65536, got " + std::to_string(v));
  return v;
}

// A list value: a non-empty YAML sequence of scalars, each given once (a repeat is a typo or a merge gone wrong).
void check_list(const std::string& file, const YAML::Node& n, const std::string& key, const char* example) {
  if (!n.IsSequence()) throw InputError(at(file, n), "'" + key + "' expects a list, e.g. " + example);
  if (n.size() == 0)
    throw InputError(at(file, n), "'" + key + "' is an empty list; give at least one item or remove the key");
  std::set<std::string> seen;
  for (const auto& e : n) {
    if (!e.IsScalar()) throw InputError(at(file, e), "'" + key + "' expects a list of plain values, e.g. " + example);
    if (!seen.insert(e.Scalar()).second)
      throw InputError(at(file, e), "'" + key + "' lists '" + e.Scalar().substr(0, 40) + "' twice; give each once");
  }
}

std::vector<int> int_list(const std::string& file, const YAML::Node& n, const std::string& key) {
  check_list(file, n, key, "[1, 2, 4]");
  std::vector<int> out;
  for (const auto& e : n) out.push_back(to_int(file, e, key));
  return out;
}

std::vector<std::string> string_list(const std::string& file, const YAML::Node& n, const std::string& key) {
  check_list(file, n, key, "[a, b]");
  std::vector<std::string> out;
  for (const auto& e : n) out.push_back(e.Scalar());
  return out;
}

std::vector<Dtype> dtype_list(const std::string& file, const YAML::Node& n, const std::string& key) {
  check_list(file, n, key, "[bf16, fp16]");
  std::vector<Dtype> out;
  for (const auto& e : n) {
    auto dt = parse_dtype(e.Scalar());
    if (!dt) throw InputError(at(file, e), "'" + key + "' has unknown dtype '" + e.Scalar().substr(0, 40) +
                                               "'; use fp32, tf32, bf16, fp16 or fp8");
    out.push_back(*dt);
  }
  return out;
}

const std::set<std::string> kArchs = {"pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell"};

void check_arch(const std::string& file, const YAML::Node& n, const std::string& a) {
  if (!kArchs.count(a))
    throw InputError(at(file, n), "unknown architecture '" + a +
                                      "'; use volta, turing, ampere, ada, hopper or blackwell");
}

TileEntry read_tile(const std::string& file, const YAML::Node& n, const std::string& naming) {
  check_keys(file, n, {"tile", "warps", "mma", "kv_stages", "archs", "dtypes"});
  for (const char* k : {"tile", "warps", "mma", "archs"})
    if (!n[k]) throw InputError(at(file, n), std::string("tile entry needs '") + k + "'");
  TileEntry t;
  std::string tile = n["tile"].as<std::string>();
  int parts[3] = {0, 0, 0};
  int count = 0;
  size_t pos = 0;
  while (count < 3) {
    size_t x = tile.find('x', pos);
    std::string num = tile.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 5)
      throw InputError(at(file, n["tile"]), "bad tile '" + tile + "'; write BMxBNxBK (gemm) or BMxBN (attention)");
    parts[count++] = std::stoi(num);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  int want = naming == "tile" ? 3 : 2;
  if (count != want || parts[0] <= 0 || parts[1] <= 0 || (want == 3 && parts[2] <= 0))
    throw InputError(at(file, n["tile"]), "bad tile '" + tile + "'; expected " +
                                              (want == 3 ? "BMxBNxBK" : "BMxBN"));
  t.bm = parts[0], t.bn = parts[1], t.bk = want == 3 ? parts[2] : 0;
  t.warps = to_int(file, n["warps"], "warps");
  t.mma = n["mma"].as<std::string>();
  if (t.mma != "wgmma" && t.mma != "tcgen05" && t.mma != "mma_sync" && t.mma != "simt" && t.mma != "auto")
    throw InputError(at(file, n["mma"]), "unknown mma '" + t.mma + "'; use wgmma, tcgen05, mma_sync, simt or auto");
  if (n["kv_stages"]) t.kv_stages = to_int(file, n["kv_stages"], "kv_stages");
  t.archs = string_list(file, n["archs"], "archs");
  for (const auto& a : t.archs) check_arch(file, n["archs"], a);
  if (n["dtypes"]) t.dtypes = dtype_list(file, n["dtypes"], "dtypes");
  return t;
}

}  // namespace

std::string kernels_dir() {
  return data_dir() + "/kernels";
}

ConfigTable load_config_table(const std::string& path) {
  ConfigTable t;
  t.file = path;
  const std::string text =
      read_data_file(path, "cannot read config-space file; set LOOM_HOME to loom's data directory");
  const YAML::Node root = load_one_yaml(text, path);  // one document, no key given twice
  try {
    check_keys(path, root,
               {"family", "naming", "regs_base", "stages", "max_stages", "split_k", "split_k_dtypes", "tiles",
                "candidates", "rows_per_cta", "warps", "elems_per_thread", "configs"});
    if (!root["family"] || !root["naming"]) throw InputError(path + ":1", "needs 'family' and 'naming'");
    t.family = root["family"].as<std::string>();
    t.naming = root["naming"].as<std::string>();
    static const std::set<std::string> namings = {"tile", "attention", "rows", "flat", "fixed"};
    if (!namings.count(t.naming))
      throw InputError(at(path, root["naming"]), "unknown naming '" + t.naming +
                                                     "'; use tile, attention, rows, flat or fixed");
    if (root["regs_base"]) t.regs_base = to_int(path, root["regs_base"], "regs_base");
    if (root["stages"]) {
      check_keys(path, root["stages"], {"wgmma", "mma_sync", "simt", "auto"});
      for (const auto& kv : root["stages"]) {
        const std::string mma = kv.first.as<std::string>();
        t.stages[mma] = int_list(path, kv.second, "stages." + mma);
      }
    }
    if (root["max_stages"]) {
      check_keys(path, root["max_stages"], kArchs);
      for (const auto& kv : root["max_stages"]) {
        const std::string arch = kv.first.as<std::string>();
        t.max_stages[arch] = to_int(path, kv.second, "max_stages." + arch);
      }
    }
    if (root["split_k"]) t.split_k = int_list(path, root["split_k"], "split_k");
    if (root["split_k_dtypes"]) t.split_k_dtypes = dtype_list(path, root["split_k_dtypes"], "split_k_dtypes");
    if (root["tiles"]) {
      if (!root["tiles"].IsSequence()) throw InputError(at(path, root["tiles"]), "'tiles' must be a list");
      for (const auto& n : root["tiles"]) t.tiles.push_back(read_tile(path, n, t.naming));
    }
    if (root["rows_per_cta"]) t.rows_per_cta = int_list(path, root["rows_per_cta"], "rows_per_cta");
    if (root["warps"]) t.warps = int_list(path, root["warps"], "warps");
    if (root["elems_per_thread"]) t.elems_per_thread = int_list(path, root["elems_per_thread"], "elems_per_thread");
    if (root["configs"]) t.fixed = string_list(path, root["configs"], "configs");
    if ((t.naming == "tile" || t.naming == "attention") && t.tiles.empty())
      throw InputError(path + ":1", "naming '" + t.naming + "' needs a non-empty 'tiles' list");
    if (t.naming == "rows" && (t.rows_per_cta.empty() || t.warps.empty()))
      throw InputError(path + ":1", "naming 'rows' needs 'rows_per_cta' and 'warps'");
    if (t.naming == "flat" && (t.warps.empty() || t.elems_per_thread.empty()))
      throw InputError(path + ":1", "naming 'flat' needs 'warps' and 'elems_per_thread'");
    if (t.naming == "fixed" && t.fixed.empty()) throw InputError(path + ":1", "naming 'fixed' needs 'configs'");
    if (t.naming == "tile")
      for (const auto& tile : t.tiles)
        if (!t.stages.count(tile.mma))
          throw InputError(at(path, root["tiles"]), "no 'stages' list for mma '" + tile.mma + "'");
    if (root["candidates"]) {
      check_keys(path, root["candidates"], kArchs);
      for (const auto& kv : root["candidates"]) {
        std::string arch = kv.first.as<std::string>();
        t.candidates[arch] = string_list(path, kv.second, "candidates." + arch);
        for (const auto& name : t.candidates[arch]) {  // every candidate must parse against this table
          int f = -1;
          for (size_t i = 0; i < family_names().size(); ++i)
            if (family_names()[i] == t.family) f = static_cast<int>(i);
          if (f < 0) throw InputError(at(path, root["family"]), "unknown family '" + t.family + "'");
          t.parsed_candidates[arch].push_back(parse_config(t, static_cast<Family>(f), name, at(path, kv.second)));
        }
      }
    }
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1), "bad value: " + e.msg);
  }
  return t;
}

const ConfigTable& config_table(Family f) {
  // A family's table is loaded once and never replaced (map nodes do not move): once loaded it is read without
  // the lock, through its published address.
  static std::atomic<const ConfigTable*> loaded[static_cast<int>(Family::send_recv) + 1] = {};
  std::atomic<const ConfigTable*>& fast = loaded[static_cast<int>(f)];
  if (const ConfigTable* t = fast.load(std::memory_order_acquire)) return *t;
  static std::mutex mu;
  static std::map<Family, ConfigTable> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(f);
  if (it == cache.end()) {
    std::string path = kernels_dir() + "/" + family_name(f) + ".yaml";
    ConfigTable t = load_config_table(path);
    if (t.family != family_name(f))
      throw InputError(path + ":1", "file declares family '" + t.family + "', expected '" + family_name(f) + "'");
    it = cache.emplace(f, std::move(t)).first;
  }
  fast.store(&it->second, std::memory_order_release);
  return it->second;
}

}  // namespace loom
