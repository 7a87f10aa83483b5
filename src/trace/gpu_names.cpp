// Loader and lookup of traces/gpu_names.tsv.
#include "trace/gpu_names.h"

#include <cctype>
#include <cstdlib>

#include "core/error.h"
#include "hw/catalog.h"
#include "trace/text_io.h"

namespace loom {
namespace {

std::string normalise(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::string GpuNameTable::default_gpu_names_path() {
  return data_dir() + "/traces/gpu_names.tsv";
}

GpuNameTable GpuNameTable::load(const std::string& path) {
  GpuNameTable t;
  t.path_ = path;
  auto r = trace_io::LineReader::open_file(path);
  std::string line;
  while (r.next(line)) {
    std::string l = trim(line);
    if (l.empty() || l[0] == '#') continue;
    auto f = trace_io::split_tabs(l);
    if (f.size() != 2 || trim(f[0]).empty() || trim(f[1]).empty())
      throw InputError(r.where(), "expected 'device name<TAB>catalogue key'");
    std::string name = trim(f[0]);
    if (t.by_name_.count(name)) throw InputError(r.where(), "duplicate device name '" + name + "'; keep one line");
    t.add(name, trim(f[1]));
  }
  return t;
}

void GpuNameTable::add(const std::string& device_name, const std::string& key) {
  by_name_[device_name] = key;
  by_norm_[normalise(device_name)] = key;
}

std::optional<std::string> GpuNameTable::name_for(const std::string& key) const {
  for (const auto& [name, k] : by_name_)
    if (k == key) return name;
  return std::nullopt;
}

std::optional<std::string> GpuNameTable::key_for(const std::string& device_name) const {
  if (auto it = by_name_.find(device_name); it != by_name_.end()) return it->second;
  if (auto it = by_norm_.find(normalise(device_name)); it != by_norm_.end()) return it->second;
  return std::nullopt;
}

std::vector<std::string> GpuNameTable::names() const {
  std::vector<std::string> v;
  for (const auto& [name, key] : by_name_) v.push_back(name);
  return v;
}

}  // namespace loom
