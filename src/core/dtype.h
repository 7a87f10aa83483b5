// Data types loom models, with their element sizes. Parsing rejects anything not listed here.
#pragma once

#include <string>
#include <string_view>
#include <optional>

namespace loom {

enum class Dtype { fp64, fp32, tf32, fp16, bf16, fp8, int8, fp4 };

/// Canonical lower-case name ("bf16").
std::string_view dtype_name(Dtype d);
/// Parses a canonical name; std::nullopt for anything else.
std::optional<Dtype> parse_dtype(std::string_view s);
/// Bytes one element occupies in memory (tf32 is stored as fp32; fp4 is 0.5).
double dtype_bytes(Dtype d);
/// All dtypes, in enum order.
inline constexpr Dtype kAllDtypes[] = {Dtype::fp64, Dtype::fp32, Dtype::tf32, Dtype::fp16,
                                       Dtype::bf16, Dtype::fp8,  Dtype::int8, Dtype::fp4};

}  // namespace loom
