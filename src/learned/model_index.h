// The index of a learned efficiency model (<model dir>/model.json, written by `loom train`): its feature names and
// one {file, hash} per forest. Read strictly: a damaged or hand-edited index is refused with FILE[:LINE] and the
// key, never read as "no forest for this family" (every prediction would silently be analytical).
#pragma once

#include <string>
#include <vector>

namespace loom {

struct ModelIndexEntry {
  std::string key;   ///< family[@impl][.q] or _all[.q], e.g. "gemm@cutlass.q"
  std::string file;  ///< a file name inside the model directory
  std::string hash;  ///< FNV-1a (16 hex digits) of the forest's JSON
};

struct ModelIndex {
  std::vector<std::string> features;
  std::vector<ModelIndexEntry> models;
};

/// Parses model.json's text (`path` names it in messages). Throws InputError(path[:LINE], ...) on invalid JSON,
/// duplicate or unknown keys, a feature list that is empty or repeats a name, a forest key that names no kernel
/// family or implementation, a file that is not a plain name in the directory, a hash that is not 16 hex digits,
/// or no forest at all.
ModelIndex parse_model_index(const std::string& text, const std::string& path);

}  // namespace loom
