// Tile-GEMM pipeline demand (gemm, and the fused-MoE grouped GEMM built on it): tiles, k-loop, smem traffic,
// L2 requests, and DRAM traffic with L2 reuse across the concurrently running CTAs of a wave.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analytical/demand.h"
#include "analytical/occupancy.h"

namespace loom {
namespace {

double mib(double b) { return b / (1024.0 * 1024.0); }

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Warp grid over the CTA tile for warp-level MMA / SIMT: near-square warp tiles, more warps along the longer side.
void warp_grid(int warps, int bm, int bn, int& wm, int& wn) {
  int lg = 0;
  while ((1 << (lg + 1)) <= warps) ++lg;
  int hi = 1 << ((lg + 1) / 2), lo = 1 << (lg / 2);
  wm = bm >= bn ? hi : lo;
  wn = std::max(1, warps / wm);
}

struct GemmTraffic {
  double a_reads = 0, b_reads = 0, c_writes = 0;
  double a_once = 0, b_once = 0;
};

/// `problems` independent GEMMs of m x n x k under config c (split-K included).
Demand tile_gemm(const GpuSpec& gpu, const TileConfig& c, int64_t problems, int64_t m, int64_t n, int64_t k,
                 Dtype dt, Dtype odt, GemmTraffic& tr, bool notes) {
  Demand d;
  d.config = c;
  d.tensor_dtype = dt;
  const double b = dtype_bytes(dt), ob = dtype_bytes(odt);
  const int64_t tm = cdiv(m, c.bm), tn = cdiv(n, c.bn), sk = c.split_k;
  const int64_t k_split = cdiv(k, sk);
  const int64_t iters = cdiv(k_split, c.bk);
  d.ctas = problems * tm * tn * sk;
  d.loop_iters = iters;

  // One k-iteration of one CTA.
  const double mma_flop = 2.0 * c.bm * c.bn * c.bk;
  const bool wgmma = c.mma == "wgmma", simt = c.mma == "simt";  // compared once (a GEMM row scores ~22 configs)
  const bool tcgen05 = c.mma == "tcgen05";
  // Where the grid has two tiles along M, two CTAs share each B tile and each requests only half of it from L2:
  // - tcgen05 (sm_100) runs 64- and 128-row tiles as CTA pairs (cta_group::2, CUTLASS's 2SM kernels): the pair
  //   computes a (2 BM) x BN tile, each CTA holding its own BM rows of A and half of B, and one MMA reads each smem
  //   byte once for both SMs. (CUTLASS tcgen05 programming guide; PTX ISA, tcgen05.mma.)
  // - Hopper wgmma tiles run in 2-CTA clusters along M (cuBLAS nvjet_sm90_..._1x2_... kernels): the B tile is
  //   TMA-multicast to both CTAs of a cluster, each still holding all of it. tcgen05 tiles that do not pair (under 64
  //   or over 128 rows; the 256-row ones run as two 128-row instructions in one CTA here, where CUTLASS may run them
  //   as cta_group::2) keep that cluster multicast (TMA multicast is sm_90+).
  // smem_bytes still counts all of B for a pair (config_fits does not know the grid): a conservative stage count.
  const bool b_shared = (wgmma || tcgen05) && tm >= 2;
  const bool pair = b_shared && tcgen05 && (c.bm == 64 || c.bm == 128);
  const double b_cols = pair ? 0.5 * c.bn : double(c.bn);         // B columns this CTA's smem holds
  const double l2_b_cols = b_shared ? 0.5 * c.bn : double(c.bn);  // B columns this CTA requests from L2
  const double fill_bytes = (double(c.bm) + b_cols) * c.bk * b;   // A and B tiles, L2 -> smem (TMA / cp.async)
  double smem_reads = 0;
  if (tcgen05) {
    // One instruction covers up to 128 rows (per CTA) x 256 columns with its accumulator in tensor memory, so A is
    // read once per 256 columns and B once per 128 rows: no per-warpgroup re-reads as with wgmma.
    smem_reads = double(c.bm) * c.bk * b * double(cdiv(c.bn, 256)) + b_cols * c.bk * b * double(cdiv(c.bm, 128));
  } else if (wgmma) {  // each consumer warpgroup reads its A rows and the whole B tile from smem
    int warpgroups = std::max(1, c.warps / 4);
    smem_reads = double(c.bm) * c.bk * b + double(c.bn) * c.bk * b * warpgroups;
  } else {  // ldmatrix / LDS: each warp reads its warp tile's A rows and B columns (unique bytes per warp)
    int wm, wn;
    warp_grid(c.warps, c.bm, c.bn, wm, wn);
    smem_reads = double(c.bm) * c.bk * b * wn + double(c.bn) * c.bk * b * wm;
  }
  if (simt) d.per_iter.fma = mma_flop;
  else d.per_iter.tensor = mma_flop;
  d.per_iter.smem = fill_bytes + smem_reads;
  d.per_iter.l2 = (double(c.bm) + l2_b_cols) * c.bk * b;
  if (tcgen05 && notes)
    d.notes.push_back(pair ? "tcgen05 (sm_100): run as CTA pairs (2SM, " + std::to_string(2 * c.bm) + "x" +
                                 std::to_string(c.bn) + " per pair), each CTA loads and feeds half of B; accumulators "
                                 "in tensor memory"
                           : "tcgen05 (sm_100): accumulators in tensor memory; A read once per 256 columns, B once per "
                             "128 rows");
  // ALU estimate: per k-iteration each thread issues ~16 integer/address/predicate/barrier ops (cp.async
  // addressing, stage index, loop); with TMA (wgmma tiles) one thread issues the copies: ~4 per thread.
  d.per_iter.alu = double(c.threads) * (wgmma || tcgen05 ? 4 : 16);

  // Epilogue of one CTA: the accumulator tile staged through smem and stored (fp32 partials under split-K);
  // ~1 FP32 op (alpha scaling) and ~3 integer ops (address, predicate, convert) per output element.
  const double out_b = sk > 1 ? 4.0 : ob;
  const double tile_elems = double(c.bm) * c.bn;
  d.per_cta.smem = 2 * tile_elems * out_b;
  d.per_cta.l2 = tile_elems * out_b;
  d.per_cta.fma = 2 * tile_elems;
  d.per_cta.alu = 3 * tile_elems;

  d.flops = 2.0 * problems * m * n * k;
  d.tile_waste = 1.0 - double(m) * n * k / (double(tm * c.bm) * (tn * c.bn) * (iters * c.bk * sk));

  // DRAM: compulsory traffic, plus re-reads when operands reused across waves do not survive in L2.
  const double l2_eff = kL2UsableFraction * gpu.l2_bytes;
  Occupancy occ = occupancy(gpu, c.threads, c.regs_per_thread, c.smem_bytes, c.tmem_cols);
  const int64_t wave = std::min<int64_t>(d.ctas, int64_t(gpu.sms) * std::max(1, occ.ctas_per_sm));
  const double a_sub = double(m) * k_split * b, b_sub = double(k_split) * n * b;
  double a_reads = a_sub, b_reads = b_sub;
  if (wave < tm * tn && a_sub + b_sub > l2_eff) {
    // CTAs are rasterized in swizzled groups of S tile rows (CUTLASS/cuBLAS threadblock swizzle): a wave covers
    // `rows` tile rows x `cols` tile columns of one problem.
    const int64_t S = std::min<int64_t>(8, tm);
    int64_t rows, cols;
    if (wave >= S * tn) rows = std::min<int64_t>(tm, cdiv(wave, tn)), cols = tn;
    else rows = S, cols = std::min<int64_t>(tn, cdiv(wave, S));
    const double a_panel = a_sub / tm, b_panel = b_sub / tn;
    const double wave_bytes = rows * a_panel + cols * b_panel;
    // An A panel is reused by the waves sweeping its row group: hit if one wave's footprint fits.
    if (cols < tn && wave_bytes > l2_eff) a_reads = a_sub * double(cdiv(tn, cols));
    // A B panel is reused by the next row group: hit only if all of B plus a group's A panels stay resident.
    if (b_sub + rows * a_panel > l2_eff) b_reads = b_sub * double(cdiv(tm, rows));
  }
  const double subs = double(problems) * sk;
  tr.a_once = subs * a_sub, tr.b_once = subs * b_sub;
  tr.a_reads = subs * a_reads, tr.b_reads = subs * b_reads;
  tr.c_writes = double(problems) * m * n * ob;
  d.min_dram_bytes = tr.a_once + tr.b_once + tr.c_writes;
  d.dram_bytes = tr.a_reads + tr.b_reads + tr.c_writes;
  d.working_set_bytes = d.min_dram_bytes;
  if (b_reads > b_sub)
    if (notes)
      d.notes.push_back("B (" + fmt_mib(tr.b_once) + ") re-read from DRAM " + std::to_string(int(b_reads / b_sub)) +
                        "x: B plus a wave's A panels exceed the usable L2 (" + fmt_mib(l2_eff) + ")");
  if (a_reads > a_sub)
    if (notes)
      d.notes.push_back("A (" + fmt_mib(tr.a_once) + ") re-read from DRAM " + std::to_string(int(a_reads / a_sub)) +
                        "x: one wave's operand footprint exceeds the usable L2 (" + fmt_mib(l2_eff) + ")");

  // Split-K: fp32 partials (written by the CTAs above) are summed by a second kernel (cublasLt splitKreduce_kernel).
  if (sk > 1) {
    const double ws = double(sk) * problems * m * n * 4;
    d.extra_l2_bytes = ws + tr.c_writes;
    if (ws > l2_eff) d.dram_bytes += 2 * ws;
    d.fixed_overhead_us += kKernelStartupUs;
    if (notes) d.notes.push_back("split-K " + std::to_string(sk) + ": fp32 partials (" + fmt_mib(ws) +
                      ") summed by a second reduce kernel, included");
  }

  // Fixed overhead: kernel start plus filling the `stages`-deep operand pipeline before the first MMA, each stage a
  // tile load at the per-SM L2 bandwidth (the load latency the steady-state pipes do not see).
  const double fill_clk = std::min<int64_t>(c.stages, iters) * fill_bytes / std::max(1.0, gpu.l2_bytes_per_clk_per_sm);
  d.fixed_overhead_us += kKernelStartupUs + fill_clk / gpu.clock_hz() * 1e6;
  return d;
}

}  // namespace

std::string fmt_mib(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", mib(b));
  return buf;
}

Demand gemm_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes) {
  GemmTraffic tr;
  Demand d = tile_gemm(gpu, c, s.batch, s.m, s.n, s.k, s.dtype, s.out_dtype, tr, notes);
  if (c.mma == "simt" && notes) d.notes.push_back("fp32 GEMM runs on the FMA pipe (SIMT tiles), not on tensor cores");
  // The learned model tells code paths apart by `variant`: 0 = the library's fast path with 16-byte operands (every
  // GEMM of loom's own sweeps); otherwise 10 x path (1 wgmma, 2 mma_sync, 3 wmma, 4 Turing-shaped, 5 SIMT, 6 GEMV)
  // + log2 of the operand alignment in bytes.
  const std::string fast = s.dtype == Dtype::fp32 ? "simt" : "wgmma";
  if (s.path && (s.align_bytes < 16 || s.path->path != fast)) {
    static const std::vector<std::string> codes = {"", "wgmma", "mma_sync", "wmma", "sm75", "simt", "gemv"};
    int code = 0;
    for (size_t i = 1; i < codes.size(); ++i)
      if (codes[i] == s.path->path) code = static_cast<int>(i);
    int lg = 0;
    while ((1 << (lg + 1)) <= s.align_bytes) ++lg;
    d.variant = 10 * code + lg;
  }
  if (s.dtype == Dtype::fp8) {
    // Dequantisation. tensor: one scalar per operand, one FP32 multiply per output element in the epilogue.
    // rowwise (per-token x per-channel): the CTA reads BM + BN fp32 scales and multiplies each accumulator by
    // both. block (1x128 activation, 128x128 weight blocks, DeepSeek-style): the accumulator is promoted and
    // scaled once per 128 of K (one FMA per accumulator element), with BM + BN/128 scales read per 128 of K.
    const double tile_elems = double(c.bm) * c.bn;
    if (s.scales == "rowwise") {
      d.per_cta.fma += 2 * tile_elems;
      d.per_cta.l2 += (c.bm + c.bn) * 4.0;
      d.min_dram_bytes += double(s.batch) * (s.m + s.n) * 4.0, d.dram_bytes += double(s.batch) * (s.m + s.n) * 4.0;
    } else if (s.scales == "block") {
      const double per_iter = double(c.bk) / 128.0;
      d.per_iter.fma += tile_elems * per_iter;
      d.per_iter.l2 += (c.bm + std::max(1.0, c.bn / 128.0)) * 4.0 * per_iter;
      const double sb = (double(s.m) * ((s.k + 127) / 128) + double((s.n + 127) / 128) * ((s.k + 127) / 128)) * 4.0;
      d.min_dram_bytes += s.batch * sb, d.dram_bytes += s.batch * sb;
    } else {
      d.per_cta.fma += tile_elems;
    }
  }
  return d;
}

Demand moe_demand(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes) {
  // Uniform routing: each token picks topk distinct experts; an expert is idle with probability (1 - topk/E)^T.
  const double E = double(s.experts);
  const double rows_total = double(s.tokens) * s.topk;
  double active = E * (1.0 - std::pow(1.0 - double(s.topk) / E, double(s.tokens)));
  active = std::clamp(std::round(active), 1.0, std::min(E, rows_total));
  const int64_t experts = static_cast<int64_t>(active);
  const int64_t rows = cdiv(static_cast<int64_t>(rows_total), experts);  // rows routed to each active expert
  const int64_t k = s.moe_w2 ? s.inter : s.hidden;
  const int64_t n = s.moe_w2 ? s.hidden : 2 * s.inter;
  GemmTraffic tr;
  Demand d = tile_gemm(gpu, c, experts, rows, n, k, s.dtype, s.out_dtype, tr, notes);
  const double b = dtype_bytes(s.dtype);
  // Per CTA: BM sorted token ids (int32) and the block's expert id.
  d.per_cta.l2 += c.bm * 4.0 + 4.0;
  d.flops = 2.0 * rows_total * n * k;
  const int64_t tm = cdiv(rows, c.bm), tn = cdiv(n, c.bn), iters = d.loop_iters;
  d.tile_waste = 1.0 - rows_total * n * k / (double(experts) * tm * c.bm * tn * c.bn * iters * c.bk);
  double a_once = tr.a_once, a_reads = tr.a_reads;
  if (!s.moe_w2) {
    // w13 gathers hidden-state rows by token id: each token row is read by its topk experts; after the first
    // expert the row hits L2 if the hidden states fit.
    a_once = double(s.tokens) * s.hidden * b;
    if (a_once <= 0.5 * kL2UsableFraction * gpu.l2_bytes) a_reads = std::max(a_once, tr.a_reads / s.topk);
    else if (notes)
      d.notes.push_back("hidden states exceed half the usable L2: each token row re-read by its topk experts");
  }
  d.min_dram_bytes = a_once + tr.b_once + tr.c_writes + rows_total * 4;
  d.dram_bytes = a_reads + tr.b_reads + tr.c_writes + rows_total * 4 + (d.dram_bytes - tr.a_reads - tr.b_reads -
                                                                         tr.c_writes);
  d.working_set_bytes = d.min_dram_bytes;
  if (notes) {  // a scored candidate (notes = false) formats nothing
    char buf[160];
    std::snprintf(buf, sizeof buf, "uniform routing: %lld of %lld experts active, %lld rows each (BLOCK_M %d)",
                  (long long)experts, (long long)s.experts, (long long)rows, c.bm);
    d.notes.push_back(buf);
  }
  return d;
}

}  // namespace loom
