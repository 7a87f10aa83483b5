// analysis_features(): Analysis + GpuSpec -> fixed-order named features (see features.h).
#include "analytical/features.h"

#include <algorithm>
#include <cmath>

#include "kernels/shape.h"

namespace loom {
namespace {

const char* const kPipes[] = {"tensor", "fma", "sfu", "alu", "smem", "l2", "dram", "link"};

double log1(double x) { return std::log(std::max(0.0, x) + 1.0); }

std::vector<std::pair<std::string, double>> build(const Analysis* a, const GpuSpec* gpu) {
  std::vector<std::pair<std::string, double>> f;
  auto add = [&](const std::string& name, double v) { f.emplace_back(name, std::isfinite(v) ? v : 0.0); };
  const double ceil_us = a ? a->ceiling_us : 0;
  for (const char* p : kPipes) {
    double t = 0, busiest = 0, total = 0;
    if (a)
      for (const auto& pl : a->pipes)
        if (pl.pipe == p) t = pl.time_us, busiest = pl.busiest_sm, total = pl.total;
    // log of time relative to the ceiling (0 = this pipe is the bottleneck; -20 = unused)
    add(std::string("rel_log_time_") + p, (t > 0 && ceil_us > 0) ? std::log(t / ceil_us) : -20.0);
    add(std::string("log_time_us_") + p, log1(t));
    // busiest-SM demand vs the mean SM's (wave quantization / imbalance), per-SM pipes only
    double mean = (a && gpu && gpu->sms > 0) ? total / gpu->sms : 0;
    bool per_sm = std::string(p) != "l2" && std::string(p) != "dram" && std::string(p) != "link";
    add(std::string("busiest_over_mean_") + p, (per_sm && mean > 0) ? busiest / mean : 0.0);
  }
  const LaunchInfo* L = a ? &a->launch : nullptr;
  add("log_ceiling_us", a ? log1(a->ceiling_us) : 0);
  add("log_fixed_overhead_us", a ? log1(a->fixed_overhead_us) : 0);
  add("occupancy", L ? L->occupancy : 0);
  add("ctas_per_sm", L ? L->ctas_per_sm : 0);
  add("log_ctas", L ? log1(double(L->ctas)) : 0);
  add("log_waves", L ? log1(double(L->waves)) : 0);
  add("last_wave_fill", L ? L->last_wave_fill : 0);
  add("tile_waste", L ? L->tile_waste : 0);
  add("log_loop_iters", L ? log1(double(L->loop_iters)) : 0);
  add("threads_per_cta", L ? L->threads_per_cta : 0);
  add("regs_per_thread", L ? L->regs_per_thread : 0);
  add("log_smem_per_cta", L ? log1(double(L->smem_per_cta_bytes)) : 0);
  add("grid_over_sms", (L && gpu && gpu->sms > 0) ? double(L->ctas) / gpu->sms : 0);
  add("log_flops", a ? log1(a->flops) : 0);
  add("log_dram_bytes", a ? log1(a->dram_bytes) : 0);
  add("log_arith_intensity", (a && a->dram_bytes > 0) ? std::log(a->flops / a->dram_bytes + 1e-9) : 0);
  add("dram_over_min", (a && a->min_dram_bytes > 0) ? a->dram_bytes / a->min_dram_bytes : 0);
  add("working_set_over_l2", (a && gpu && gpu->l2_bytes > 0) ? a->min_dram_bytes / double(gpu->l2_bytes) : 0);
  add("l2_over_dram", (a && a->dram_bytes > 0) ? a->l2_bytes / a->dram_bytes : 0);
  add("config_pinned", a && a->config_pinned ? 1 : 0);
  add("variant", a ? a->variant : 0);
  add("sms", gpu ? gpu->sms : 0);
  add("clock_ghz", gpu ? gpu->sustained_clock_mhz / 1000.0 : 0);
  add("log_dram_tb_s", gpu ? log1(gpu->dram_bytes_per_s / 1e12) : 0);
  add("log_l2_mib", gpu ? log1(double(gpu->l2_bytes) / 1048576.0) : 0);
  add("compute_capability", gpu ? gpu->compute_capability : 0);
  for (const auto& fam : family_names()) add("family_" + fam, (a && a->family == fam) ? 1 : 0);
  return f;
}

}  // namespace

std::vector<std::pair<std::string, double>> analysis_features(const Analysis& a, const GpuSpec& gpu) {
  return build(&a, &gpu);
}

const std::vector<std::string>& analysis_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : build(nullptr, nullptr)) n.push_back(k);
    return n;
  }();
  return names;
}

}  // namespace loom
