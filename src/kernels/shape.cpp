// Family vocabulary checks: KernelSpec (strings) -> KernelShape (typed, validated against the GPU).
#include "kernels/shape.h"

#include <algorithm>
#include <string_view>

#include "core/error.h"
#include "kernels/shape_params.h"

namespace loom {

bool engines_run_custom_all_reduce(const GpuSpec& gpu, int64_t gpus) {
  if (gpus != 2 && gpus != 4 && gpus != 6 && gpus != 8 && gpus != 16) return false;
  if (gpus == 2) return true;
  const std::string t = gpu.node_topology();
  return t == "nvswitch" || (t == "nvlink-mesh" && gpus <= gpu.nvlink_group());
}

bool fits_node(const GpuSpec& gpu, int64_t gpus) { return gpus <= std::max(1, gpu.gpus_per_node); }

void check_fits_node(const GpuSpec& gpu, int64_t gpus, const std::string& where, const std::string& label,
                     const std::string& tail) {
  if (!fits_node(gpu, gpus))
    throw InputError(where, label + std::to_string(gpus) + " exceeds the " + std::to_string(gpu.gpus_per_node) +
                                " GPUs of one '" + gpu.name + "' node" + tail);
}

namespace {

using shape_detail::join;
using shape_detail::KeyList;
using shape_detail::Params;

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

void check_shape_elements(const KernelSpec& spec, const KernelShape& s) {
  const double b = static_cast<double>(s.batch);
  switch (s.family) {
    case Family::gemm:
      check_elements(spec, "A", b * s.m * s.k), check_elements(spec, "B", b * s.k * s.n);
      check_elements(spec, "C", b * s.m * s.n);
      break;
    case Family::moe:
      check_elements(spec, "routed rows x hidden", static_cast<double>(s.tokens) * s.topk * s.hidden);
      check_elements(spec, "expert weights", static_cast<double>(s.experts) * s.hidden * s.inter * 2);
      check_elements(spec, "routed rows x inter", static_cast<double>(s.tokens) * s.topk * s.inter * 2);
      break;
    case Family::attention_prefill:
      check_elements(spec, "Q", b * s.heads * s.seq * s.head_dim);
      check_elements(spec, "K", b * s.kv_heads * s.seq_kv * s.head_dim);
      check_elements(spec, "scores", b * s.heads * s.seq * s.seq_kv / 64.0);
      break;
    case Family::attention_decode:
      check_elements(spec, "KV cache", b * s.kv_heads * s.seq_kv * s.head_dim * 2);
      break;
    case Family::rms_norm:
    case Family::layer_norm:
    case Family::softmax:
      check_elements(spec, "input", static_cast<double>(s.rows) * s.cols);
      break;
    case Family::elementwise:
      check_elements(spec, "input", static_cast<double>(s.rows) * s.cols * (s.op == "silu_mul" ? 2 : 1));
      break;
    case Family::rotary:
      check_elements(spec, "q/k", static_cast<double>(s.tokens) * s.heads * s.head_dim);
      break;
    default:  // collectives: one size (bytes), checked alone
      break;
  }
}

KernelShape parse_shape_params(const KernelSpec& spec) {
  KernelShape s;
  s.where = spec.where;
  if (auto it = spec.params.find("l2"); it != spec.params.end()) s.l2_warm = it->second == "warm";
  int idx = -1;
  const std::vector<std::string>& families = family_names();
  const std::string_view family = spec.family;  // compared length first, names are unique: the first match
  for (size_t i = 0; i < families.size() && idx < 0; ++i)
    if (family == families[i]) idx = static_cast<int>(i);
  if (idx < 0)
    throw InputError(spec.where,
                     "unknown kernel family '" + spec.family + "'; valid families: " + join(family_names()));
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
        if (s.scales == "block")
          throw InputError(spec.where, "impl=cutlass with scales=block is not modelled; block-scaled fp8 runs "
                                       "impl=library (cuBLASLt) here");
      }
      s.out_dtype = (s.dtype == Dtype::fp32 || s.dtype == Dtype::tf32) ? Dtype::fp32
                    : s.dtype == Dtype::fp8                           ? Dtype::bf16
                                                                      : s.dtype;
      s.align_bytes = gemm_align_bytes(s.k, s.n, s.dtype);
      check_shape_elements(spec, s);
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
      check_shape_elements(spec, s);
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
      check_shape_elements(spec, s);
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
      check_shape_elements(spec, s);
      s.config = p.config();
      break;
    }
    case Family::rms_norm:
    case Family::layer_norm:
    case Family::softmax: {
      Params p(spec, s.family == Family::rms_norm ? KeyList{"rows", "cols", "dtype", "residual"}
                                                  : KeyList{"rows", "cols", "dtype"});
      s.rows = p.size("rows"), s.cols = p.size("cols");
      s.residual = p.has("residual") && p.flag("residual");
      s.dtype = s.out_dtype = p.dtype(kFloatAll);
      check_shape_elements(spec, s);
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
      check_shape_elements(spec, s);
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
      check_shape_elements(spec, s);
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
      // At one GPU there is nothing to communicate and no kernel is launched (e2e adds no collective at TP 1): a
      // spec of one is a mistake, not a free kernel (it was priced at 0 us without a word).
      if (s.gpus < 2)
        throw InputError(spec.where, "gpus=" + std::to_string(s.gpus) + ": a collective needs at least 2 GPUs (at 1 "
                                     "nothing is communicated and no kernel is launched); give gpus >= 2");
      if (auto it = spec.params.find("impl"); it != spec.params.end()) s.impl = it->second;  // nccl | custom
      s.config = p.config();
      break;
    }
  }
  return s;
}

KernelShape parse_shape(const KernelSpec& spec, const GpuSpec& gpu) {
  KernelShape s = parse_shape_params(spec);
  switch (s.family) {
    case Family::gemm:
      if (s.impl == "cutlass" && gpu.architecture != "hopper")
        throw InputError(spec.where, "impl=cutlass is modelled for Hopper (vLLM's sm90 fp8 dispatch); gpu '" +
                                         gpu.name + "' is " + gpu.architecture + "; use impl=library");
      if (s.impl == "library") s.path = lookup_gemm_path(gpu.architecture, s.dtype, s.align_bytes, s.batch > 1, s.m);
      break;
    case Family::all_reduce:
    case Family::all_gather:
    case Family::reduce_scatter:
    case Family::send_recv:
      if (s.impl == "custom" && !engines_run_custom_all_reduce(gpu, s.gpus))
        s.impl = "nccl", s.engine_nccl = true;  // as the engines fall back
      check_fits_node(gpu, s.gpus, spec.where, "gpus=", "; multi-node collectives are not modelled");
      if (gpu.nvlink_bytes_per_s <= 0 && gpu.pcie_bytes_per_s <= 0 && s.gpus > 1)
        throw InputError(spec.where, "gpu '" + gpu.name + "' has neither NVLink nor PCIe bandwidth; set one");
      break;
    default:
      break;
  }
  const bool tensor_family = s.family == Family::gemm || s.family == Family::moe ||
                             s.family == Family::attention_prefill || s.family == Family::attention_decode;
  if (tensor_family) check_gpu_dtype(spec, gpu, s.dtype);
  return s;
}

}  // namespace loom
