// The packed GPU catalogue: each catalogue entry as read_gpu_file reads it (RawSpec, `extends:` merged), written at
// build time by loom_pack_models next to the packed forests, with the FNV-1a hash of every file the entry was read
// from. Catalog::load takes an entry from it only while those files hash the same; otherwise it parses the YAML.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hw/gpu_schema.h"

namespace loom {

struct PackedGpu {
  std::vector<std::pair<std::string, uint64_t>> files;  ///< path as opened, FNV-1a 64 of its bytes
  RawSpec raw;
};

/// The catalogue pack's path (in the packed model directory), or "" when there is none.
std::string catalog_pack_path();
/// Reads every *.yaml entry of catalogue `dir` as Catalog::load does (an entry that fails to read is left out, so
/// its error still comes from the YAML) and returns the pack's bytes.
std::string pack_catalog(const std::string& dir);
/// The entries of the pack at `path` when it exists, is well formed and was written for catalogue `dir` (the same
/// string Catalog::load uses); empty otherwise.
std::map<std::string, PackedGpu> load_catalog_pack(const std::string& path, const std::string& dir);
/// True when every file `g` was read from still has the same bytes (`hashes` memoises per path; 0 = unreadable).
bool packed_gpu_current(const PackedGpu& g, std::map<std::string, uint64_t>& hashes);

}  // namespace loom
