// FlashAttention-style prefill and split-KV decode: CTA grid, KV-block loop (causal skipping), QK^T and PV tensor
// FLOP, softmax on SFU/FMA, K and V both read, and K/V re-reads served by L2 vs DRAM.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analytical/demand.h"
#include "analytical/occupancy.h"
#include "hw/tensor_path.h"

namespace loom {
namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// One KV block (BN keys) for BM query rows: QK^T and PV on tensor cores, exp2 per score on the SFU, and per score
/// ~3 FP32 ops (scale-subtract FFMA, running max, running sum) plus one rescale per O element (FA2 Algorithm 1).
PipeWork kv_block_work(const TileConfig& c, double d, double b, bool decode) {
  PipeWork w;
  const double scores = double(c.bm) * c.bn;
  w.tensor = 4.0 * scores * d;
  w.sfu = scores;
  w.fma = 2.0 * (3.0 * scores + c.bm * d);
  // ALU estimate: ~1 op per score (P fp32->16-bit packing, mask/select) + ~8 loop/address ops per thread.
  w.alu = scores + 8.0 * c.threads;
  const double kv_tile = 2.0 * c.bn * d * b;  // K and V tiles
  double reads;
  if (decode) reads = kv_tile;  // warps split the keys (FlashInfer / flash-decoding): each element read once
  else if (c.mma == "wgmma")    // FA3: Q read from smem by QK^T wgmma, K and V read by each consumer warpgroup
    reads = c.bm * d * b + kv_tile * std::max(1, c.warps / 4);
  else if (c.mma == "tcgen05")  // FA4 (sm_100): S = QK^T and O += PV per 128-row slice, P from tensor memory, so
    reads = c.bm * d * b + kv_tile * tcgen05_slices(c.bm);  // Q once, K and V once per slice
  else  // FA2: Q in registers, every warp reads the whole K and V tiles (ldmatrix)
    reads = kv_tile * c.warps;
  w.smem = kv_tile + reads;
  w.l2 = kv_tile;
  return w;
}

/// Prologue/epilogue of a CTA: Q tile in, O tile (plus LSE) out through smem, final 1/l scaling.
PipeWork cta_work(const TileConfig& c, double d, double b, double out_b) {
  PipeWork w;
  w.l2 = c.bm * d * b + c.bm * d * out_b + c.bm * 4.0;
  w.smem = c.bm * d * b + 2.0 * c.bm * d * out_b;
  w.fma = 2.0 * c.bm * d;
  w.sfu = c.bm;
  w.alu = 2.0 * c.bm * d;
  return w;
}

}  // namespace

Demand attention_prefill_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes) {
  Demand d;
  d.config = c;
  d.tensor_dtype = s.dtype;
  const double hd = double(s.head_dim), b = dtype_bytes(s.dtype), ob = dtype_bytes(s.out_dtype);
  const int64_t m_blocks = cdiv(s.seq, c.bm), n_blocks = cdiv(s.seq_kv, c.bn);
  d.ctas = s.batch * s.heads * m_blocks;
  d.per_iter = kv_block_work(c, hd, b, false);
  d.per_cta = cta_work(c, hd, b, ob);
  double pairs;  // useful (query, key) pairs per head
  if (s.causal) {
    // Bottom-right aligned mask (FA2 >= 2.1): query i sees keys < seq_kv - seq + i + 1. Heaviest blocks first
    // (FA3's scheduler orders causal work longest-first; FA2 reverses m_block for the same reason).
    const int64_t offset = s.seq_kv - s.seq;
    int64_t total = 0;
    d.iters_pattern.resize(m_blocks);
    for (int64_t i = 0; i < m_blocks; ++i) {
      int64_t last_row = std::min((i + 1) * c.bm, s.seq);
      int64_t it = std::min(n_blocks, cdiv(offset + last_row, c.bn));
      d.iters_pattern[m_blocks - 1 - i] = it;
      total += it;
    }
    d.loop_iters = std::max<int64_t>(1, static_cast<int64_t>(std::llround(double(total) / m_blocks)));
    pairs = double(s.seq) * offset + double(s.seq) * (s.seq + 1) / 2.0;
  } else {
    d.loop_iters = n_blocks;
    pairs = double(s.seq) * s.seq_kv;
  }
  d.flops = 4.0 * s.batch * s.heads * hd * pairs;
  double computed_iters = 0;
  if (d.iters_pattern.empty()) computed_iters = double(m_blocks) * n_blocks;
  else
    for (int64_t it : d.iters_pattern) computed_iters += double(it);
  d.tile_waste = 1.0 - pairs / (computed_iters * c.bm * c.bn);

  // DRAM: Q, K, V and O once, plus K/V re-reads when the query heads sharing a KV head are too far apart in launch
  // order for their K/V to survive in L2. FA3 orders the grid (m_block, head, batch), FA2 (m_block, batch, head).
  const double q_bytes = double(s.batch) * s.heads * s.seq * hd * b;
  const double o_bytes = double(s.batch) * s.heads * s.seq * (hd * ob + 4.0);
  const double kv_head = 2.0 * s.seq_kv * hd * b;
  const double kv_bytes = double(s.batch) * s.kv_heads * kv_head;
  const int64_t group = s.heads / s.kv_heads;
  d.min_dram_bytes = q_bytes + kv_bytes + o_bytes;
  const double l2_eff = kL2UsableFraction * gpu.l2_bytes;
  Occupancy occ = occupancy(gpu, c.threads, c.regs_per_thread, c.smem_bytes, c.tmem_cols);
  const double wave = double(gpu.sms) * std::max(1, occ.ctas_per_sm);
  const bool fa3 = c.mma == "wgmma" || c.mma == "tcgen05";  // FA3 and FA4 order the grid alike
  const double reuse_ctas = fa3 ? double(group) * m_blocks : double(group - 1) * s.batch * m_blocks + m_blocks;
  double kv_reads = kv_bytes;
  if (kv_bytes > l2_eff && reuse_ctas > wave) {
    // K/V touched between two uses of one KV head: the distinct heads launched in that window.
    double heads_in_window = fa3 ? 1.0 + wave / (double(group) * m_blocks) : reuse_ctas / m_blocks;
    if (heads_in_window * kv_head > l2_eff) kv_reads = kv_bytes * group;
    if (kv_head > 0.5 * l2_eff && m_blocks > wave) kv_reads *= std::ceil(m_blocks / wave);
  }
  d.dram_bytes = q_bytes + kv_reads + o_bytes;
  d.working_set_bytes = d.min_dram_bytes;
  if (kv_reads > kv_bytes)
    if (notes)
      d.notes.push_back("K/V (" + fmt_mib(kv_bytes) +
                        ") re-read from DRAM: the query heads of a KV group are too far "
                        "apart in launch order for K/V to stay in L2 (" +
                        fmt_mib(l2_eff) + " usable)");
  if (s.causal && notes) d.notes.push_back("causal: CTAs skip KV blocks above the diagonal; loop_iters is the mean");
  d.fixed_overhead_us = kKernelStartupUs + (c.bm * hd * b + 2.0 * c.bn * hd * b) /
                                               std::max(1.0, gpu.l2_bytes_per_clk_per_sm) / gpu.clock_hz() * 1e6;
  return d;
}

Demand attention_decode_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& cfg, bool notes) {
  Demand d;
  TileConfig c = cfg;
  d.tensor_dtype = s.dtype;
  const double hd = double(s.head_dim), b = dtype_bytes(s.dtype), ob = dtype_bytes(s.out_dtype);
  const int64_t group = s.heads / s.kv_heads;
  if (s.impl == "paged") {  // one program per (sequence, KV head) walks the pages in order: no split-KV
    c.bn = s.block > 0 ? s.block : 16;
    c.splits = 1;
    if (notes)
      d.config_suffix_reason = "; paged: one CTA per (sequence, KV head) over " + std::to_string(c.bn) + "-token pages";
  }
  const int64_t row_blocks = cdiv(group, c.bm);  // CTAs per (batch, kv head) to cover the GQA group
  const int64_t n_blocks = cdiv(s.seq_kv, c.bn);
  if (c.splits == 0) {
    // FlashAttention-2 num_splits_heuristic (csrc/flash_attn/flash_api.cpp): no split if the grid fills 80% of
    // the slots; else the fewest splits reaching 85% of the best wave efficiency n_waves / ceil(n_waves). Its inputs
    // are FA2's own, not the tile's: 2 CTAs per SM as slots, KV blocks of FA2's split-KV kernel (256 columns for
    // head_dim <= 64, 128 up to 128, else 64), and a decode GQA group folded into the query rows (64 per M block).
    // Checked against the grids FA2 launches on an H100 (scripts/torch/fa2_splits_check.py, 48 TP-layout cases:
    // traces/checks/fa2_splits_h100.json).
    const int64_t fa2_bn = s.head_dim <= 64 ? 256 : s.head_dim <= 128 ? 128 : 64;
    const int64_t fa2_blocks = cdiv(s.seq_kv, fa2_bn);
    const int64_t bnm = s.batch * s.kv_heads * cdiv(group, 64);
    const int64_t slots = 2 * int64_t(gpu.sms);
    int best = 1;
    if (bnm < 0.8 * slots) {
      const int max_splits = static_cast<int>(std::min<int64_t>({128, slots, fa2_blocks}));
      // The best efficiency is taken over eligible split counts only (a split count that leaves the per-split block
      // count unchanged is never launched), as FA2 does.
      auto eligible = [&](int sp) { return sp == 1 || cdiv(fa2_blocks, sp) != cdiv(fa2_blocks, sp - 1); };
      double eff[129] = {};  // by split count, 1 .. max_splits (at most 128)
      double max_eff = 0;
      for (int sp = 1; sp <= max_splits; ++sp) {
        if (!eligible(sp)) continue;
        double waves = double(bnm) * sp / slots;
        eff[sp] = waves / std::ceil(waves);
        max_eff = std::max(max_eff, eff[sp]);
      }
      for (int sp = 1; sp <= max_splits; ++sp) {
        if (eligible(sp) && eff[sp] >= 0.85 * max_eff) {
          best = sp;
          break;
        }
      }
    }
    best = static_cast<int>(std::min<int64_t>(best, n_blocks));  // never more splits than the tile's KV blocks
    c.splits = best;
    if (notes) d.config_suffix_reason = "; " + std::to_string(best) + " KV splits by the FA2 num_splits_heuristic";
  }
  c.name = config_name(config_table(Family::attention_decode), c);
  d.config = c;
  const int64_t iters = cdiv(n_blocks, c.splits);
  d.ctas = s.batch * s.kv_heads * row_blocks * c.splits;
  d.loop_iters = iters;
  d.per_iter = kv_block_work(c, hd, b, true);
  const double part_b = c.splits > 1 ? 4.0 : ob;  // fp32 partial O per split
  d.per_cta = cta_work(c, hd, b, part_b);
  d.flops = 4.0 * s.batch * s.heads * hd * s.seq_kv;
  d.tile_waste = 1.0 - double(s.heads) * s.seq_kv / (double(s.kv_heads) * row_blocks * c.bm * iters * c.splits * c.bn);
  const double kv_bytes = double(s.batch) * s.kv_heads * s.seq_kv * hd * b * 2.0;
  const double q_bytes = double(s.batch) * s.heads * hd * b, o_bytes = double(s.batch) * s.heads * hd * ob;
  d.min_dram_bytes = kv_bytes + q_bytes + o_bytes;
  if (s.masked) {
    // SDPA with attn_mask (HF StaticCache decode): the boolean [batch, 1, 1, seq_kv] mask is turned into an
    // additive one by a separate elementwise kernel and read by every head's CTA; cuDNN/mem-efficient kernels run.
    d.min_dram_bytes += double(s.batch) * s.seq_kv * (1.0 + b);
    d.per_iter.alu += double(c.bn) * c.bm;  // mask add per score
    d.fixed_overhead_us += kKernelStartupUs;  // the mask conversion launch
    d.variant = 1;
    if (notes) d.notes.push_back("explicit attention mask: converted by a separate kernel, added to every score");
  }
  d.dram_bytes = d.min_dram_bytes;
  d.working_set_bytes = d.min_dram_bytes;
  d.fixed_overhead_us += kKernelStartupUs;
  if (c.splits > 1) {
    // Combine kernel (flash_fwd_splitkv_combine_kernel): reads every split's fp32 partial O and LSE, writes O.
    const double partials = double(s.batch) * s.heads * c.splits * (hd + 1) * 4.0;
    d.extra_l2_bytes = partials + o_bytes;
    if (partials > kL2UsableFraction * gpu.l2_bytes) d.dram_bytes += 2 * partials;
    d.fixed_overhead_us += kKernelStartupUs;
    if (notes)
      d.notes.push_back("split-KV " + std::to_string(c.splits) +
                        ": partial results combined by a second kernel, "
                        "included");
  }
  if (notes)
    d.notes.push_back("K and V (" + fmt_mib(kv_bytes) + ") streamed once; GQA group of " + std::to_string(group) +
                      " query heads shares each KV head");
  return d;
}

}  // namespace loom
