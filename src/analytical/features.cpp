// analysis_features(): Analysis + GpuSpec -> fixed-order named features (see features.h).
#include "analytical/features.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <iterator>

#include "hw/tensor_path.h"
#include "kernels/shape.h"

namespace loom {
namespace {

// As string_views: a pipe's name is compared by length first (no strlen per comparison).
constexpr std::string_view kPipes[] = {"tensor", "fma", "sfu", "alu", "smem", "l2", "dram", "link"};
static_assert(kPipes[4] == "smem" && kPipes[5] == "l2", "emit() takes the first five pipes as the per-SM ones");

/// log(max(0, x) + 1); where max(0, x) is 0 (x <= 0 or NaN) that is log(1) = +0 exactly, without the call.
double log1(double x) { return x > 0 ? std::log(x + 1.0) : 0.0; }

// Architecture facts a GPU's compute capability fixes (CUDA C++ Programming Guide; PTX ISA): what differs between
// architectures beyond the YAML's rates, so a GPU of an unmeasured architecture is placed among measured ones.
// Tensor-core instruction path: hw/tensor_path.h's code (0 none, 1 mma.sync, 2 wgmma, 3 tcgen05).
double tensor_path(const GpuSpec& g) { return static_cast<int>(tensor_path_of(g.compute_capability)); }
// Global->shared copy: 0 through registers (before sm_80), 1 cp.async (sm_80, sm_86, sm_89), 2 TMA (sm_90+).
double async_copy(const GpuSpec& g) { return g.compute_capability >= 90 ? 2 : g.compute_capability >= 80 ? 1 : 0; }
// GA100, GH100 and GB100 split L2 into two partitions (a far-partition hit costs more; whitepapers); others one.
double l2_partitions(const GpuSpec& g) {
  const int cc = g.compute_capability;
  return cc == 80 || cc == 90 || cc == 100 ? 2 : 1;
}

/// The one feature code: calls sink(prefix, suffix, value) for every feature in order (name = prefix + suffix), so
/// the named list and the allocation-free value row cannot drift apart.
template <class Sink>
void emit(const Analysis* a, const GpuSpec* gpu, Sink&& sink) {
  auto add = [&](const char* name, double v) { sink(name, "", std::isfinite(v) ? v : 0.0); };
  auto add2 = [&](const char* prefix, const char* suffix, double v) {
    sink(prefix, suffix, std::isfinite(v) ? v : 0.0);
  };
  const double ceil_us = a ? a->ceiling_us : 0;
  // Each pipe's load, found in one pass over a->pipes (the last load of a name wins, as a search per pipe did).
  const PipeLoad* loads[std::size(kPipes)] = {};
  if (a)
    for (size_t k = 0; k < a->pipes.size(); ++k) {
      const PipeLoad& pl = a->pipes[k];
      if (k < std::size(kPipes) && pl.pipe == kPipes[k]) {  // analyze() lists them in kPipes order
        loads[k] = &pl;
        continue;
      }
      for (size_t i = 0; i < std::size(kPipes); ++i)
        if (pl.pipe == kPipes[i]) {
          loads[i] = &pl;
          break;
        }
    }
  for (size_t pi = 0; pi < std::size(kPipes); ++pi) {
    const char* p = kPipes[pi].data();  // literals: null-terminated
    double t = 0, busiest = 0, total = 0;
    if (const PipeLoad* pl = loads[pi]) t = pl->time_us, busiest = pl->busiest_sm, total = pl->total;
    // log of time relative to the ceiling (0 = this pipe is the bottleneck; -20 = unused)
    add2("rel_log_time_", p, (t > 0 && ceil_us > 0) ? std::log(t / ceil_us) : -20.0);
    add2("log_time_us_", p, log1(t));
    // busiest-SM demand vs the mean SM's (wave quantization / imbalance), per-SM pipes only
    double mean = (a && gpu && gpu->sms > 0) ? total / gpu->sms : 0;
    const bool per_sm = pi < 5;  // kPipes: the per-SM pipes, then l2, dram and link (chip-wide)
    add2("busiest_over_mean_", p, (per_sm && mean > 0) ? busiest / mean : 0.0);
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
  add("l2_warm", a && a->l2_warm ? 1 : 0);
  add("sms", gpu ? gpu->sms : 0);
  add("clock_ghz", gpu ? gpu->sustained_clock_mhz / 1000.0 : 0);
  add("log_dram_tb_s", gpu ? log1(gpu->effective_dram_bytes_per_s() / 1e12) : 0);
  add("log_l2_mib", gpu ? log1(double(gpu->l2_bytes) / 1048576.0) : 0);
  add("compute_capability", gpu ? gpu->compute_capability : 0);
  // One-hot over the families the efficiency model knew when these features were fixed (gemm .. all_reduce): the
  // newer collective families (all_gather, reduce_scatter, send_recv) are predicted by the collective fits, not by
  // the efficiency model, and adding columns would change every trained model's feature list.
  const std::vector<std::string>& families = family_names();
  size_t fam = families.size();  // a's family's index (names are unique: at most one matches)
  if (a)
    for (size_t i = 0; i < families.size() && fam == families.size(); ++i)
      if (a->family == families[i]) fam = i;
  for (size_t i = 0; i <= static_cast<size_t>(Family::all_reduce); ++i)
    add2("family_", families[i].c_str(), fam == i ? 1 : 0);
  // Architecture features (appended: older models find their features by name, see Predictor).
  const double clk_sm = gpu ? gpu->sustained_clock_mhz * 1e6 * gpu->sms : 0;
  add("tensor_path", gpu ? tensor_path(*gpu) : 0);
  add("async_copy", gpu ? async_copy(*gpu) : 0);
  add("l2_partitions", gpu ? l2_partitions(*gpu) : 0);
  // FP32-accumulate fp16 tensor rate per SM per clock (what GEMM libraries get), 0 without tensor cores.
  add("log_tensor_fp16_per_clk", gpu ? log1(gpu->tensor_flops_per_clk_per_sm[static_cast<int>(Dtype::fp16)]) : 0);
  add("hbm", gpu && gpu->dram_type.starts_with("HBM") ? 1 : 0);
  add("dram_bytes_per_clk_per_sm", clk_sm > 0 ? gpu->effective_dram_bytes_per_s() / clk_sm : 0);
  add("l2_bytes_per_clk_per_sm", clk_sm > 0 ? gpu->l2_bytes_per_s / clk_sm : 0);
}

std::vector<std::pair<std::string, double>> build(const Analysis* a, const GpuSpec* gpu) {
  std::vector<std::pair<std::string, double>> f;
  emit(a, gpu,
       [&](const char* prefix, const char* suffix, double v) { f.emplace_back(std::string(prefix) + suffix, v); });
  return f;
}

}  // namespace

std::vector<std::pair<std::string, double>> analysis_features(const Analysis& a, const GpuSpec& gpu) {
  return build(&a, &gpu);
}

size_t analysis_feature_values(const Analysis& a, const GpuSpec& gpu, float* out) {
  size_t n = 0;
  emit(&a, &gpu, [&](const char*, const char*, double v) { out[n++] = static_cast<float>(v); });
  return n;
}

const std::vector<std::string>& analysis_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : build(nullptr, nullptr)) n.push_back(k);
    return n;
  }();
  return names;
}

const std::vector<std::string>& gpu_constant_feature_names() {
  // The GPU block and the architecture block emitted above.
  static const std::vector<std::string> names = {
      "sms", "clock_ghz", "log_dram_tb_s", "log_l2_mib", "compute_capability", "tensor_path", "async_copy",
      "l2_partitions", "log_tensor_fp16_per_clk", "hbm", "dram_bytes_per_clk_per_sm", "l2_bytes_per_clk_per_sm"};
  return names;
}

}  // namespace loom
