// Kernel-spec parameter parsing for parse_shape: see kernels/shape_params.h.
#include "kernels/shape_params.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <vector>

#include "kernels/shape.h"

namespace loom {
namespace shape_detail {

int64_t size_value(const std::string& where, std::string_view key_view, const std::string& v) {
  auto key = [&] { return std::string(key_view); };  // for the messages only
  int64_t out = 0;
  const char* end = v.data() + v.size();
  auto [ptr, ec] = std::from_chars(v.data(), end, out);
  if (ec == std::errc::result_out_of_range) throw InputError(where, key() + "=" + v + " is too large (limit 2^40)");
  if (ec != std::errc() || ptr != end)
    throw InputError(where, key() + "=" + v + " is not an integer; write a plain decimal number");
  if (out <= 0) throw InputError(where, key() + "=" + v + " must be > 0");
  if (out > kMaxElements) throw InputError(where, key() + "=" + v + " is too large (limit 2^40)");
  return out;
}

Params::Params(const KernelSpec& spec, KeyList keys) : spec_(spec) {
  keys.push_back("config");
  // impl= says which implementation runs the kernel: the production library (cuBLAS/cuDNN), PyTorch's native
  // kernels, loom's own, or (gemm dtype=fp8 only) the CUTLASS w8a8 scaled GEMM that vLLM and SGLang run. The
  // learned model's efficiency depends on it; the analytical demand only for cutlass (its own tile dispatch).
  keys.push_back("impl");
  // l2=cold|warm: the cache state the kernel meets. cold (the default): its inputs come from DRAM, as loom's own
  // sweeps measure them after an L2 flush; warm: what it reads was just touched (the same op repeated in a loop,
  // or a kernel reading what the previous one wrote), as most public profiles measured.
  keys.push_back("l2");
  if (auto it = spec.params.find("l2"); it != spec.params.end() && it->second != "cold" && it->second != "warm")
    throw InputError(spec.where, "l2=" + it->second + " is not a cache state; use cold or warm");
  const auto impl_it = spec.params.find("impl");  // looked up once for the checks below
  if (auto it = impl_it; it != spec.params.end() && it->second != "library" &&
                                          it->second != "torch" && it->second != "loom" && it->second != "cutlass" &&
                                          it->second != "fused" && it->second != "paged" &&
                                          it->second != "custom" && it->second != "nccl")
    throw InputError(spec.where,
                     "impl=" + it->second +
                         " is not an implementation; use library, torch, loom, cutlass, fused, paged, nccl or custom");
  // fused: the serving engines' one-kernel rotary / silu_and_mul / fused_add_rms_norm (traces/serving);
  // paged: a paged-KV decode attention kernel.
  if (auto it = impl_it; it != spec.params.end() && it->second == "fused" &&
                                          spec.family != "rotary" && spec.family != "rms_norm" &&
                                          !(spec.family == "elementwise" && spec.params.count("op") &&
                                            spec.params.at("op") == "silu_mul"))
    throw InputError(spec.where, "impl=fused exists for rotary, rms_norm and elementwise op=silu_mul only");
  // nccl: NCCL's ring/tree all-reduce (the measured fits, models/collectives.json); custom: the serving engines'
  // one-shot/two-shot all-reduce over NVLink for small messages (the measured custom fit, models/collectives.json).
  if (auto it = impl_it; it != spec.params.end() && it->second == "custom" && spec.family != "all_reduce")
    throw InputError(spec.where, "impl=custom exists for all_reduce only");
  if (auto it = impl_it; it != spec.params.end() && it->second == "nccl" && spec.family != "all_reduce" &&
                                          spec.family != "all_gather" && spec.family != "reduce_scatter" &&
                                          spec.family != "send_recv")
    throw InputError(spec.where, "impl=nccl exists for all_reduce, all_gather, reduce_scatter and send_recv only");
  if (auto it = impl_it; it != spec.params.end() && it->second == "paged" &&
                                          spec.family != "attention_decode")
    throw InputError(spec.where, "impl=paged exists for attention_decode only");
  // CUTLASS's w8a8 GEMM is a GEMM; a collective runs NCCL (or the engines' custom all-reduce): `softmax impl=cutlass`
  // or `all_reduce impl=torch` was answered as if the key were absent.
  if (auto it = impl_it; it != spec.params.end() && it->second == "cutlass" && spec.family != "gemm")
    throw InputError(spec.where, "impl=cutlass exists for gemm (dtype=fp8) only");
  const bool collective = spec.family == "all_reduce" || spec.family == "all_gather" ||
                          spec.family == "reduce_scatter" || spec.family == "send_recv";
  if (auto it = impl_it; it != spec.params.end() && collective && it->second != "nccl" && it->second != "custom")
    throw InputError(spec.where, "impl=" + it->second + " is not a collective implementation; " + spec.family +
                                     " takes impl=nccl" + (spec.family == "all_reduce" ? " or impl=custom" : ""));
  for (const auto& [k, v] : spec.params) {
    bool known = false;
    for (std::string_view key : keys) known = known || key == k;
    if (!known)
      throw InputError(spec.where, "unknown key '" + k + "' for " + spec.family + "; valid keys: " + join(keys));
  }
}

Dtype Params::dtype(std::initializer_list<Dtype> allowed) const {
  const std::string& v = raw("dtype");
  auto d = parse_dtype(v);
  bool ok = false;
  for (Dtype a : allowed) ok = ok || (d && *d == a);
  if (!ok) {
    std::vector<std::string> names;
    for (Dtype a : allowed) names.push_back(std::string(dtype_name(a)));
    throw InputError(spec_.where, "dtype=" + v + " is not supported by " + spec_.family + "; use one of: " +
                                      join(names));
  }
  return *d;
}

std::string Params::example() const {
  static const std::map<std::string, std::string> examples = {
      {"gemm", "gemm m=4096 n=4096 k=4096 dtype=bf16"},
      {"moe", "moe tokens=512 experts=8 topk=2 hidden=4096 inter=14336 dtype=bf16"},
      {"attention_prefill", "attention_prefill batch=1 heads=32 kv_heads=8 seq=4096 head_dim=128 causal=1 dtype=bf16"},
      {"attention_decode", "attention_decode batch=32 heads=32 kv_heads=8 seq_kv=4096 head_dim=128 dtype=bf16"},
      {"rms_norm", "rms_norm rows=4096 cols=4096 dtype=bf16"},
      {"layer_norm", "layer_norm rows=4096 cols=4096 dtype=bf16"},
      {"softmax", "softmax rows=4096 cols=4096 dtype=bf16"},
      {"elementwise", "elementwise op=silu_mul rows=4096 cols=14336 dtype=bf16"},
      {"rotary", "rotary tokens=4096 heads=40 head_dim=128 dtype=bf16"},
      {"all_reduce", "all_reduce bytes=33554432 gpus=8"},
      {"all_gather", "all_gather bytes=33554432 gpus=8"},
      {"reduce_scatter", "reduce_scatter bytes=33554432 gpus=8"},
      {"send_recv", "send_recv bytes=4194304"}};
  auto it = examples.find(spec_.family);
  return it == examples.end() ? spec_.family : it->second;
}

}  // namespace shape_detail

void check_spec_sizes(const KernelSpec& spec) {
  // A family loom models: parse_shape's own reading (m=n=k=1e9 has sizes below 2^40 each and an A of 1e18 elements;
  // an imported row of it entered a corpus that no command could then predict; round 13).
  const std::vector<std::string>& families = family_names();
  if (std::find(families.begin(), families.end(), spec.family) != families.end()) {
    (void)parse_shape_params(spec);
    return;
  }
  // Any other family (a case list's e2e_decode/e2e_prefill rows): the keys that are sizes in loom's families.
  static const char* const kSizeKeys[] = {"m",     "n",        "k",    "batch",  "tokens",   "experts",
                                          "topk",  "hidden",   "inter", "heads", "kv_heads", "seq",
                                          "seq_kv", "head_dim", "rows", "cols",   "bytes",    "gpus"};
  for (const char* key : kSizeKeys)
    if (auto it = spec.params.find(key); it != spec.params.end())
      (void)shape_detail::size_value(spec.where, key, it->second);
}

}  // namespace loom
