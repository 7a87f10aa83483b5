// The GPU catalogue: loads gpus/*.yaml (strict schema, units, `extends:`) into GpuSpec, with --set overrides.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hw/gpu_schema.h"
#include "hw/gpu_spec.h"

namespace loom {

/// Directory holding loom's data (gpus/, kernels/, models/, traces/): $LOOM_HOME if set, else the source tree
/// loom was built from.
std::string data_dir();

class Catalog {
 public:
  /// Loads every *.yaml in `dir` (default: data_dir()/gpus). Throws InputError("FILE:LINE", ...) on any bad file.
  static Catalog load(const std::string& dir = "");

  /// Catalogue keys, sorted.
  std::vector<std::string> names() const;

  /// A GPU by catalogue key or by path to a YAML file (which may `extends:` a catalogue entry), with overrides
  /// applied in order; each override is "dotted.key=value with unit", e.g. "dram.bandwidth=4.8TB/s".
  /// Throws InputError for unknown names ("unknown GPU 'x'; try `loom gpus`"), unknown keys or bad units.
  GpuSpec get(const std::string& name_or_path, const std::vector<std::string>& overrides = {}) const;

  /// The file a name stands for, as one spelling (canonical path): a key's catalogue file, or the path itself. Two
  /// names with the same file_of are one GPU ("h200", "gpus/h200.yaml", "./gpus//h200.yaml").
  std::string file_of(const std::string& name_or_path) const;

 private:
  std::string dir_;
  std::vector<std::string> names_;
  /// Each entry as read and validated by load(), so get() does not parse its YAML (and `extends:` chain) again.
  std::shared_ptr<const std::map<std::string, RawSpec>> raw_;
  /// Each entry as get(name) with no overrides builds it, built once at load (a what-if table asks for every one).
  std::shared_ptr<const std::map<std::string, GpuSpec>> built_;
};

}  // namespace loom
