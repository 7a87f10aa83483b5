// The GPU schema's key table (key -> unit kind -> GpuSpec member), internal to hw/: shared by the key lookups and
// --set overrides (gpu_schema.cpp) and by the spec builder and describe() (gpu_spec_build.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/units.h"
#include "hw/gpu_spec.h"

namespace loom::gpu_schema_detail {

enum class Need { required, optional };

// One leaf of the schema. Numeric fields use get/set in the kind's base unit (Hz, B/s, bytes, s, W, USD/h);
// text fields use get_text/set_text.
struct FieldDef {
  const char* key;
  UnitKind kind;
  Need need;
  Sign sign;
  bool integer;  // must be a whole number (counts, byte sizes)
  void (*set)(GpuSpec&, double);
  double (*get)(const GpuSpec&);
  void (*set_text)(GpuSpec&, const std::string&) = nullptr;
  const std::string& (*get_text)(const GpuSpec&) = nullptr;
};

/// Every leaf, in schema order (the order of `loom gpus show` and of gpus/README.md).
const std::vector<FieldDef>& schema();
/// The leaf named `key` (dotted), or null.
const FieldDef* find_field(const std::string& key);
/// Every key, comma-separated (for "valid keys: ..." messages).
std::string key_list();

}  // namespace loom::gpu_schema_detail
