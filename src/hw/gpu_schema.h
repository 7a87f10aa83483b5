// The gpus/*.yaml schema: every dotted key, its unit kind, whether it is required, and how it maps onto GpuSpec;
// building a GpuSpec from raw key/value text, --set overrides, and the field-by-field view for `loom gpus show`.
// No YAML here: the loader (gpu_yaml.cpp) flattens documents into RawSpec first.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hw/gpu_spec.h"

namespace loom {

/// One value as read, before unit parsing: its text, where it came from ("FILE:LINE" or "--set") and the source
/// comment written on its line (may be empty).
struct RawValue {
  std::string text;
  std::string where;
  std::string comment;
};

/// A GPU description flattened to dotted keys ("dram.bandwidth"), after `extends:` has been merged.
struct RawSpec {
  std::map<std::string, RawValue> values;
  std::map<std::string, std::string> group_where;  ///< group key ("" = document) -> "FILE:LINE" (for missing keys)
};

/// One row of `loom gpus show`: dotted key, value text, unit, and where the value came from.
struct SpecField {
  std::string key;
  std::string value;
  std::string unit;
  std::string source;
};

/// Every key a GPU YAML file or --set may give, dotted, in schema order.
std::vector<std::string> gpu_spec_keys();
/// The architectures a GPU file may name (pascal ... blackwell), oldest first.
const std::vector<std::string>& gpu_architectures();
/// The node topologies interconnect.topology may name: nvswitch, nvlink-mesh, nvlink-bridge, pcie.
const std::vector<std::string>& gpu_topologies();
/// True when `topology` agrees with the NVLink keys: NVLink for every topology but pcie, none for pcie, and an
/// nvlink-bridge's domain (nvlink_gpus) of at least 2 GPUs (the rules build_gpu_spec refuses a file for breaking).
bool topology_consistent(const std::string& topology, double nvlink_bytes_per_s, int nvlink_gpus);
/// Direct children of a group ("" = the document's top level), e.g. "clock" -> {"boost", "sustained"}.
std::vector<std::string> gpu_spec_children(const std::string& group);
/// True when `key` names a group (a YAML map such as "clock"), false for leaves and unknown keys.
bool is_gpu_spec_group(const std::string& key);
/// True when `key` names a leaf value ("clock.boost").
bool is_gpu_spec_leaf(const std::string& key);
/// True for a leaf that holds text (name, dram.type, ...); false for a number or a quantity with a unit.
bool is_gpu_spec_text(const std::string& key);

/// Applies "dotted.key=value" overrides in order (where = "--set"). Throws InputError("--set", ...) for a
/// malformed override or an unknown key (listing the valid keys).
void apply_overrides(RawSpec& raw, const std::vector<std::string>& overrides);

/// Parses every value with its unit and checks ranges and cross-field rules. `name` is the catalogue key or path.
/// Throws InputError at the offending value's FILE:LINE (or "--set"), or at its group for a missing key.
GpuSpec build_gpu_spec(const RawSpec& raw, const std::string& name, const std::string& source_file);

/// Every field of a GPU in schema order, then derived values (max warps, peak FLOP/s at the sustained clock).
std::vector<SpecField> describe(const GpuSpec& gpu);

}  // namespace loom
