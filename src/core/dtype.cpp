// Dtype names and sizes.
#include "core/dtype.h"

namespace loom {

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::fp64: return "fp64";
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
    case Dtype::fp16: return "fp16";
    case Dtype::bf16: return "bf16";
    case Dtype::fp8: return "fp8";
    case Dtype::int8: return "int8";
    case Dtype::fp4: return "fp4";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view s) {
  for (Dtype d : kAllDtypes)
    if (dtype_name(d) == s) return d;
  return std::nullopt;
}

double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::fp64: return 8;
    case Dtype::fp32:
    case Dtype::tf32: return 4;
    case Dtype::fp16:
    case Dtype::bf16: return 2;
    case Dtype::fp8:
    case Dtype::int8: return 1;
    case Dtype::fp4: return 0.5;
  }
  return 0;
}

}  // namespace loom
