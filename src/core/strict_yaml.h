// Strict YAML loading shared by loom's YAML readers (GPU descriptions, serving profiles): exactly one document and
// no key given twice in a mapping (yaml-cpp itself accepts both and silently keeps one value).
#pragma once

#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

namespace loom {

/// Throws InputError("LABEL:LINE", ...) when `text` is not UTF-8 or holds a control byte other than tab, CR and LF.
void check_text_bytes(const std::string& text, const std::string& label);

/// Parses `text` as exactly one YAML document (UTF-8 text: check_text_bytes first). Throws InputError("LABEL:LINE",
/// ...) on a syntax error, on a second document (a `---` separator followed by content) and on any mapping, at any
/// depth, that gives a key twice.
YAML::Node load_one_yaml(const std::string& text, const std::string& label);

/// Throws InputError(WHERE, "'KEY' is WHAT; write it without quotes") when `n` is a quoted scalar ("132", 'true'): a
/// string in YAML, which yaml-cpp would still convert. Every numeric and boolean field of loom's YAML readers calls it.
void refuse_quoted(const YAML::Node& n, const std::string& where, const std::string& key, const std::string& what);

/// FNV-1a 64 of a text (the key of the build-time list of texts that passed load_one_yaml's checks).
uint64_t yaml_text_hash(const std::string& text);

/// Throws InputError("LABEL:LINE", "duplicate key 'K' (first at line N); give it once") for the first mapping
/// under `node` (itself included) with a repeated scalar key.
void check_unique_keys(const YAML::Node& node, const std::string& label);

}  // namespace loom
