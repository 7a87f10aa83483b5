// Family vocabulary checks: KernelSpec (strings) -> KernelShape (typed, validated against the GPU).
#include "kernels/shape.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>

#include "core/error.h"

namespace loom {
namespace {

/// Reads one family's keys from a KernelSpec: rejects unknown keys up front, then parses on demand.
/// A size parameter's value: a plain decimal integer in [1, kMaxElements].
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

/// A family's keys: at most 8 of its own plus config, impl and l2 (string literals: no allocation per row).
class KeyList {
 public:
  KeyList(std::initializer_list<std::string_view> keys) {
    for (std::string_view k : keys) push_back(k);
  }
  void push_back(std::string_view k) {
    if (n_ == std::size(keys_)) throw std::logic_error("KeyList: too many keys");
    keys_[n_++] = k;
  }
  const std::string_view* begin() const { return keys_; }
  const std::string_view* end() const { return keys_ + n_; }

 private:
  std::string_view keys_[12];
  size_t n_ = 0;
};

template <class List>
std::string join(const List& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

class Params {
 public:
  Params(const KernelSpec& spec, KeyList keys) : spec_(spec) {
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
      throw InputError(spec.where, "impl=" + it->second +
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
    for (const auto& [k, v] : spec.params) {
      bool known = false;
      for (std::string_view key : keys) known = known || key == k;
      if (!known)
        throw InputError(spec.where, "unknown key '" + k + "' for " + spec.family + "; valid keys: " + join(keys));
    }
  }

  /// The key's value, or null: a scan of the few parameters, by length first (no key string is built).
  const std::string* find(std::string_view key) const {
    for (const auto& [k, v] : spec_.params)
      if (k.size() == key.size() && std::string_view(k) == key) return &v;
    return nullptr;
  }

  bool has(std::string_view key) const { return find(key) != nullptr; }

  const std::string& raw(std::string_view key) const {
    if (const std::string* v = find(key)) return *v;
    throw InputError(spec_.where, spec_.family + " needs " + std::string(key) + "=; e.g. '" + example() + "'");
  }

  /// A required positive integer no larger than kMaxElements.
  int64_t size(std::string_view key) const { return parse_size(key, raw(key)); }
  int64_t size_or(std::string_view key, int64_t fallback) const {
    const std::string* v = find(key);
    return v ? parse_size(key, *v) : fallback;
  }

  bool flag(std::string_view key) const {
    const std::string& v = raw(key);
    if (v != "0" && v != "1") throw InputError(spec_.where, std::string(key) + "=" + v + " must be 0 or 1");
    return v == "1";
  }

  Dtype dtype(std::initializer_list<Dtype> allowed) const {
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

  template <class Options = std::initializer_list<std::string_view>>  // the default for a braced list of literals
  std::string choice(std::string_view key, const Options& options, std::string_view fallback) const {
    const std::string* found = find(key);
    if (!found) {
      if (fallback.empty()) raw(key);  // throws "needs key="
      return std::string(fallback);
    }
    const std::string& v = *found;
    for (const auto& o : options)
      if (o == v) return v;
    throw InputError(spec_.where, std::string(key) + "=" + v + " is not valid for " + spec_.family + "; use one of: " +
                                      join(options));
  }

  std::optional<std::string> config() const {
    const std::string* v = find("config");
    if (!v) return std::nullopt;
    return *v;
  }

 private:
  int64_t parse_size(std::string_view key, const std::string& v) const { return size_value(spec_.where, key, v); }

  std::string example() const {
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

  const KernelSpec& spec_;
};

void check_elements(const KernelSpec& spec, const std::string& what, double elements) {
  if (elements > static_cast<double>(kMaxElements))
    throw InputError(spec.where, what + " has " + std::to_string(static_cast<int64_t>(std::min(elements, 9.0e18))) +
                                     " elements, beyond loom's sanity limit of 2^40; check the sizes");
}

/// The GPU must have a tensor path for tensor-core dtypes (fp32 runs on the FMA pipe and is always available).
void check_gpu_dtype(const KernelSpec& spec, const GpuSpec& gpu, Dtype d) {
  if (d == Dtype::fp32) return;
  if (gpu.tensor_flops_per_clk(d) <= 0)
    throw InputError(spec.where, "gpu '" + gpu.name + "' has no " + std::string(dtype_name(d)) +
                                     " tensor path; use a dtype this GPU supports (see `loom gpus show " + gpu.name +
                                     "`)");
}

const std::initializer_list<Dtype> kFloatAll = {Dtype::fp32, Dtype::fp16, Dtype::bf16};

void check_heads(const KernelSpec& spec, const KernelShape& s) {
  if (s.heads % s.kv_heads != 0)
    throw InputError(spec.where, "heads=" + std::to_string(s.heads) + " is not a multiple of kv_heads=" +
                                     std::to_string(s.kv_heads) + "; GQA needs heads % kv_heads == 0");
  bool ok = false;
  for (int d : kHeadDims) ok = ok || d == s.head_dim;
  if (!ok) {
    std::vector<std::string> dims;
    for (int d : kHeadDims) dims.push_back(std::to_string(d));
    throw InputError(spec.where, "head_dim=" + std::to_string(s.head_dim) + " is not supported; use one of: " +
                                     join(dims));
  }
}

}  // namespace

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names = {"gemm",    "moe",        "attention_prefill", "attention_decode",
                                                 "rms_norm", "layer_norm", "softmax",           "elementwise",
                                                 "rotary",  "all_reduce", "all_gather", "reduce_scatter",
                                                 "send_recv"};
  return names;
}

std::string family_name(Family f) { return family_names()[static_cast<int>(f)]; }

void check_spec_sizes(const KernelSpec& spec) {
  // Every key that parse_shape reads as a size, in any family.
  static const char* const kSizeKeys[] = {"m",     "n",        "k",    "batch",  "tokens",   "experts",
                                          "topk",  "hidden",   "inter", "heads", "kv_heads", "seq",
                                          "seq_kv", "head_dim", "rows", "cols",   "bytes",    "gpus"};
  for (const char* key : kSizeKeys)
    if (auto it = spec.params.find(key); it != spec.params.end()) (void)size_value(spec.where, key, it->second);
}

KernelShape parse_shape(const KernelSpec& spec, const GpuSpec& gpu) {
  KernelShape s;
  s.where = spec.where;
  if (auto it = spec.params.find("l2"); it != spec.params.end()) s.l2_warm = it->second == "warm";
  int idx = -1;
  const std::vector<std::string>& families = family_names();
  const std::string_view family = spec.family;  // compared length first, names are unique: the first match
  for (size_t i = 0; i < families.size() && idx < 0; ++i)
    if (family == families[i]) idx = static_cast<int>(i);
  if (idx < 0)
    throw InputError(spec.where, "unknown kernel family '" + spec.family + "'; valid families: " + join(family_names()));
  s.family = static_cast<Family>(idx);
  switch (s.family) {
    case Family::gemm: {
      Params p(spec, {"m", "n", "k", "batch", "dtype", "scales"});
      s.m = p.size("m"), s.n = p.size("n"), s.k = p.size("k"), s.batch = p.size_or("batch", 1);
      s.dtype = p.dtype({Dtype::fp32, Dtype::tf32, Dtype::fp16, Dtype::bf16, Dtype::fp8});
      s.impl = p.choice("impl", {"library", "torch", "loom", "cutlass"}, "library");
      if (p.has("scales") && s.dtype != Dtype::fp8)
        throw InputError(spec.where, "scales= applies to dtype=fp8 only (the dequantisation scales of a w8a8 GEMM)");
      s.scales = p.choice("scales", {"tensor", "rowwise", "block"}, "tensor");
      if (s.impl == "cutlass") {
        if (s.dtype != Dtype::fp8)
          throw InputError(spec.where, "impl=cutlass is the w8a8 scaled GEMM of vLLM/SGLang: it needs dtype=fp8");
        if (s.batch != 1) throw InputError(spec.where, "impl=cutlass runs one GEMM per launch; drop batch=");
        if (gpu.architecture != "hopper")
          throw InputError(spec.where, "impl=cutlass is modelled for Hopper (vLLM's sm90 fp8 dispatch); gpu '" +
                                           gpu.name + "' is " + gpu.architecture + "; use impl=library");
        if (s.scales == "block")
          throw InputError(spec.where, "impl=cutlass with scales=block is not modelled; block-scaled fp8 runs "
                                       "impl=library (cuBLASLt) here");
      }
      s.out_dtype = (s.dtype == Dtype::fp32 || s.dtype == Dtype::tf32) ? Dtype::fp32
                    : s.dtype == Dtype::fp8                           ? Dtype::bf16
                                                                      : s.dtype;
      s.align_bytes = gemm_align_bytes(s.k, s.n, s.dtype);
      if (s.impl == "library") s.path = lookup_gemm_path(gpu.architecture, s.dtype, s.align_bytes, s.batch > 1, s.m);
      double b = static_cast<double>(s.batch);
      check_elements(spec, "A", b * s.m * s.k), check_elements(spec, "B", b * s.k * s.n);
      check_elements(spec, "C", b * s.m * s.n);
      s.config = p.config();
      break;
    }
    case Family::moe: {
      Params p(spec, {"tokens", "experts", "topk", "hidden", "inter", "dtype", "stage"});
      s.tokens = p.size("tokens"), s.experts = p.size("experts"), s.topk = p.size("topk");
      s.hidden = p.size("hidden"), s.inter = p.size("inter");
      s.dtype = p.dtype({Dtype::fp16, Dtype::bf16, Dtype::fp8});
      s.out_dtype = s.dtype == Dtype::fp8 ? Dtype::bf16 : s.dtype;
      s.moe_w2 = p.choice("stage", {"w13", "w2"}, "w13") == "w2";
      if (s.topk > s.experts)
        throw InputError(spec.where, "topk=" + std::to_string(s.topk) + " exceeds experts=" +
                                         std::to_string(s.experts) + "; each token picks topk distinct experts");
      check_elements(spec, "routed rows x hidden", static_cast<double>(s.tokens) * s.topk * s.hidden);
      check_elements(spec, "expert weights", static_cast<double>(s.experts) * s.hidden * s.inter * 2);
      check_elements(spec, "routed rows x inter", static_cast<double>(s.tokens) * s.topk * s.inter * 2);
      s.config = p.config();
      break;
    }
    case Family::attention_prefill: {
      Params p(spec, {"batch", "heads", "kv_heads", "seq", "seq_kv", "head_dim", "causal", "dtype"});
      s.batch = p.size("batch"), s.heads = p.size("heads"), s.kv_heads = p.size("kv_heads");
      s.seq = p.size("seq"), s.seq_kv = p.size_or("seq_kv", s.seq), s.head_dim = p.size("head_dim");
      s.causal = p.flag("causal");
      s.dtype = p.dtype({Dtype::fp16, Dtype::bf16, Dtype::fp8});
      s.out_dtype = s.dtype == Dtype::fp8 ? Dtype::bf16 : s.dtype;
      check_heads(spec, s);
      if (s.seq_kv < s.seq)
        throw InputError(spec.where, "seq_kv=" + std::to_string(s.seq_kv) + " < seq=" + std::to_string(s.seq) +
                                         "; prefill attends to at least its own tokens (seq_kv >= seq)");
      check_elements(spec, "Q", static_cast<double>(s.batch) * s.heads * s.seq * s.head_dim);
      check_elements(spec, "K", static_cast<double>(s.batch) * s.kv_heads * s.seq_kv * s.head_dim);
      check_elements(spec, "scores", static_cast<double>(s.batch) * s.heads * s.seq * s.seq_kv / 64.0);
      s.config = p.config();
      break;
    }
    case Family::attention_decode: {
      Params p(spec, {"batch", "heads", "kv_heads", "seq_kv", "head_dim", "dtype", "mask", "block"});
      s.batch = p.size("batch"), s.heads = p.size("heads"), s.kv_heads = p.size("kv_heads");
      if (p.has("block")) {
        if (!spec.params.count("impl") || spec.params.at("impl") != "paged")
          throw InputError(spec.where, "block= is the KV page size of impl=paged; add impl=paged or drop it");
        s.block = p.size("block");
      }
      if (p.has("impl")) s.impl = p.raw("impl");
      s.seq = 1, s.seq_kv = p.size("seq_kv"), s.head_dim = p.size("head_dim");
      s.masked = p.has("mask") && p.flag("mask");
      s.dtype = p.dtype({Dtype::fp16, Dtype::bf16, Dtype::fp8});
      s.out_dtype = s.dtype == Dtype::fp8 ? Dtype::bf16 : s.dtype;
      check_heads(spec, s);
      check_elements(spec, "KV cache", static_cast<double>(s.batch) * s.kv_heads * s.seq_kv * s.head_dim * 2);
      s.config = p.config();
      break;
    }
    case Family::rms_norm:
    case Family::layer_norm:
    case Family::softmax: {
      Params p(spec, s.family == Family::rms_norm ? KeyList{"rows", "cols", "dtype", "residual"}
                                                  : KeyList{"rows", "cols", "dtype"});
      s.rows = p.size("rows"), s.cols = p.size("cols");
      if (p.has("residual")) {
        const std::string& r = p.raw("residual");
        if (r != "0" && r != "1") throw InputError(spec.where, "residual=" + r + " must be 0 or 1");
        s.residual = r == "1";
      }
      s.dtype = s.out_dtype = p.dtype(kFloatAll);
      check_elements(spec, "input", static_cast<double>(s.rows) * s.cols);
      s.config = p.config();
      break;
    }
    case Family::elementwise: {
      Params p(spec, {"op", "rows", "cols", "dtype"});
      s.op = p.choice("op", kElementwiseOps, "");
      s.rows = p.size("rows"), s.cols = p.size("cols");
      s.dtype = s.out_dtype = p.dtype(kFloatAll);
      if (s.op == "to_fp32" || s.op == "to_bf16") {
        const Dtype want = s.op == "to_fp32" ? Dtype::bf16 : Dtype::fp32;
        if (s.dtype != want && !(s.op == "to_fp32" && s.dtype == Dtype::fp16))
          throw InputError(spec.where, "op=" + s.op + " casts from " + (s.op == "to_fp32" ? "bf16 or fp16" : "fp32") +
                                           "; dtype= names the input's type");
        s.out_dtype = s.op == "to_fp32" ? Dtype::fp32 : Dtype::bf16;
      }
      check_elements(spec, "input", static_cast<double>(s.rows) * s.cols * (s.op == "silu_mul" ? 2 : 1));
      s.config = p.config();
      break;
    }
    case Family::rotary: {
      // heads = every head rotated (q + k); with kv_heads= (the fused kernels' spelling) heads counts q heads only.
      Params p(spec, {"tokens", "heads", "kv_heads", "head_dim", "dtype"});
      s.tokens = p.size("tokens"), s.heads = p.size("heads"), s.head_dim = p.size("head_dim");
      if (p.has("kv_heads")) s.kv_heads = p.size("kv_heads"), s.heads += s.kv_heads;
      s.dtype = s.out_dtype = p.dtype(kFloatAll);
      if (s.head_dim % 2 != 0)
        throw InputError(spec.where, "head_dim=" + std::to_string(s.head_dim) + " must be even (rotary rotates pairs)");
      check_elements(spec, "q/k", static_cast<double>(s.tokens) * s.heads * s.head_dim);
      s.config = p.config();
      break;
    }
    case Family::all_reduce:
    case Family::all_gather:
    case Family::reduce_scatter:
    case Family::send_recv: {
      // send_recv: one message from one GPU to a peer of the same node (a pipeline stage's hand-over): 2 GPUs.
      const bool p2p = s.family == Family::send_recv;
      Params p(spec, p2p ? KeyList{"bytes"} : KeyList{"bytes", "gpus"});
      s.bytes = p.size("bytes"), s.gpus = p2p ? 2 : p.size("gpus");
      if (s.gpus > gpu.gpus_per_node && gpu.gpus_per_node > 0)
        throw InputError(spec.where, "gpus=" + std::to_string(s.gpus) + " exceeds the " +
                                         std::to_string(gpu.gpus_per_node) + " GPUs of one '" + gpu.name +
                                         "' node; multi-node collectives are not modelled");
      if (gpu.nvlink_bytes_per_s <= 0 && gpu.pcie_bytes_per_s <= 0 && s.gpus > 1)
        throw InputError(spec.where, "gpu '" + gpu.name + "' has neither NVLink nor PCIe bandwidth; set one");
      s.config = p.config();
      break;
    }
  }
  bool tensor_family = s.family == Family::gemm || s.family == Family::moe || s.family == Family::attention_prefill ||
                       s.family == Family::attention_decode;
  if (tensor_family) check_gpu_dtype(spec, gpu, s.dtype);
  return s;
}

}  // namespace loom
