// Kernel name classification: ordered rules, most specific first. Every rule is a substring/token test on the
// demangled name (no std::regex: its recursive matcher can overflow the stack on multi-kilobyte template names).
// Name shapes come from traces taken on H200/H100 (see /work/shared/GPU-NOTES.md) and from the libraries' sources
// (PyTorch aten/src/ATen/native/cuda, flash-attention csrc, NCCL src/device).
#include "trace/kernel_names.h"
#include "trace/name_tokens.h"

#include <cxxabi.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <vector>

namespace loom {
namespace {

using sv = std::string_view;
using namespace name_tokens;

// In an underscore-separated library kernel name: first "AxB" token = CTA tile M x N, next "AxB" token =
// BK x stages (CUTLASS 2.x / cuBLAS naming: "..._128x256_32x3_nn_align8", "..._128x64_ldg8_f2f_stages_64x3_tn").
void tile_from_tokens(sv ident, KernelName& k) {
  int seen = 0;
  for (sv tok : split(ident, '_')) {
    int d[2];
    if (!parse_dims(tok, 2, d)) continue;
    if (seen == 0) k.tile_m = d[0], k.tile_n = d[1];
    if (seen == 1) k.tile_k = d[0], k.stages = d[1];
    if (++seen == 2) break;
  }
}

// nvjet (cuBLAS on sm90+): nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT = tile 256x128, BK 64, 4 stages,
// cluster 1x2, cooperative (GPU-NOTES.md).
void parse_nvjet(sv ident, KernelName& k) {
  int seen = 0;
  for (sv tok : split(ident, '_')) {
    int d[2];
    if (parse_dims(tok, 2, d)) {
      if (seen == 0) k.tile_m = d[0], k.tile_n = d[1];
      if (seen == 1) k.tile_k = d[0], k.stages = d[1];
      if (seen == 2) k.cluster_m = d[0], k.cluster_n = d[1];
      ++seen;
    } else if (tok.substr(0, 4) == "coop") {
      k.cooperative = true;
    } else if (tok == "splitK") {
      k.op = "splitk";
    }
  }
}

// xmma (cuBLAS): ..._tilesize128x128x8_stage3_warpsize2x2x1_... ; sm90: warpgroupsize2x1x1 (4 warps each).
void parse_xmma(sv ident, KernelName& k) {
  for (sv tok : split(ident, '_')) {
    int d[3];
    if (tok.substr(0, 8) == "tilesize" && parse_dims(tok.substr(8), 3, d))
      k.tile_m = d[0], k.tile_n = d[1], k.tile_k = d[2];
    else if (tok.substr(0, 5) == "stage" && read_int(tok.substr(5), d[0]) == tok.size() - 5)
      k.stages = d[0];
    else if (tok.substr(0, 8) == "warpsize" && parse_dims(tok.substr(8), 3, d))
      k.warps = d[0] * d[1] * d[2];
    else if (tok.substr(0, 13) == "warpgroupsize" && parse_dims(tok.substr(13), 3, d))
      k.warps = 4 * d[0] * d[1] * d[2];
  }
}

KernelName make(sv family, sv op, sv library) {
  KernelName k;
  k.family = std::string(family);
  k.op = std::string(op);
  k.library = std::string(library);
  return k;
}

// PyTorch elementwise op from the functor/lambda named inside the kernel's template arguments.
std::string elementwise_op(sv s) {
  static const std::array<std::pair<sv, sv>, 24> kOps = {{
      {"silu_and_mul", "silu_and_mul"}, {"act_and_mul_kernel", "act_and_mul"}, {"silu_kernel", "silu"},
      {"GeluCUDAKernelImpl", "gelu"},  {"gelu", "gelu"},               {"CUDAFunctor_add", "add"},
      {"AddFunctor", "add"},           {"add_kernel", "add"},          {"MulFunctor", "mul"},
      {"mul_kernel", "mul"},           {"DivFunctor", "div"},          {"div_true_kernel", "div"},
      {"sigmoid", "sigmoid"},          {"tanh", "tanh"},               {"rsqrt_kernel", "rsqrt"},
      {"exp_kernel", "exp"},           {"neg_kernel", "neg"},          {"pow_tensor_scalar", "pow"},
      {"where_kernel", "where"},       {"FillFunctor", "fill"},        {"direct_copy_kernel", "copy"},
      {"copy_kernel", "copy"},         {"CatArrayBatchedCopy", "cat"}, {"index_elementwise_kernel", "index"},
  }};
  for (const auto& [key, op] : kOps)
    if (has(s, key)) return std::string(op);
  return "";
}

// NCCL collective from ncclDevKernel_AllReduce_Sum_bf16_RING_LL / ncclKernel_AllGather_RING_LL_Sum_int8_t.
std::string nccl_family(sv s) {
  static const std::array<std::pair<sv, sv>, 7> kColl = {{{"_AllReduce", "all_reduce"},
                                                          {"_AllGather", "all_gather"},
                                                          {"_ReduceScatter", "reduce_scatter"},
                                                          {"_AllToAll", "all_to_all"},
                                                          {"_Broadcast", "broadcast"},
                                                          {"_SendRecv", "send_recv"},
                                                          {"_Reduce", "reduce_collective"}}};
  for (const auto& [key, fam] : kColl)
    if (has(s, key)) return std::string(fam);
  return "collective";
}

// Top-level template arguments of the first `key<...>` in s (trimmed); empty when absent or unbalanced.
std::vector<sv> template_args(sv s, sv key) {
  std::vector<sv> out;
  size_t p = s.find(key);
  while (p != sv::npos && (p + key.size() >= s.size() || s[p + key.size()] != '<')) p = s.find(key, p + 1);
  if (p == sv::npos) return out;
  size_t i = p + key.size() + 1, start = i;
  int depth = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) {
      --depth;
      continue;
    }
    if ((c == ',' && depth == 0) || (c == '>' && depth == 0)) {
      sv a = s.substr(start, i - start);
      while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      out.push_back(a);
      start = i + 1;
      if (c == '>') return out;
    }
  }
  return {};  // unbalanced
}

int arg_int(const std::vector<sv>& a, size_t i) {
  int v = -1;
  if (i < a.size() && read_int(a[i], v) != a[i].size()) v = -1;
  return i < a.size() ? v : -1;
}

// loom's own bench kernels (/work/main/bench): loom_gemm_kernel<BM, BN, BK, STAGES, WM, WN, MOE>
// (bench/gemm_tiled.cuh), loom_flash_prefill<BM, BN, D>, loom_decode_split/_reduce (attention.cu),
// bench::norm_kernel<T, MODE 0 rms / 1 layer>, softmax_kernel, elementwise_kernel<T, OP 0 add 1 mul 2 silu 3 gelu 4
// silu_mul>, rotary_kernel (memory_kernels.cu), loom_l2_flush (timing.cu), fill kernels (common.cu).
bool classify_loom(sv s, KernelName& k) {
  if (has(s, "loom_l2_flush")) return k = make("l2_flush", "", "loom"), true;
  if (has(s, "loom_gemm_kernel")) {
    auto a = template_args(s, "loom_gemm_kernel");
    k = make(a.size() >= 7 && a[6] == "true" ? "moe" : "gemm", "", "loom");
    if (a.size() >= 6 && arg_int(a, 0) > 0 && arg_int(a, 4) > 0 && arg_int(a, 5) > 0)
      k.tile_m = arg_int(a, 0), k.tile_n = arg_int(a, 1), k.tile_k = arg_int(a, 2), k.stages = arg_int(a, 3),
      k.warps = arg_int(a, 4) * arg_int(a, 5);
    return true;
  }
  if (has(s, "loom_flash_prefill")) {
    k = make("attention", "prefill", "loom");
    auto a = template_args(s, "loom_flash_prefill");
    if (a.size() >= 2 && arg_int(a, 0) > 0 && arg_int(a, 1) > 0)
      k.tile_m = arg_int(a, 0), k.tile_n = arg_int(a, 1), k.warps = arg_int(a, 0) / 16;  // 2 warps' threads per 32 rows
    return true;
  }
  if (has(s, "loom_decode_split")) return k = make("attention", "decode", "loom"), true;
  if (has(s, "loom_decode_reduce")) return k = make("attention", "decode_reduce", "loom"), true;
  if (!has(s, "bench::")) return false;
  if (has(s, "attention_naive")) return k = make("attention", "naive", "loom"), true;
  if (has(s, "norm_kernel<")) {
    int mode = arg_int(template_args(s, "norm_kernel"), 1);
    return k = make(mode == 0 ? "rms_norm" : mode == 1 ? "layer_norm" : "unknown", "", "loom"), true;
  }
  if (has(s, "softmax_kernel<")) return k = make("softmax", "fwd", "loom"), true;
  if (has(s, "elementwise_kernel<")) {
    static const sv kOps[] = {"add", "mul", "silu", "gelu", "silu_mul"};
    int op = arg_int(template_args(s, "elementwise_kernel"), 1);
    return k = make("elementwise", op >= 0 && op < 5 ? kOps[op] : "", "loom"), true;
  }
  if (has(s, "rotary_kernel")) return k = make("rotary", "", "loom"), true;
  if (has(s, "fill_kernel") || has(s, "fill_int_kernel")) return k = make("init", "fill", "loom"), true;
  return false;
}

KernelName classify_demangled(sv s) {
  KernelName k;
  if (classify_loom(s, k)) return k;

  // Collectives.
  if (has(s, "ncclDevKernel") || has(s, "ncclKernel")) return make(nccl_family(s), "", "nccl");

  // Attention (before GEMM: cuDNN/CUTLASS attention names also mention gemm-like tiles).
  if (has(s, "sdpa") && (has(s, "cudnn") || has(s, "flash") || has(s, "fprop") || has(s, "bprop"))) {
    k = make("attention", has(s, "bprop") ? "bwd" : "fwd", "cudnn");
    // ..._sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0: first AxBxC = tile.
    for (sv tok : split(ident_with(s, "sdpa"), '_')) {
      int d[3];
      if (parse_dims(tok, 3, d)) {
        k.tile_m = d[0], k.tile_n = d[1], k.tile_k = d[2];
        break;
      }
    }
    return k;
  }
  if (has(s, "flash_fwd_splitkv_combine")) return make("attention", "splitkv_combine", "flash_attn");
  // cuDNN's split-KV SDPA decode combines partial results with this reduction (seen in the H200/H100 corpus).
  if (has(s, "cudnn::fusion::lean_reduction_kernel")) return make("attention", "splitkv_combine", "cudnn");
  if (has(s, "flash_fwd_splitkv_kernel") || has(s, "flash_fwd_kernel") || has(s, "flash_bwd")) {
    k = make("attention", has(s, "splitkv") ? "splitkv" : has(s, "flash_bwd") ? "bwd" : "fwd", "flash_attn");
    // Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, ...> (flash-attention csrc/flash_attn/src).
    int t[4];
    if (template_ints(s, "Flash_fwd_kernel_traits", 4, t))
      k.tile_m = t[1], k.tile_n = t[2], k.warps = t[3];  // config "BMxBN_wW", as loom's attention configs
    return k;
  }
  if (has(s, "FlashAttnFwd") || has(s, "flash::FlashAttn")) return make("attention", "fwd", "flash_attn");
  if (has(s, "fmha_cutlassF") || has(s, "fmha_cutlassB") || has(s, "AttentionKernel<")) {
    k = make("attention", has(s, "fmha_cutlassB") || has(s, "AttentionBackwardKernel") ? "bwd" : "fwd", "cutlass");
    if (sv id = ident_with(s, "fmha_cutlass"); !id.empty()) tile_from_tokens(id, k);
    k.tile_k = k.stages = 0;  // fmha names carry only the MxN tile
    return k;
  }
  if (has(s, "paged_attention")) return make("attention", "paged", "vllm");
  if (has(s, "fmha")) return make("attention", "", "");

  // Mixture of experts (before softmax: vLLM's topk_softmax belongs to the MoE router).
  if (has(s, "fused_moe_kernel")) return make("moe", "", "triton");
  if (has(s, "moe_align_block_size") || has(s, "topk_softmax") || has(s, "moe_sum")) return make("moe", "aux", "");

  // GEMM.
  if (sv id = ident_with(s, "nvjet_"); !id.empty()) {
    k = make("gemm", "", "cublas");
    parse_nvjet(id, k);
    return k;
  }
  if (has(s, "splitKreduce_kernel")) return make("gemm", "splitk_reduce", "cublas");
  if (sv id = ident_with(s, "xmma_gemm"); !id.empty()) {
    k = make("gemm", has(id, "split_k") ? "splitk" : "", "cublas");
    parse_xmma(id, k);
    return k;
  }
  if (has(s, "gemv")) return make("gemm", "gemv", "cublas");
  if (has(s, "triton_tem_fused_mm") || has(s, "triton_tem_fused_addmm") || has(s, "triton_tem_fused_bmm"))
    return make("gemm", "", "triton");
  for (sv prefix :
       {sv("cutlass_"), sv("ampere_"), sv("volta_"), sv("turing_"), sv("sm80_"), sv("sm90_"), sv("sm100_")}) {
    size_t p = s.find(prefix);
    while (p != sv::npos && p > 0 && is_ident(s[p - 1])) p = s.find(prefix, p + 1);
    if (p == sv::npos) continue;
    sv id = ident_at(s, p);
    if (!has(id, "gemm")) continue;
    k = make("gemm", "", prefix == "cutlass_" ? "cutlass" : "cublas");
    // Tiles are after the "gemm" token: "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_32x3_nn_align8".
    tile_from_tokens(id.substr(id.find("gemm")), k);
    return k;
  }
  if (has(s, "cutlass::gemm::kernel") || has(s, "gemmSN_") || has(s, "gemmk1_kernel") || has(s, "gemm_kernel") ||
      has(s, "cublasLt::"))
    return make("gemm", "", has(s, "cutlass") ? "cutlass" : "cublas");

  // Normalisations and softmax.
  if (has(s, "rms_norm") || has(s, "rmsnorm") || has(s, "RMSNorm") || has(s, "RmsNorm"))
    return make("rms_norm", "", has(s, "at::native") ? "pytorch" : "");
  // PyTorch >= 2.8 runs aten::_fused_rms_norm on layer_norm_kernel<T, T_ACC, rms_norm = true> (seen on H200 with
  // PyTorch 2.11: tests/data/trace/torch_profile_h200.json.gz).
  if (has(s, "layer_norm_kernel<")) {
    auto a = template_args(
        s, has(s, "vectorized_layer_norm_kernel<") ? "vectorized_layer_norm_kernel" : "layer_norm_kernel");
    if (a.size() >= 3 && a[2] == "true") return make("rms_norm", "fwd", "pytorch");
  }
  if (has(s, "layer_norm") || has(s, "LayerNorm") || has(s, "RowwiseMomentsCUDAKernel"))
    return make("layer_norm", has(s, "Backward") || has(s, "backward") ? "bwd" : "fwd", "pytorch");
  if (has(s, "SoftMax") || has(s, "softmax"))
    return make("softmax", has(s, "Backward") || has(s, "backward") ? "bwd" : "fwd", "pytorch");

  // Triton (PyTorch inductor) fused kernels: pointwise / reduction / persistent reduction.
  if (has(s, "triton_poi_")) return make("fused", "pointwise", "triton");
  if (has(s, "triton_red_")) return make("fused", "reduction", "triton");
  if (has(s, "triton_per_")) return make("fused", "persistent_reduction", "triton");

  // PyTorch reductions and elementwise kernels.
  if (has(s, "reduce_kernel")) {
    k = make("reduce", "", "pytorch");
    static const std::array<std::pair<sv, sv>, 8> kReduceOps = {{{"SumOps", "sum"}, {"sum_functor", "sum"},
                                                                  {"MeanOps", "mean"}, {"ArgMaxOps", "argmax"},
                                                                  {"ArgMinOps", "argmin"}, {"MaxOps", "max"},
                                                                  {"MinOps", "min"}, {"NormOps", "norm"}}};
    for (const auto& [key, op] : kReduceOps)
      if (has(s, key)) {
        k.op = std::string(op);
        break;
      }
    return k;
  }
  if (has(s, "elementwise_kernel") || has(s, "CatArrayBatchedCopy") || has(s, "act_and_mul_kernel")) {
    k = make("elementwise", elementwise_op(s), has(s, "vllm::") ? "vllm" : "pytorch");
    return k;
  }
  return k;
}

}  // namespace

std::string demangle(const std::string& mangled) {
  if (mangled.size() < 2 || mangled[0] != '_' || mangled[1] != 'Z') return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string format_tile_config(const KernelName& k) {
  if (k.tile_m <= 0 || k.tile_n <= 0) return "";
  // Appends (not operator+ chains: GCC 12 -Wrestrict false positive on "x" + std::to_string()).
  std::string c = std::to_string(k.tile_m);
  auto part = [&c](const char* sep, int v) { c.append(sep).append(std::to_string(v)); };
  part("x", k.tile_n);
  if (k.tile_k > 0) part("x", k.tile_k);
  if (k.stages > 0) part("_s", k.stages);
  if (k.warps > 0) part("_w", k.warps);
  if (k.cluster_m > 0 && k.cluster_n > 0) part("_c", k.cluster_m), part("x", k.cluster_n);
  if (k.cooperative) c.append("_coop");
  return c;
}

KernelName classify_kernel(std::string_view name) {
  std::string demangled;
  if (name.size() >= 2 && name[0] == '_' && name[1] == 'Z') {
    demangled = demangle(std::string(name));
    name = demangled;
  }
  KernelName k = classify_demangled(name);
  k.config = format_tile_config(k);
  return k;
}

}  // namespace loom
