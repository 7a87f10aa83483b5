// The GPU catalogue: data_dir(), Catalog::load/names/get (catalogue keys, YAML paths, --set overrides).
#include "hw/catalog.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "core/file_io.h"
#include "core/suggest.h"
#include "hw/catalog_pack.h"
#include "hw/gpu_values.h"
#include "hw/gpu_yaml.h"

#ifndef LOOM_SOURCE_DIR
#define LOOM_SOURCE_DIR "."
#endif

namespace loom {

namespace fs = std::filesystem;

namespace {

/// The catalogue entry whose values (gpu_hardware_values) a GPU file read as `raw` has, or "" (none, or a file that
/// does not build without --set). `built`, when given, receives the file's spec as built for the comparison.
std::string entry_with(const Catalog& catalog, const RawSpec& raw, bool timing_only, GpuSpec* built = nullptr) {
  std::string v;
  try {
    RawSpec checked = raw;
    apply_overrides(checked, {});
    GpuSpec g = build_gpu_spec(checked, "", "");
    v = gpu_hardware_values(g, timing_only);
    if (built) *built = std::move(g);
  } catch (const InputError&) {
    return "";
  }
  for (const auto& n : catalog.names())
    if (gpu_hardware_values(catalog.get(n), timing_only) == v) return n;
  return "";
}

}  // namespace

std::string data_dir() {
  const char* home = std::getenv("LOOM_HOME");
  if (home && *home) return home;
  return LOOM_SOURCE_DIR;
}

Catalog Catalog::load(const std::string& dir) {
  Catalog c;
  c.dir_ = dir.empty() ? (fs::path(data_dir()) / "gpus").string() : dir;
  std::error_code ec;
  if (!fs::is_directory(c.dir_, ec))
    throw InputError(c.dir_, "GPU catalogue directory not found; set LOOM_HOME to loom's data directory");
  for (const auto& e : fs::directory_iterator(c.dir_, ec))
    if (e.is_regular_file() && e.path().extension() == ".yaml") c.names_.push_back(e.path().stem().string());
  std::sort(c.names_.begin(), c.names_.end());
  // A key the command line cannot name: "all" means every GPU, a comma splits a list, ':' scopes a --set, '='
  // ends a --set key, a leading '-' reads as a flag; such an entry was listed but unreachable (or silently another).
  for (const auto& n : c.names_) {
    const bool bad_char = std::any_of(n.begin(), n.end(), [](char ch) {
      const auto u = static_cast<unsigned char>(ch);
      return u <= ' ' || u == 0x7f || ch == ',' || ch == ':' || ch == '=';
    });
    if (n == "all" || n.empty() || n[0] == '-' || bad_char)
      throw InputError((fs::path(c.dir_) / (n + ".yaml")).string(),
                       "'" + n + "' cannot be a catalogue key (the name 'all', a leading '-', spaces, control "
                       "characters, ',', ':' and '=' have a meaning on the command line); rename the file");
  }
  // Validate every entry now, so a broken catalogue fails at load with its FILE:LINE, not at first use; keep what
  // was read (a what-if table asks for every entry again).
  // An entry whose files have the bytes the build-time pack read them from is taken from the pack (no YAML parse);
  // any other is read from its YAML.
  auto raw = std::make_shared<std::map<std::string, RawSpec>>();
  auto built = std::make_shared<std::map<std::string, GpuSpec>>();
  std::map<std::string, PackedGpu> packed = load_catalog_pack(catalog_pack_path(), c.dir_);
  std::map<std::string, uint64_t> hashes;
  for (const auto& n : c.names_) {
    const std::string source_file = (fs::path(c.dir_).filename() / (n + ".yaml")).string();
    auto p = packed.find(n);
    RawSpec r = p != packed.end() && packed_gpu_current(p->second, hashes)
                    ? std::move(p->second.raw)
                    : read_gpu_file((fs::path(c.dir_) / (n + ".yaml")).string(), source_file, c.dir_);
    RawSpec checked = r;
    apply_overrides(checked, {});
    built->emplace(n, build_gpu_spec(checked, n, source_file));
    raw->emplace(n, std::move(r));
  }
  c.raw_ = std::move(raw);
  c.built_ = std::move(built);
  return c;
}

std::vector<std::string> Catalog::names() const { return names_; }

std::string Catalog::file_of(const std::string& name_or_path) const {
  // A file with an entry's values (its path, a copy) is that entry (get): two names for it are one GPU.
  std::string entry;
  std::error_code fe;
  if (std::find(names_.begin(), names_.end(), name_or_path) == names_.end() && fs::is_regular_file(name_or_path, fe)) {
    try {
      entry = entry_with(*this, read_gpu_file(name_or_path, name_or_path, dir_), false);
    } catch (const InputError&) {
    }  // get() says what is wrong with the file
  }
  const std::string name = entry.empty() ? name_or_path : entry;
  const bool known = std::find(names_.begin(), names_.end(), name) != names_.end();
  const fs::path p = known ? fs::path(dir_) / (name + ".yaml") : fs::path(name);
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal().string() : c.string();
}

GpuSpec Catalog::get(const std::string& name_or_path, const std::vector<std::string>& overrides) const {
  const bool known = std::find(names_.begin(), names_.end(), name_or_path) != names_.end();
  if (known && overrides.empty() && built_)  // exactly what the code below builds for it (as Catalog::load did)
    if (auto it = built_->find(name_or_path); it != built_->end()) return it->second;
  RawSpec raw;
  std::string source_file;
  std::string parent;  // a GPU file's own `extends:` value (a catalogue key, a path or "")
  if (known) {
    source_file = (fs::path(dir_).filename() / (name_or_path + ".yaml")).string();
    const RawSpec* cached = nullptr;
    if (raw_)
      if (auto it = raw_->find(name_or_path); it != raw_->end()) cached = &it->second;
    raw = cached ? *cached : read_gpu_file((fs::path(dir_) / (name_or_path + ".yaml")).string(), source_file, dir_);
  } else {
    std::error_code ec;
    const bool is_file = fs::is_regular_file(name_or_path, ec);
    const bool pathlike = name_or_path.find('/') != std::string::npos ||
                          name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
    if (!is_file) {
      std::error_code e;
      if (pathlike && fs::status(name_or_path, e).type() == fs::file_type::none && e.value() == ELOOP)
        throw InputError(name_or_path, "cannot open: " + e.message() + " (a link loop?); check the path");
      if (pathlike && fs::exists(name_or_path, ec)) check_input_file(name_or_path);  // says which: folder, device, FIFO
      if (pathlike)
        throw InputError(name_or_path, fs::exists(name_or_path, ec)
                                           ? "not a regular file (a directory or device); give a GPU YAML file"
                                           : "no such GPU file; check the path");
      // "all" and lists are expanded by commands that compare GPUs; here one GPU is asked for ("did you mean a10?").
      if (name_or_path == "all" || name_or_path.find(',') != std::string::npos)
        throw InputError("--gpu", "'" + name_or_path.substr(0, 80) +
                                      "' names several GPUs; this takes one (a catalogue "
                                      "key or a GPU YAML file)");
      std::string list;
      for (const auto& n : names_) list += (list.empty() ? "" : ", ") + n;
      throw InputError("--gpu", "unknown GPU '" + name_or_path + "'" + did_you_mean(name_or_path, names_) +
                                    "; try `loom gpus` (known: " + list + ")");
    }
    source_file = name_or_path;
    raw = read_gpu_file(name_or_path, name_or_path, dir_, nullptr, &parent);
    // A file with an entry's values (its catalogue file by path, a copy, the same values spelt otherwise) is that
    // entry: the same key, anchor and predictions, however it `extends:` (gpus/h200.yaml extends h100-sxm; it was
    // anchored to the H100 and predicted off it).
    GpuSpec file;  // the file's own values, built once (by entry_with) for its name
    if (const std::string entry = entry_with(*this, raw, false, &file); !entry.empty()) {
      GpuSpec g = get(entry, overrides);
      // The file's own `name:` is kept (round 13: a lab's name for its H200 became "NVIDIA H200 SXM 141GB"): the
      // marketing name moves no prediction, so the key, anchor and numbers stay the entry's.
      const bool name_set = std::any_of(overrides.begin(), overrides.end(),
                                        [](const std::string& o) { return o.starts_with("name="); });
      if (!name_set && file.full_name != g.full_name) {
        g.full_name = file.full_name;
        if (auto it = file.key_sources.find("name"); it != file.key_sources.end()) g.key_sources["name"] = it->second;
      }
      return g;
    }
  }
  // A GPU changed in more than its SM count (by --set, or a file that `extends:` a catalogue entry and changes its
  // hardware) keeps the GPU as measured as its anchor (GpuSpec::anchor): learned predictions start there. The
  // anchor takes the changed GPU's SM count: the corpus measures SM partitions, so the learned model knows them.
  // The node topology moves no kernel and no measured collective fit either: a GPU changed in it alone is predicted
  // as itself (its collectives from the fits of its own topology, learned/collectives.cpp), and an anchor takes it
  // where the anchor's NVLink keys allow.
  auto timing_key = [](const std::string& k) {
    return k != "sms" && k != "price" && k != "name" && k != "interconnect.topology";
  };
  std::optional<RawSpec> anchor_raw;
  std::string anchor_name = name_or_path, anchor_source = source_file;
  if (!known) {
    // The anchor is the entry whose timing values the file has where that is not the entry it `extends:` (a copy
    // of h200.yaml, which extends h100-sxm, with another price), else the entry it extends when it changes that
    // one's timing. (A file with its parent's timing values is predicted as itself, as before.)
    if (const std::string same = entry_with(*this, raw, true); !same.empty() && same != parent) {
      anchor_raw = raw_ && raw_->count(same) ? raw_->at(same)
                                             : read_gpu_file((fs::path(dir_) / (same + ".yaml")).string(), same, dir_);
      anchor_name = same;
      anchor_source = (fs::path(dir_).filename() / (same + ".yaml")).string();
    } else if (!parent.empty() && std::find(names_.begin(), names_.end(), parent) != names_.end()) {
      RawSpec pr = raw_ && raw_->count(parent)
                       ? raw_->at(parent)
                       : read_gpu_file((fs::path(dir_) / (parent + ".yaml")).string(), parent, dir_);
      bool changed = false;
      for (const auto& [k, v] : raw.values) {
        auto it = pr.values.find(k);
        if (timing_key(k) && (it == pr.values.end() || it->second.text != v.text)) changed = true;
      }
      if (changed) {
        anchor_raw = std::move(pr);
        anchor_name = parent;
        anchor_source = (fs::path(dir_).filename() / (parent + ".yaml")).string();
      }
    }
  }
  const bool set_changes = std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) {
    return timing_key(o.substr(0, o.find('=')));
  });
  if (set_changes && !anchor_raw) anchor_raw = raw;
  apply_overrides(raw, overrides);
  GpuSpec g = build_gpu_spec(raw, name_or_path, source_file);
  if (anchor_raw) {
    if (auto sms = raw.values.find("sms"); sms != raw.values.end()) anchor_raw->values["sms"] = sms->second;
    GpuSpec anchor = build_gpu_spec(*anchor_raw, anchor_name, anchor_source);
    // The node as given (its topology and size: a mesh's links are split over its peers) where the anchor's NVLink
    // keys allow that topology: the measured fits of that node then serve the anchor.
    if (topology_consistent(g.topology, anchor.nvlink_bytes_per_s, anchor.nvlink_gpus)) {
      anchor.topology = g.topology, anchor.gpus_per_node = g.gpus_per_node;
      anchor.key_sources["interconnect.topology"] = g.key_sources["interconnect.topology"];
    }
    g.anchor = std::make_shared<const GpuSpec>(std::move(anchor));
  }
  return g;
}

}  // namespace loom
