// KernelShape: a KernelSpec checked against its family's vocabulary (keys, integer sizes, dtypes) and the GPU.
// One flat struct for all families; each family reads only its own fields (see kernels/README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "hw/gpu_spec.h"
#include "kernels/gemm_paths.h"
#include "kernels/kernel_spec.h"

namespace loom {

enum class Family { gemm, moe, attention_prefill, attention_decode, rms_norm, layer_norm, softmax, elementwise, rotary,
                    all_reduce, all_gather, reduce_scatter, send_recv };

/// The families a collective fit (models/collectives.json) predicts: they move bytes over NVLink / PCIe.
inline bool is_collective(Family f) {
  return f == Family::all_reduce || f == Family::all_gather || f == Family::reduce_scatter || f == Family::send_recv;
}
/// The same by family name, as traces and profiles spell it ("all_reduce", ...).
inline bool is_collective(const std::string& family) {
  return family == "all_reduce" || family == "all_gather" || family == "reduce_scatter" || family == "send_recv";
}

/// Family names in documentation order (index = static_cast<int>(Family)).
const std::vector<std::string>& family_names();
std::string family_name(Family f);

struct KernelShape {
  Family family = Family::gemm;
  std::string where;                  ///< KernelSpec::where, for error messages
  bool l2_warm = false;               ///< l2=warm: inputs were just touched (default cold: from DRAM)
  Dtype dtype = Dtype::bf16;          ///< input dtype
  Dtype out_dtype = Dtype::bf16;      ///< output dtype (gemm fp32/tf32 -> fp32, fp8 -> bf16)
  std::optional<std::string> config;  ///< pinned tile config (config=), validated later against the config space
  // gemm (C[m,n] = A[m,k] B[k,n], `batch` independent problems)
  int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string impl = "library";  ///< gemm: library (cuBLASLt), torch, loom, cutlass (vLLM's w8a8 scaled GEMM)
  bool engine_nccl = false;       ///< all_reduce impl=custom where the engines disable it: NCCL runs (impl=nccl)
  std::string scales = "tensor";  ///< gemm dtype=fp8: dequantisation scales, tensor | rowwise | block
  int align_bytes = 16;           ///< gemm: largest power-of-two byte alignment shared by K and N (<= 16)
  std::optional<GemmPathChoice> path;  ///< gemm impl=library: the code path cuBLAS was traced taking (learned)
  // moe (fused-MoE grouped GEMM)
  int64_t tokens = 0, experts = 0, topk = 0, hidden = 0, inter = 0;
  bool moe_w2 = false;  ///< stage=w2 (down projection) instead of w13 (gate+up)
  // attention (prefill and decode); rotary uses tokens, heads, head_dim
  int64_t heads = 0, kv_heads = 0, seq = 0, seq_kv = 0, head_dim = 0;
  bool causal = false;
  // row kernels (rms_norm, layer_norm, softmax) and elementwise
  int64_t rows = 0, cols = 0;
  bool residual = false;  ///< rms_norm residual=1: the fused residual add (reads x and residual, writes both)
  int64_t block = 0;      ///< attention_decode impl=paged: KV-cache page size in tokens
  std::string op;  ///< elementwise op (kElementwiseOps); rows x cols = output (maps) or input (row reductions)
  bool masked = false;  ///< attention_decode mask=1: an explicit attention mask (SDPA attn_mask, HF StaticCache)
  // collectives (all_reduce, all_gather, reduce_scatter: bytes = the whole buffer; send_recv: the message, gpus 2)
  int64_t bytes = 0, gpus = 1;
};

/// Elementwise ops. Maps (rows x cols = output): add, mul, silu_mul (two inputs), silu, gelu, copy (one input,
/// contiguous, vectorized), to_fp32 / to_bf16 (casts; dtype = the input's), copy_strided (a non-contiguous source
/// through PyTorch's offset-calculator kernel), mul_bcast (x times a broadcast row or column), expand_copy (GQA
/// repeat_kv made contiguous: reads a quarter of what it writes), cat (torch.cat's CatArrayBatchedCopy). Row reductions
/// (rows x cols = input, one value per row out): mean, argmax.
inline const std::vector<std::string> kElementwiseOps = {"add",    "mul",     "silu",         "gelu",
                                                         "silu_mul", "copy",  "to_fp32",      "to_bf16",
                                                         "copy_strided", "mul_bcast", "expand_copy", "cat",
                                                         "mean",     "argmax"};
/// True for the elementwise ops that reduce each row to one value.
inline bool is_row_reduction(const std::string& op) { return op == "mean" || op == "argmax"; }

/// Largest element count (of any one tensor) loom accepts; beyond it a spec is a typo, not a kernel.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;
/// Head dimensions the attention families support (FlashAttention-2/3 and FlashInfer instantiate these).
inline constexpr int kHeadDims[] = {64, 80, 96, 128, 192, 256};

/// Checks a spec of measured rows without a GPU, for readers that have no GpuSpec at hand (case lists, corpora,
/// public imports): a family loom models goes through parse_shape_params (its keys, sizes, tensors and dtypes); any
/// other family (a case list's e2e_decode rows) has only its size keys (m, n, batch, seq, ...) checked.
void check_spec_sizes(const KernelSpec& spec);

/// The element count of each of the shape's tensors (A, B, C; Q, K, scores; rows x cols ...) within kMaxElements.
/// Throws InputError at spec.where.
void check_shape_elements(const KernelSpec& spec, const KernelShape& s);

/// The first half of parse_shape, which needs no GPU: the family, its keys (unknown or missing), sizes (plain
/// integers in [1, kMaxElements], tensors within it), dtypes and choices. Throws InputError.
KernelShape parse_shape_params(const KernelSpec& spec);

/// parse_shape_params, then what depends on `gpu`: a tensor path for the dtype, impl=cutlass on Hopper, cuBLAS's
/// GEMM path, a collective's GPUs within one node. Returns the typed shape. Throws InputError.
KernelShape parse_shape(const KernelSpec& spec, const GpuSpec& gpu);

/// Whether vLLM's and SGLang's custom all-reduce runs over `gpus` GPUs of `gpu`'s node
/// (vllm/distributed/device_communicators/custom_all_reduce.py; SGLang's copy of it): world sizes 2, 4, 6, 8 and 16,
/// and above 2 GPUs only where NVML reports every pair NVLink-connected (an NVSwitch node, or an NVLink mesh within
/// its domain). More than two PCIe GPUs, or pairs joined by 2-way bridges, fall back to NCCL ("Custom allreduce is
/// disabled because it's not supported on more than two PCIe-only GPUs"). Two PCIe GPUs keep it where peer access
/// works, which the YAML does not record: taken as working. parse_shape turns `impl=custom` into nccl elsewhere.
bool engines_run_custom_all_reduce(const GpuSpec& gpu, int64_t gpus);

/// Whether `gpus` GPUs fit in one node of `gpu` (interconnect.gpus_per_node, at least 1): tensor parallelism and
/// collectives stay in one node (multi-node work is not modelled). What-if's automatic TP degrees use it too.
bool fits_node(const GpuSpec& gpu, int64_t gpus);
/// Throws InputError(where, "<label><gpus> exceeds the N GPUs of one '<gpu>' node<tail>") unless fits_node: the one
/// node check of memory_fit (--tp) and parse_shape (a collective's gpus=).
void check_fits_node(const GpuSpec& gpu, int64_t gpus, const std::string& where, const std::string& label,
                     const std::string& tail);

}  // namespace loom
