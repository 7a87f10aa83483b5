// analyze(): validates a kernel spec, picks (or checks) its config, runs the family's demand model, then places
// CTAs on SMs (occupancy, waves, busiest SM) and turns demand into per-pipeline times, ceiling and latency.
#include "analytical/analysis.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "analytical/demand.h"
#include "analytical/occupancy.h"
#include "core/error.h"

namespace loom {
namespace {

/// Pure-analytical baseline: the fraction of each pipe's peak a tuned kernel typically sustains (loom assumptions,
/// replaced by the learned efficiency model): cuBLAS reaches ~75-85% of dense tensor peak on large H100/A100
/// GEMMs; STREAM-like copies ~85-90% of HBM peak; nccl-tests bus bandwidth ~80% of NVLink peak.
constexpr double kTensorEfficiency = 0.80;
constexpr double kFmaEfficiency = 0.75;
constexpr double kSfuEfficiency = 0.75;
constexpr double kAluEfficiency = 0.75;
constexpr double kSmemEfficiency = 0.85;
constexpr double kL2Efficiency = 0.80;
constexpr double kDramEfficiency = 0.85;
constexpr double kLinkEfficiency = 0.80;


Demand build(const GpuSpec& gpu, const KernelShape& s, const TileConfig& c, bool notes) {
  switch (s.family) {
    case Family::gemm: return gemm_demand(gpu, s, c, notes);
    case Family::moe: return moe_demand(gpu, s, c, notes);
    case Family::attention_prefill: return attention_prefill_demand(gpu, s, c, notes);
    case Family::attention_decode: return attention_decode_demand(gpu, s, c, notes);
    case Family::rms_norm:
    case Family::layer_norm:
    case Family::softmax: return rowwise_demand(gpu, s, c, notes);
    case Family::elementwise: return elementwise_demand(gpu, s, c, notes);
    case Family::rotary: return rotary_demand(gpu, s, c, notes);
    case Family::all_reduce:
    case Family::all_gather:
    case Family::reduce_scatter:
    case Family::send_recv: return all_reduce_demand(gpu, s, c, notes);
  }
  return {};
}

}  // namespace

namespace {

/// "%.0f%%" of f * 100: std::to_chars with a precision prints exactly what printf does (C locale), without
/// printf's format parsing.
std::string pct(double f) {
  char buf[400];  // %.0f of any finite double fits (at most 309 digits and a sign)
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf - 1, f * 100, std::chars_format::fixed, 0);
  if (ec != std::errc()) {  // not reached for finite values; printf's own spelling otherwise
    std::snprintf(buf, sizeof buf, "%.0f%%", f * 100);
    return buf;
  }
  *end++ = '%';
  return std::string(buf, end);
}

/// What finish() builds for the kept config: its names, pipe list and bottleneck; with text, the human notes too
/// (analyze's with_text). A candidate being scored gets no Analysis at all (score()).
enum class Detail { named, text };

/// One pipe's load as plain values (the named PipeLoad list is built for the kept config only).
struct Pipe {
  std::string_view pipe, unit;  // string literals (so pipe.data() is a C string too)
  double total, busiest_sm, time_us;
};

/// The numbers of finish(): placement, pipe loads, ceiling and latency, computed once whether a candidate is being
/// scored (score(): no Analysis, no strings) or kept (finish()). `occ` is the config's occupancy when d.ctas > 0.
struct Loads {
  LaunchInfo launch;           // without occupancy_limit (named only)
  const char* occ_limit = "";  // the Occupancy's limit, or "grid" when the grid leaves SMs idle
  Pipe pipes[8];
  size_t np = 0;
  double l2_total = 0, ceiling_us = 0, latency_us = 0;
  const char* bottleneck = "none";
};

void compute_loads(const GpuSpec& gpu, const KernelShape& s, const Demand& d, const Occupancy* occ_in, Loads& out) {
  LaunchInfo& L = out.launch;
  L.ctas = d.ctas;
  L.loop_iters = d.loop_iters;
  L.threads_per_cta = d.config.threads;
  L.regs_per_thread = d.config.regs_per_thread;
  L.smem_per_cta_bytes = d.config.smem_bytes;
  L.tile_waste = std::max(0.0, d.tile_waste);
  const double clk = gpu.clock_hz();
  const int sms = std::max(1, gpu.sms);
  PipeWork busiest, total;
  if (d.ctas > 0) {
    const Occupancy occ =
        occ_in ? *occ_in
               : occupancy(gpu, d.config.threads, d.config.regs_per_thread, d.config.smem_bytes, d.config.tmem_cols);
    L.ctas_per_sm = occ.ctas_per_sm;
    L.occupancy = occ.occupancy;
    out.occ_limit = d.ctas < sms ? "grid" : occ.limit.data();  // string literals (occupancy.cpp)
    const int64_t slots = int64_t(sms) * std::max(1, occ.ctas_per_sm);
    L.waves = (d.ctas + slots - 1) / slots;
    L.last_wave_fill = double(d.ctas - (L.waves - 1) * slots) / slots;
    double n_busy, iters_busy, total_iters;
    if (d.iters_pattern.empty()) {
      n_busy = std::ceil(double(d.ctas) / sms);
      iters_busy = n_busy * d.loop_iters;
      total_iters = double(d.ctas) * d.loop_iters;
    } else {
      std::tie(n_busy, iters_busy) = busiest_sm_nonuniform(d, sms, std::max(1, occ.ctas_per_sm), total_iters);
    }
    busiest = d.per_cta * n_busy + d.per_iter * iters_busy;
    total = d.per_cta * double(d.ctas) + d.per_iter * total_iters;
  }
  const double l2_total = out.l2_total = total.l2 + d.extra_l2_bytes;
  const double busy_sms = double(std::min<int64_t>(std::max<int64_t>(d.ctas, 1), sms));
  const double sm_l2_bw = gpu.l2_bytes_per_clk_per_sm * clk;  // one SM's L2 bandwidth, bytes/s
  auto per_sm = [&](std::string_view pipe, std::string_view unit, double tot, double busy, double rate_per_clk) {
    Pipe p{pipe, unit, tot, busy, 0};
    if (rate_per_clk > 0) p.time_us = busy / (rate_per_clk * clk) * 1e6;
    return p;
  };
  auto chip = [&](std::string_view pipe, double tot, double chip_bw, double sm_bound_bytes, double sm_bound_bw) {
    Pipe p{pipe, "bytes", tot, tot, 0};
    double t = chip_bw > 0 ? tot / chip_bw : 0;
    if (sm_bound_bw > 0) t = std::max(t, sm_bound_bytes / sm_bound_bw);
    p.time_us = t * 1e6;
    return p;
  };
  const bool uses_tensor = total.tensor > 0;
  Pipe* pipes = out.pipes;
  size_t np = 0;
  pipes[np++] = per_sm("tensor", "FLOP", total.tensor, busiest.tensor,
                       uses_tensor ? gpu.tensor_flops_per_clk(d.tensor_dtype) : 1);
  pipes[np++] = per_sm("fma", "FLOP", total.fma, busiest.fma, gpu.fp32_flops_per_clk_per_sm);
  pipes[np++] = per_sm("sfu", "ops", total.sfu, busiest.sfu, gpu.sfu_ops_per_clk_per_sm);
  pipes[np++] = per_sm("alu", "ops", total.alu, busiest.alu, gpu.int_ops_per_clk_per_sm);
  pipes[np++] = per_sm("smem", "bytes", total.smem, busiest.smem, gpu.smem_bytes_per_clk_per_sm);
  // A collective's l2, dram and link pipes are the speed of light of the fastest algorithm the node can run (NVLS
  // where the switch reduces: sol_dram_bytes of local traffic, link_min_*); the latency prices the modelled ring
  // (dram_bytes, link_time_us): model_us, the pipes' times as modelled where they differ.
  double model_us[8] = {};
  const double sol = d.sol_dram_bytes > 0 && d.dram_bytes > 0 ? d.sol_dram_bytes / d.dram_bytes : 1.0;
  // L2: chip-wide bandwidth, but no faster than the busiest SM can pull through its own L2 port.
  pipes[np++] = chip("l2", l2_total * sol, gpu.l2_bytes_per_s, busiest.l2 * sol, sm_l2_bw);
  if (sol != 1.0) model_us[np - 1] = chip("l2", l2_total, gpu.l2_bytes_per_s, busiest.l2, sm_l2_bw).time_us;
  // DRAM: chip-wide bandwidth, but only the SMs that are busy pull (small grids, SM partitions).
  const double dram_bw = gpu.effective_dram_bytes_per_s(), dram_sm_bw = sm_l2_bw * busy_sms;
  pipes[np++] = chip("dram", d.dram_bytes * sol, dram_bw, d.dram_bytes * sol, dram_sm_bw);
  if (sol != 1.0) model_us[np - 1] = chip("dram", d.dram_bytes, dram_bw, d.dram_bytes, dram_sm_bw).time_us;
  if (is_collective(s.family)) {
    pipes[np++] = {"link", "bytes", d.link_min_bytes, d.link_min_bytes, d.link_min_time_us};
    model_us[np - 1] = d.link_time_us;
  }
  out.np = np;

  // Nominal efficiency per pipe, in pipes order (tensor, fma, sfu, alu, smem, l2, dram, link).
  static constexpr double kEff[] = {kTensorEfficiency, kFmaEfficiency, kSfuEfficiency,  kAluEfficiency,
                                    kSmemEfficiency,   kL2Efficiency,  kDramEfficiency, kLinkEfficiency};
  double slowest = 0, ceiling = 0;
  for (size_t i = 0; i < np; ++i) {
    const Pipe& p = pipes[i];
    if (p.time_us > ceiling) ceiling = p.time_us, out.bottleneck = p.pipe.data();
    slowest = std::max(slowest, std::max(p.time_us, model_us[i]) / kEff[i]);
  }
  out.ceiling_us = ceiling;
  out.latency_us = (d.ctas > 0 || ceiling > 0) ? slowest + d.fixed_overhead_us : 0;
}

/// A candidate's (latency, tile waste): finish()'s values, without building an Analysis.
std::pair<double, double> score(const GpuSpec& gpu, const KernelShape& s, const Demand& d, const Occupancy* occ) {
  Loads l;
  compute_loads(gpu, s, d, occ, l);
  return {l.latency_us, l.launch.tile_waste};
}

Analysis finish(const GpuSpec& gpu, const KernelShape& s, const Demand& d, Detail detail) {
  Analysis a;
  const bool notes = detail == Detail::text;
  Loads l;
  compute_loads(gpu, s, d, nullptr, l);
  a.gpu = gpu.name;
  a.family = family_name(s.family);
  a.config = d.config.name;
  a.launch = l.launch;
  LaunchInfo& L = a.launch;
  if (d.ctas > 0) L.occupancy_limit = l.occ_limit;
  const int sms = std::max(1, gpu.sms);
  const size_t np = l.np;
  a.ceiling_us = l.ceiling_us;
  a.bottleneck = l.bottleneck;
  a.pipes.resize(np);  // built in place: the names copied once, at their known lengths
  for (size_t i = 0; i < np; ++i) {
    const Pipe& p = l.pipes[i];
    PipeLoad& q = a.pipes[i];
    q.pipe.assign(p.pipe);
    q.unit.assign(p.unit);
    q.total = p.total, q.busiest_sm = p.busiest_sm, q.time_us = p.time_us;
  }
  a.flops = d.flops;
  a.dram_bytes = d.dram_bytes;
  a.min_dram_bytes = d.min_dram_bytes;
  a.l2_bytes = l.l2_total;
  a.fixed_overhead_us = d.fixed_overhead_us;
  a.variant = d.variant;
  a.l2_warm = s.l2_warm;
  a.latency_us = l.latency_us;
  if (!notes) return a;  // a kept config without text
  a.notes = d.notes;
  if (d.ctas >= sms && L.waves >= 1 && L.last_wave_fill < 0.75)
    a.notes.push_back("tail: " + std::to_string(L.waves) + " waves, the last only " + pct(L.last_wave_fill) + " full");
  if (d.ctas > 0 && d.ctas < sms)
    a.notes.push_back("grid of " + std::to_string(d.ctas) + " CTAs leaves " + std::to_string(sms - d.ctas) + " of " +
                      std::to_string(sms) + " SMs idle");
  if (L.tile_waste > 0.2) a.notes.push_back("tile waste " + pct(L.tile_waste) + ": padded tiles compute the rest");
  return a;
}

bool resident(const GpuSpec& gpu, const TileConfig& c) {
  return c.threads == 0 || occupancy(gpu, c.threads, c.regs_per_thread, c.smem_bytes, c.tmem_cols).ctas_per_sm > 0;
}

std::string default_rule(const KernelShape& s) {
  switch (s.family) {
    case Family::rms_norm: return "vLLM rms_norm: one CTA per row, min(cols, 1024) threads";
    case Family::layer_norm: return "PyTorch layer_norm: one CTA of 256 threads per row";
    case Family::softmax:
      return s.cols <= 1024 ? "PyTorch softmax: warp per row (dim <= 1024), 4 warps per CTA"
                            : "PyTorch softmax: one CTA per row, threads ~ dim / 16-byte vector";
    case Family::rotary: return "vLLM rotary_embedding: one CTA per token, min(heads*head_dim/2, 512) threads";
    case Family::elementwise:
      return s.op == "silu_mul" ? "vLLM silu_and_mul: one CTA per row, min(cols, 1024) threads"
                                : "PyTorch vectorized elementwise: 128 threads x 4 elements per CTA";
    case Family::all_reduce:
      if (s.impl == "custom")
        return "the engines' custom all-reduce (one-shot / two-shot over peer links; the learned fit of impl=custom "
               "rows), analytically a ring";
      [[fallthrough]];
    case Family::all_gather:
    case Family::reduce_scatter: return "NCCL ring (the only algorithm modelled)";
    case Family::send_recv: return "NCCL send/recv: one message over one link";
    default: return "";
  }
}

}  // namespace

const std::vector<std::string>& kernel_families() { return family_names(); }

namespace {

/// "K=7658 is not a multiple of 8: ..." when misaligned operands push cuBLAS off its fast path.
void gemm_alignment_note(const KernelShape& s, std::vector<std::string>& notes) {
  const int per16 = static_cast<int>(16 / dtype_bytes(s.dtype));
  if (s.align_bytes >= 16 || per16 <= 1) return;
  std::string what;
  for (auto [name, v] : {std::pair<const char*, int64_t>{"K", s.k}, {"N", s.n}})
    if (v % per16 != 0)
      what += std::string(what.empty() ? "" : ", ") + name + "=" + std::to_string(v) + " (pad to " +
              std::to_string((v + per16 - 1) / per16 * per16) + ")";
  notes.push_back(what + " not a multiple of " + std::to_string(per16) + " " + std::string(dtype_name(s.dtype)) +
                  " elements: cuBLAS cannot use 16-byte operand loads and falls back from its " +
                  (s.dtype == Dtype::fp32 ? "vectorised" : "Hopper wgmma") + " kernels to the " + s.path->path +
                  " path traced for such shapes; padding restores the fast path");
}

}  // namespace

Analysis analyze(const GpuSpec& gpu, const KernelSpec& spec, bool with_text) {
  if (gpu.sms <= 0 || gpu.sustained_clock_mhz <= 0)
    throw InputError(spec.where, "gpu '" + gpu.name + "' has no SM count or clock; check its YAML");
  KernelShape s = parse_shape(spec, gpu);
  const Detail detail = with_text ? Detail::text : Detail::named;
  Analysis best;
  if (s.config) {
    TileConfig c = pinned_config(s, gpu);
    if (!resident(gpu, c))
      throw InputError(s.where, "config '" + c.name + "' cannot be resident on one SM of gpu '" + gpu.name +
                                    "' (registers x threads exceed the register file); pick a smaller config");
    Demand d = build(gpu, s, c, with_text);
    best = finish(gpu, s, d, detail);
    best.config_pinned = true;
    if (with_text) best.config_reason = "pinned by config=" + d.config_suffix_reason;
  } else {
    // The candidates (not copied: nothing below asks for another list), then split-K variants, scored in that order.
    const std::vector<TileConfig>& cands = candidate_configs_view(s, gpu);
    std::vector<TileConfig> split;
    const ConfigTable* table = s.family == Family::gemm && s.impl != "cutlass" ? &config_table(s.family) : nullptr;
    const auto splits_dtype = [&](const std::vector<Dtype>& dts) {  // dtypes cuBLAS splits at all (kernels/gemm.yaml)
      return dts.empty() || std::find(dts.begin(), dts.end(), s.dtype) != dts.end();
    };
    if (table && splits_dtype(table->split_k_dtypes)) {  // split-K variants when the tiles leave SMs idle
      for (const TileConfig& c : cands) {
        int64_t tiles = s.batch * ((s.m + c.bm - 1) / c.bm) * ((s.n + c.bn - 1) / c.bn);
        if (tiles >= gpu.sms) continue;
        for (int sk : table->split_k) {
          if (sk <= 1 || (s.k + c.bk - 1) / c.bk < 4 * sk) continue;
          TileConfig v = c;
          v.split_k = sk;
          if (!config_fits(v, *table, s, gpu, nullptr)) continue;
          v.name = config_name(*table, v);  // named only when kept (config_fits does not read the name)
          split.push_back(std::move(v));
        }
      }
    }
    // Score every candidate without notes, keep the best, then rebuild it with its notes.
    int n = 0;
    const TileConfig* chosen = nullptr;
    double t_cur = 0, w_cur = 0, area_cur = 0;
    const std::vector<TileConfig>* lists[] = {&cands, &split};
    for (const std::vector<TileConfig>* list : lists) {
      for (const auto& c : *list) {
        // resident()'s occupancy, reused by the score when the demand keeps the config's launch shape.
        const Occupancy occ = occupancy(gpu, c.threads, c.regs_per_thread, c.smem_bytes, c.tmem_cols);
        if (c.threads != 0 && occ.ctas_per_sm <= 0) continue;
        const Demand d = build(gpu, s, c, false);
        const bool same = d.config.threads == c.threads && d.config.regs_per_thread == c.regs_per_thread &&
                          d.config.smem_bytes == c.smem_bytes;
        const auto [t_new, w_new] = score(gpu, s, d, same ? &occ : nullptr);
        ++n;
        const double area = double(c.bm) * c.bn;
        // Lower predicted time wins; within 1%, less padding (tile waste), then the larger tile (fewer, fuller
        // CTAs), as cuBLAS prefers.
        const bool tie = t_new <= t_cur * 1.01;
        if (!chosen || t_new < t_cur * 0.99 || (tie && w_new < w_cur - 0.01) ||
            (tie && std::abs(w_new - w_cur) <= 0.01 && area > area_cur))
          chosen = &c, t_cur = t_new, w_cur = w_new, area_cur = area;
      }
    }
    if (!chosen)
      throw InputError(s.where, "no " + family_name(s.family) + " config fits gpu '" + gpu.name +
                                    "' for this shape (head_dim or dtype too large for its shared memory/registers)");
    const Demand d = build(gpu, s, *chosen, with_text);
    best = finish(gpu, s, d, detail);
    if (!with_text) return best;  // no reason, notes or kernel text
    best.config_reason = d.config_suffix_reason;
    std::string suffix = best.config_reason;
    std::string why;
    switch (s.family) {
      case Family::gemm:
        if (s.impl == "cutlass") {
          why = "vLLM's CUTLASS sm90 fp8 dispatch by M (" + std::to_string(best.launch.waves) + " waves, last " +
                pct(best.launch.last_wave_fill) + " full); " + s.scales + " scales";
          break;
        }
        why =
            "cuBLAS-like heuristic: lowest predicted time of " + std::to_string(n) + " " +
            (s.path && s.path->path != "wgmma" && s.path->path != "simt" && s.path->path != "gemv" ? s.path->path
                                                                                                   : gpu.architecture) +
            " candidates (incl. wave quantization; " + std::to_string(best.launch.waves) + " waves, last " +
            pct(best.launch.last_wave_fill) + " full)";
        if (best.config.find("_sk") != std::string::npos) why += "; split-K because the tiles alone leave SMs idle";
        if (s.path) {
          why += "; traced cuBLAS path: " + s.path->path + " (" + pct(s.path->share) + " of " +
                 std::to_string(s.path->n) + " traced shapes like it, split-K in " + pct(s.path->split_k_share) +
                 "; e.g. " + s.path->kernel + ")";
          gemm_alignment_note(s, best.notes);
        }
        break;
      case Family::moe:
        why = "stand-in for vLLM's tuned fused_moe configs: lowest predicted time of " + std::to_string(n) +
              " candidates";
        break;
      case Family::attention_prefill:
        why = std::string(chosen->mma == "tcgen05" ? "FlashAttention-4"
                          : config_arch(gpu) == "hopper" || config_arch(gpu) == "blackwell" ? "FlashAttention-3"
                                                                                          : "FlashAttention-2") +
              "-like: lowest predicted time of " + std::to_string(n) + " tiles for head_dim " +
              std::to_string(s.head_dim);
        break;
      case Family::attention_decode:
        why = "flash-decoding: lowest predicted time of " + std::to_string(n) + " tiles";
        break;
      default: why = default_rule(s);
    }
    best.config_reason = why + suffix;
  }
  if (with_text) best.kernel = spec.to_string();
  return best;
}

}  // namespace loom
