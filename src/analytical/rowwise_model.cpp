// Memory-bound kernels: row reductions (rms_norm, layer_norm, softmax), elementwise ops and rotary embedding.
// fp32 math on the FMA pipe (each FP32 instruction = 2 FLOP-slots, see PipeWork), transcendentals on the SFU,
// 16-byte vector loads, compulsory DRAM traffic (streaming: nothing is re-read from DRAM).
#include <algorithm>
#include <cmath>

#include "analytical/demand.h"

namespace loom {
namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Elements one thread moves per 16-byte vector access.
int64_t vec_elems(Dtype d) { return std::max<int64_t>(1, static_cast<int64_t>(16 / dtype_bytes(d))); }

/// Warp-shuffle tree per reduction per warp (log2 32 = 5 steps) plus the cross-warp pass through smem.
constexpr double kShufflesPerReduction = 5;

}  // namespace

Demand rowwise_demand(const GpuSpec&, const KernelShape& s, const TileConfig& c, bool /*notes*/) {
  Demand d;
  d.config = c;
  const double b = dtype_bytes(s.dtype);
  d.ctas = cdiv(s.rows, c.rows_per_cta);
  // Threads per row: the CTA's warps split over its rows (a warp per row when rows_per_cta >= warps).
  const int64_t threads_per_row = 32 * std::max<int64_t>(1, c.warps / c.rows_per_cta);
  d.loop_iters = cdiv(s.cols, threads_per_row * vec_elems(s.dtype));
  // Per element: FP32 instructions and SFU ops by family (counted from vLLM rms_norm_kernel, PyTorch
  // layer_norm / softmax kernels): rms: x*x accumulate, *rstd, *weight (3); layer_norm: Welford update (~3),
  // (x-mean)*rstd, *w+b (2); softmax: max, x-max, sum, *1/sum (4) + exp.
  double fp32_ops = 3, sfu_per_elem = 0, sfu_per_row = 1, reductions = 1, extra_in_cols = 1;
  int passes = 2;  // reads of the row: stats pass + normalize pass (second from L1)
  if (s.family == Family::layer_norm) fp32_ops = 5, reductions = 2, extra_in_cols = 2;
  if (s.family == Family::softmax) {
    fp32_ops = 4, sfu_per_elem = 1, reductions = 2, extra_in_cols = 0;
    passes = c.rows_per_cta > 1 ? 1 : 3;  // warp softmax keeps the row in registers; block softmax re-reads it
  }
  const double elems = double(s.rows) * s.cols;
  const double rows_per_cta = double(c.rows_per_cta);
  const double cta_elems = rows_per_cta * s.cols;
  // ALU estimate: 2 conversions (in, out) per element + ~4 address/loop ops per thread per iteration
  // + shuffles for each reduction.
  d.per_cta.fma = 2.0 * fp32_ops * cta_elems;
  d.per_cta.sfu = sfu_per_elem * cta_elems + sfu_per_row * rows_per_cta;
  d.per_cta.alu = 2.0 * cta_elems + 4.0 * c.threads * d.loop_iters +
                  reductions * kShufflesPerReduction * 32 * c.warps;
  d.per_cta.smem = reductions * 2.0 * c.warps * 4.0 * rows_per_cta;
  // L2: row read once (re-reads hit L1), weights (and bias) once per CTA, row written.
  d.per_cta.l2 = cta_elems * b * 2 + extra_in_cols * s.cols * b;
  d.loop_iters *= passes;
  d.flops = fp32_ops * elems;  // useful FP32 operations
  // fused_add_rms_norm (residual=1) also reads the residual and writes it back: twice the row traffic.
  const double row_passes = s.residual ? 4 : 2;
  if (s.residual) d.per_cta.l2 += cta_elems * b * 2;
  d.min_dram_bytes = elems * b * row_passes + extra_in_cols * s.cols * b;
  d.dram_bytes = d.min_dram_bytes;
  d.working_set_bytes = d.min_dram_bytes;
  d.tile_waste = 1.0 - elems / (double(d.ctas) * cta_elems);
  d.fixed_overhead_us = kKernelStartupUs;
  return d;
}

Demand elementwise_demand(const GpuSpec&, const KernelShape& s, const TileConfig& c, bool /*notes*/) {
  Demand d;
  d.config = c;
  const double b = dtype_bytes(s.dtype), ob = dtype_bytes(s.out_dtype);
  if (is_row_reduction(s.op)) {
    // PyTorch reduce_kernel over the last dim: a CTA of 512 threads reduces 16 rows (32 lanes each) when rows
    // are many, or splits one row over its warps when they are few; one value (fp32 mean, int64 argmax) per row.
    const double in = double(s.rows) * s.cols, out_b = s.op == "argmax" ? 8.0 : ob;
    const int64_t rows_per_cta =
        std::max<int64_t>(1, std::min<int64_t>(16, 512 / std::max<int64_t>(1, cdiv(s.cols, 4096))));
    d.ctas = cdiv(s.rows, rows_per_cta);
    const double cta_in = in / double(d.ctas);
    d.loop_iters = std::max<int64_t>(1, cdiv(s.cols * rows_per_cta, 32LL * c.warps * c.elems_per_thread));
    d.per_cta.fma = 2.0 * cta_in;
    d.per_cta.alu = 3.0 * cta_in + 64.0 * c.warps;  // compare/convert per element + the tree reduction
    d.per_cta.smem = 2.0 * 4.0 * 32.0 * c.warps;     // cross-warp partials
    d.per_cta.l2 = cta_in * b + rows_per_cta * out_b;
    d.flops = in;
    d.min_dram_bytes = in * b + double(s.rows) * out_b;
    d.dram_bytes = d.min_dram_bytes;
    d.working_set_bytes = d.min_dram_bytes;
    d.tile_waste = 1.0 - double(s.rows) / (double(d.ctas) * rows_per_cta);
    d.fixed_overhead_us = kKernelStartupUs;
    d.variant = 2;
    return d;
  }
  const double out = double(s.rows) * s.cols;
  const int64_t per_cta = 32LL * c.warps * c.elems_per_thread;
  // silu_mul (vLLM act_and_mul_kernel) works row by row; PyTorch's elementwise kernels see a flat tensor.
  d.ctas = s.op == "silu_mul" ? s.rows * cdiv(s.cols, per_cta) : cdiv(s.rows * s.cols, per_cta);
  d.loop_iters = c.elems_per_thread;
  // Per output element: FP32 instructions and SFU ops. add/mul: 1. silu x/(1+exp(-x)): neg, add, mul (3) + ex2,
  // rcp (2 SFU). gelu (PyTorch default, erf form): ~10 FP32 ops for the erf polynomial + 1 SFU (ex2 in erff).
  // silu_mul: silu + the multiply. Copies and casts: none. `inputs`: full-size tensors read per output element
  // (a broadcast operand is a row or column: ~0; repeat_kv's source is a quarter of its output, Llama-3 GQA).
  double fp32_ops = 1, sfu = 0, inputs = 2, index_ops = 2;
  if (s.op == "silu") fp32_ops = 3, sfu = 2, inputs = 1;
  if (s.op == "gelu") fp32_ops = 10, sfu = 1, inputs = 1;
  if (s.op == "silu_mul") fp32_ops = 4, sfu = 2, inputs = 2;
  if (s.op == "copy" || s.op == "to_fp32" || s.op == "to_bf16") fp32_ops = 0, inputs = 1;
  // A cast that widens runs PyTorch's unrolled_elementwise_kernel (scalar loads: the input and output vector widths
  // differ); narrowing casts and same-type copies are vectorized.
  if (s.op == "to_fp32") index_ops = 4, d.variant = 3;
  // Non-contiguous or broadcast operands go through TensorIterator's offset calculator (elementwise_kernel, no
  // vector loads): ~3 integer divmods per dimension per element.
  if (s.op == "copy_strided") fp32_ops = 0, inputs = 1, index_ops = 12, d.variant = 1;
  if (s.op == "mul_bcast") inputs = 1, index_ops = 12, d.variant = 1;
  if (s.op == "expand_copy") fp32_ops = 0, inputs = 0.25, index_ops = 16, d.variant = 1;
  // torch.cat (CatArrayBatchedCopy): each input element copied once to its place in the output, through per-input
  // strides (HF's rotate_half cat reads a strided half of q/k; DynamicCache's cat a transposed new token).
  if (s.op == "cat") fp32_ops = 0, inputs = 1, index_ops = 10, d.variant = 1;
  const double cta_out = double(per_cta);
  d.per_cta.fma = 2.0 * fp32_ops * cta_out;
  d.per_cta.sfu = sfu * cta_out;
  // ALU estimate: a conversion per element read and written + index ops per element.
  d.per_cta.alu = (std::ceil(inputs) + 1 + index_ops) * cta_out;
  d.per_cta.l2 = (std::ceil(inputs) * b + ob) * cta_out;
  d.flops = fp32_ops * out;
  d.min_dram_bytes = (inputs * b + ob) * out;
  d.dram_bytes = d.min_dram_bytes;
  d.working_set_bytes = d.min_dram_bytes;
  d.tile_waste = 1.0 - out / (double(d.ctas) * cta_out);
  d.fixed_overhead_us = kKernelStartupUs;
  return d;
}

Demand rotary_demand(const GpuSpec&, const KernelShape& s, const TileConfig& c, bool notes) {
  // vLLM rotary_embedding_kernel (neox and gptj styles move the same bytes): one CTA per token rotates every head
  // of q and k in place; `heads` is the total rotated (q heads + kv heads). cos/sin cache row per token position.
  Demand d;
  d.config = c;
  const double b = dtype_bytes(s.dtype);
  const double pairs_per_token = double(s.heads) * s.head_dim / 2.0;
  d.ctas = cdiv(s.tokens, c.rows_per_cta);
  d.loop_iters = std::max<int64_t>(1, cdiv(static_cast<int64_t>(pairs_per_token), c.threads));
  const double rows = double(c.rows_per_cta);
  // Per pair: x1*cos - x2*sin, x2*cos + x1*sin (2 mul + 2 fma = 4 FP32 ops); ~4 index ops (head, offset, pos).
  d.per_cta.fma = 2.0 * 4 * pairs_per_token * rows;
  d.per_cta.alu = 4.0 * pairs_per_token * rows + 3.0 * 2 * pairs_per_token * rows;  // + 3 conversions per pair elem
  d.per_cta.l2 = rows * (4.0 * pairs_per_token * b + s.head_dim * b + 8);  // q/k read+write, cos|sin row, position
  d.flops = 6.0 * pairs_per_token * s.tokens;
  d.min_dram_bytes = double(s.tokens) * (4.0 * pairs_per_token * b + s.head_dim * b + 8);
  d.dram_bytes = d.min_dram_bytes;
  d.working_set_bytes = d.min_dram_bytes;
  d.tile_waste = 1.0 - double(s.tokens) / (double(d.ctas) * rows);
  d.fixed_overhead_us = kKernelStartupUs;
  if (notes)
    d.notes.push_back("heads counts every rotated head (q heads + kv heads), as vLLM rotates q and k together");
  return d;
}

}  // namespace loom
