// Device name (as CUDA reports it, e.g. "NVIDIA H100 80GB HBM3") -> GPU catalogue key ("h100-sxm"), from the data
// file traces/gpu_names.tsv (`device name<TAB>catalogue key`, '#' comments).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loom {

class GpuNameTable {
 public:
  /// Loads a table file. Throws InputError("FILE:LINE", ...) on a malformed line or duplicate name.
  static GpuNameTable load(const std::string& path);
  /// Loads default_gpu_names_path().
  static GpuNameTable load_default() { return load(default_gpu_names_path()); }
  /// traces/gpu_names.tsv under $LOOM_HOME if set, else under the source tree loom was built from.
  static std::string default_gpu_names_path();

  /// Catalogue key for a device name (exact match, then case- and space-insensitive); nullopt when unknown.
  std::optional<std::string> key_for(const std::string& device_name) const;
  /// The first device name (alphabetically) mapped to a catalogue key; nullopt when none is.
  std::optional<std::string> name_for(const std::string& key) const;
  /// Every device name in the table, in order (for did-you-mean).
  std::vector<std::string> names() const;
  /// Adds or replaces one entry.
  void add(const std::string& device_name, const std::string& key);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::string, std::string> by_name_;
  std::map<std::string, std::string> by_norm_;  // normalised name -> key
};

}  // namespace loom
