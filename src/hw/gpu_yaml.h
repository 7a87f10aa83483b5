// Reads GPU YAML documents into RawSpec (dotted keys with FILE:LINE and source comments), following `extends:`.
// The only place yaml-cpp is used; everything downstream sees plain structs.
#pragma once

#include <string>
#include <vector>

#include "hw/gpu_schema.h"

namespace loom {

/// Reads the GPU file at `path` (named in messages by `label`), merging the chain of `extends: KEY` parents read
/// from catalog_dir/KEY.yaml (or `extends: some/file.yaml`, relative to the extending file). Rejects unknown keys
/// (listing the valid ones), malformed YAML and circular extends with InputError("FILE:LINE", ...). `files_read`,
/// if given, receives every path opened (this file first, then its parents): the result is a function of their bytes.
/// `extends`, if given, receives this file's own `extends:` value as written (its direct parent: a catalogue key or a
/// path; "" when it extends nothing).
RawSpec read_gpu_file(const std::string& path, const std::string& label, const std::string& catalog_dir,
                      std::vector<std::string>* files_read = nullptr, std::string* extends = nullptr);

/// The same for a document held in memory (tests, fuzzing); `label` names it in messages, and a relative
/// `extends:` path is resolved against the current directory.
RawSpec read_gpu_text(const std::string& text, const std::string& label, const std::string& catalog_dir);

}  // namespace loom
