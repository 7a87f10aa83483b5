// Execution-mode timing: eager (host launch queue), CUDA graph (per-kernel gap), megakernel (no gaps, tail overlap).
#include "e2e/timeline.h"

#include <algorithm>

#include "core/error.h"
#include "e2e/kernel_costs.h"
#include "kernels/shape.h"  // is_collective

namespace loom {

std::string_view mode_name(ExecMode m) {
  switch (m) {
    case ExecMode::eager: return "eager";
    case ExecMode::graph: return "graph";
    case ExecMode::megakernel: return "megakernel";
  }
  return "?";
}

ExecMode parse_mode(const std::string& s, const std::string& where) {
  if (s == "eager") return ExecMode::eager;
  if (s == "graph") return ExecMode::graph;
  if (s == "megakernel") return ExecMode::megakernel;
  throw InputError(where, "unknown execution mode '" + s + "'; use eager, graph or megakernel");
}

namespace {

// Dynamic (global ready queue) scheduling ran at 0.82-0.89x the speed of a static schedule in the Event Tensor
// ablation (shared/SEEDS.md, "Dynamic megakernels"); loom takes the midpoint. Static schedules are charged nothing.
constexpr double kDynamicScheduleEfficiency = 0.855;

/// simulate_step; `steal` (the ops themselves, or null) lets each KernelTiming take its op's name and shape;
/// `timeline` = false keeps only the step's totals (no KernelTiming per launch).
StepTiming simulate(const GpuSpec& gpu, const std::vector<Op>& ops, std::vector<Op>* steal,
                    const ServingProfile& profile, ExecMode mode, bool moe_model, const KernelPredictor& predictor,
                    bool timeline = true) {
  CostCache cache(gpu, predictor, mode == ExecMode::megakernel, timeline);
  StepTiming st;
  st.mode = mode;
  if (timeline) st.kernels.reserve(ops.size());
  const bool dynamic = profile.megakernel_schedule == "dynamic" || (profile.megakernel_schedule == "auto" && moe_model);
  st.schedule_efficiency = mode == ExecMode::megakernel && dynamic ? kDynamicScheduleEfficiency : 1.0;
  const double host_scale = host_time_scale(profile, gpu.host_cpu_speed);
  const double launch_us = gpu.launch_overhead_us + profile.host_overhead_us * host_scale;
  // GPU-side idle between back-to-back kernels: the GPU's own (catalogue graph_gap, e.g. from `loom calibrate`) where
  // known, else the profile's (measured on an H200).
  const double gap_us = gpu.graph_gap_us > 0 ? gpu.graph_gap_us : profile.graph_gap_us;

  // Input preparation before the first launch (eager: the launches queue behind it; graph: the replay does).
  const double input_us = (mode == ExecMode::eager   ? profile.eager_input_host_us
                           : mode == ExecMode::graph ? profile.graph_input_host_us
                                                     : 0) *
                          host_scale;
  double host_us = input_us, prev_end_us = 0;
  bool planned = false;  // new_kv_length_host_us paid (once a step, before the first decode attention)
  const KernelCost* prev_cost = nullptr;
  double prev_d_us = 0;
  KernelTiming scratch;  // totals only: each launch's times (every field used is set in each iteration)
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const OpShape& shape = *op.shape;  // alive all iteration: stolen below into k.shape, which owns it then
    KernelTiming& k = timeline ? st.kernels.emplace_back() : scratch;  // listed: built in place
    const OpCost& oc = cache.get(shape);
    k.layer = op.layer;
    if (timeline && steal) {  // totals only (timeline false): the launch's name and shape are not needed
      k.name = std::move((*steal)[i].name);
      // Listed otherwise (listed_as_priced): the op keeps its shape, which `shape` and the cost cache's key name.
      k.shape = oc.listed ? oc.listed : std::move((*steal)[i].shape);
    } else if (timeline) {
      k.name = op.name;
      k.shape = oc.listed ? oc.listed : op.shape;
    }
    k.gpu_us = oc.gpu_us;
    const double fixed_us = oc.fixed_us;
    const KernelCost* cost = oc.last;
    switch (mode) {
      case ExecMode::eager:
        // The host issues one launch per kernel; the GPU runs it when both the launch has arrived and the
        // previous kernel (plus the GPU-side gap between kernels) is done: wall = max(gpu, launch) at steady state.
        if (!planned && profile.new_kv_length_host_us > 0 && shape.parts.front().family == "attention_decode") {
          const double fixed = profile.new_kv_length_host_fixed_share;
          host_us += profile.new_kv_length_host_us * (fixed + (1 - fixed) * host_scale);
          planned = true;
        }
        host_us += launch_us;
        if (profile.collective_host_us > 0 && is_collective(shape.parts.front().family))
          host_us += profile.collective_host_us * host_scale;
        k.issue_us = host_us;
        k.start_us = std::max(host_us, i == 0 ? 0.0 : prev_end_us + gap_us);
        k.end_us = k.start_us + k.gpu_us;
        break;
      case ExecMode::graph:
        // One graph launch; replayed kernels follow each other after a measured per-kernel gap.
        k.issue_us = input_us + launch_us;
        k.start_us = i == 0 ? input_us + launch_us : prev_end_us + gap_us;
        k.end_us = k.start_us + k.gpu_us;
        break;
      case ExecMode::megakernel: {
        // One persistent kernel: no gaps, no per-kernel prologue, and op i's tiles fill the resource op i-1's
        // last wave leaves idle. d_i = (gpu_i - fixed_i) / eta; saved_i = idle_{i-1} * min(tail_{i-1}, d_i).
        k.issue_us = launch_us;
        const double d_us = std::max(0.0, k.gpu_us - fixed_us) / st.schedule_efficiency;
        double overlap_us = 0;
        if (prev_cost != nullptr) {
          const double tail_us = std::min(prev_cost->tail_us / st.schedule_efficiency, prev_d_us);
          overlap_us = prev_cost->tail_idle * std::min(tail_us, d_us);
          k.start_us = prev_end_us - std::min(tail_us, d_us);
        } else {
          k.start_us = launch_us;
        }
        k.end_us = (prev_cost ? prev_end_us : launch_us) + d_us - overlap_us;
        k.saved_us = k.gpu_us - (d_us - overlap_us);
        prev_d_us = d_us;
        prev_cost = cost;  // a multi-part launch (varlen attention) ends with its last part's wave
        break;
      }
    }
    k.wall_us = k.end_us - prev_end_us;
    prev_end_us = k.end_us;
    st.gpu_time_us += k.gpu_us;
  }
  st.wall_time_us = prev_end_us;
  return st;
}

}  // namespace

StepTiming simulate_step(const GpuSpec& gpu, const std::vector<Op>& ops, const ServingProfile& profile, ExecMode mode,
                         bool moe_model, const KernelPredictor& predictor) {
  return simulate(gpu, ops, nullptr, profile, mode, moe_model, predictor);
}

StepTiming simulate_step(const GpuSpec& gpu, std::vector<Op>&& ops, const ServingProfile& profile, ExecMode mode,
                         bool moe_model, const KernelPredictor& predictor) {
  return simulate(gpu, ops, &ops, profile, mode, moe_model, predictor);
}

StepTiming simulate_step_totals(const GpuSpec& gpu, const std::vector<Op>& ops, const ServingProfile& profile,
                                ExecMode mode, bool moe_model, const KernelPredictor& predictor) {
  return simulate(gpu, ops, nullptr, profile, mode, moe_model, predictor, false);
}

}  // namespace loom
