// KernelSpec: a kernel in loom's public vocabulary, e.g. "gemm m=4096 n=4096 k=4096 dtype=bf16".
// Parsing only splits and checks syntax; each family validates its own parameters (see family.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace loom {

struct KernelSpec {
  std::string family;                         ///< "gemm", "moe", "attention_prefill", ...
  std::map<std::string, std::string> params;  ///< key -> raw value, as written
  std::string where = "--kernel";             ///< where it came from, for error messages ("batch.csv:12")

  /// Canonical text: family then params in a fixed order ("gemm m=1 n=2 k=3 dtype=bf16").
  std::string to_string() const;
  bool has(const std::string& key) const { return params.count(key) != 0; }
};

/// Splits "family k=v k=v ..." (whitespace separated). Throws InputError(where, ...) on syntax errors,
/// duplicate keys or an empty family. Does not check that the family or keys exist.
KernelSpec parse_kernel_spec(std::string_view text, std::string where = "--kernel");

/// True for the keys that take 0 or 1 (causal, residual, mask): the only ones a caller's boolean can fill.
bool is_flag_key(std::string_view key);

}  // namespace loom
