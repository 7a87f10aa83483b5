// The compact binary model cache: each XGBoost JSON forest of a committed model, converted at build time (the
// loom_pack_models tool, a CMake custom command) into <build>/models/packed/<json hash>.lfb, so start-up reads a few
// hundred KB of arrays instead of parsing megabytes of JSON. A missing or stale file falls back to the JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "learned/forest.h"

namespace loom {

/// Directory of the packed forests (the build tree's models/packed, or $LOOM_PACKED_DIR if set); "" if none.
std::string packed_model_dir();
/// The packed file for a forest whose JSON has FNV-1a hash `json_hash` (model.json's "hash"), in `dir`.
std::string packed_path(const std::string& dir, const std::string& json_hash);
/// Bytes of a packed file: a header naming the JSON hash and the size of the .json.gz it came from, then the forest.
std::string pack_forest(const Forest& forest, const std::string& json_hash, uint64_t gz_size);
/// Loads a packed forest if `path` exists, names `json_hash` and `gz_size` (so an edited model falls back to its
/// JSON) and is well formed; nullopt otherwise (the caller parses the JSON).
std::optional<Forest> load_packed(const std::string& path, const std::string& json_hash, uint64_t gz_size);

}  // namespace loom
