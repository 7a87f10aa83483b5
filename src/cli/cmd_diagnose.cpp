// `loom diagnose`: a predicted speed-of-light table (like Nsight Compute's, but without running anything):
// each pipeline's demand, time at peak and share of the ceiling; with --measured-us, the distance to the ceiling.
#include <algorithm>
#include <cmath>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"

namespace loom::cli {

namespace {

std::string bar(double share, int width = 20) {
  int n = static_cast<int>(std::lround(std::clamp(share, 0.0, 1.0) * width));
  return std::string(n, '#') + std::string(width - n, '.');
}

/// The usual ways to cut one pipeline's demand.
std::string remedy(const std::string& pipe) {
  if (pipe == "tensor") return "lower precision such as fp8, or less tile padding";
  if (pipe == "dram") return "fuse neighbouring ops, lower precision, or reuse tiles across CTAs";
  if (pipe == "l2") return "larger tiles or cluster multicast so operands are re-read less";
  if (pipe == "smem") return "larger MMA tiles per warp, or operands kept in registers";
  if (pipe == "link") return "overlap communication with compute, or fewer/larger collectives";
  return "fewer instructions per element (vectorize, hoist index math)";
}

/// What to attack when the kernel sits `gap` times above its ceiling: far above, the ceiling is not what limits
/// it (latency, occupancy or scheduling is); close to it, the bottleneck pipeline's demand must shrink.
std::string advice(const Analysis& a, double measured_us) {
  double gap = measured_us / std::max(a.ceiling_us + a.fixed_overhead_us, 1e-9);
  if (gap < 1.0)
    return "measured is faster than the predicted ceiling: the model over-counts work here (check the config; "
           "report it)";
  if (gap < 1.3)
    return "within 30% of the ceiling: cut " + a.bottleneck + " demand (" + remedy(a.bottleneck) + ")";
  std::string why = a.launch.waves <= 1 && a.launch.last_wave_fill < 0.5
                        ? "the grid fills only " + fmt(100 * a.launch.last_wave_fill, 2) + "% of one wave: raise "
                          "parallelism (split-K / smaller tiles)"
                        : a.launch.occupancy < 0.25 ? "occupancy is " + fmt(100 * a.launch.occupancy, 2) +
                                                          "% (" + a.launch.occupancy_limit + "-limited): hide latency"
                                                    : "latency/issue-bound below the " + a.bottleneck +
                                                          " ceiling: more work in flight per SM";
  return fmt(gap, 2) + "x above the ceiling: " + why;
}

}  // namespace

/// A GEMM with K or N padded to a multiple of 16 bytes, when the analysis noted misaligned operands.
std::optional<KernelSpec> padded_gemm(const KernelSpec& spec, const Analysis& a) {
  if (a.family != "gemm") return std::nullopt;
  bool noted = false;
  for (const auto& n : a.notes) noted = noted || n.find("pad to") != std::string::npos;
  if (!noted) return std::nullopt;
  auto dt = parse_dtype(spec.params.at("dtype"));
  if (!dt) return std::nullopt;
  const int64_t per16 = static_cast<int64_t>(16 / dtype_bytes(*dt));
  KernelSpec p = spec;
  for (const char* key : {"k", "n"}) {
    const int64_t v = std::stoll(spec.params.at(key));  // parse_shape already checked it is a positive integer
    p.params[key] = std::to_string((v + per16 - 1) / per16 * per16);
  }
  return p;
}

int cmd_diagnose(const Argv& argv) {
  Args args(argv, {"--gpu", "--set", "--kernel", "--format", "--measured-us", "--model"});
  args.no_positionals("diagnose");
  Catalog catalog = Catalog::load();
  KernelSpec spec = parse_kernel_spec(args.require("--kernel"), "--kernel");
  std::vector<GpuSpec> gpus = select_gpus(catalog, args);
  if (gpus.size() != 1) throw InputError("--gpu", "diagnose takes one GPU");
  std::optional<double> measured = args.number("--measured-us");
  // A kernel's time, as the corpus reader takes one (1e300 us was answered "1e294x slower than its ceiling"; round 14).
  if (measured && !(*measured > 0 && *measured <= 1e9))
    throw InputError("--measured-us", "must be a kernel's time in microseconds, above 0 and at most 1e9");
  Prediction pred = Predictor(args.get("--model", "learned")).predict(gpus[0], spec);
  require_fits_memory(pred, gpus[0], "--kernel");
  const std::shared_ptr<const Analysis> shown = pred.shown_analysis();  // with a warm ceiling, its bottleneck and note
  const Analysis& a = *shown;

  Table t{{"pipeline", "demand", "busiest SM", "time at peak (us)", "share of ceiling", ""},
          {},
          {false, true, true, true, true, false}};
  for (const auto& p : a.pipes) {
    double share = a.ceiling_us > 0 ? p.time_us / a.ceiling_us : 0;
    t.add({p.pipe + (p.pipe == a.bottleneck ? " *" : ""), human(p.total, p.unit == "bytes" ? "B" : p.unit),
           human(p.busiest_sm, p.unit == "bytes" ? "B" : p.unit), fmt(p.time_us), fmt(100 * share, 2) + "%",
           bar(share)});
  }
  const std::string format = args.format();
  if (format == "json") {
    nlohmann::json j = prediction_json(pred);
    j["schema"] = "loom.diagnose/1";
    if (measured) {
      j["measured_us"] = *measured;
      j["fraction_of_ceiling"] = a.ceiling_us / *measured;
      j["advice"] = advice(a, *measured);
    }
    emit(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return 0;
  }
  if (format == "csv") {
    emit(t.csv());
    return 0;
  }
  const auto& l = a.launch;
  std::string s;
  s += "gpu      " + a.gpu + "\n";
  s += "kernel   " + a.kernel + "\n";
  s += "config   " + a.config + (a.config_pinned ? " (pinned)" : " (" + a.config_reason + ")") + "\n";
  s += "launch   " + std::to_string(l.ctas) + " CTAs x " + std::to_string(l.threads_per_cta) + " threads, " +
       std::to_string(l.ctas_per_sm) + " CTAs/SM (" + l.occupancy_limit + "-limited, occupancy " +
       fmt(100 * l.occupancy, 2) + "%), " + std::to_string(l.waves) + " wave(s), last wave " +
       fmt(100 * l.last_wave_fill, 2) + "% full, tile waste " + fmt(100 * l.tile_waste, 2) + "%\n\n";
  s += t.text() + "\n";
  s += "ceiling  " + fmt(a.ceiling_us) + " us, bound by " + a.bottleneck + "\n";
  s += "predicted " + fmt(pred.latency_us) + " us (" + pred.model + " model; pure analytical " + fmt(a.latency_us) +
       " us, fixed overhead " + fmt(a.fixed_overhead_us) + " us)\n";
  if (pred.achievable_us)
    s += "achievable " + fmt(*pred.achievable_us) + " us (what the best 10% of measured kernels of this kind reach)\n";
  if (pred.transfer_weight < 1)
    s += "note     no " + a.family + " kernel was measured on this GPU's architecture: the learned correction is "
         "weighted " + fmt(pred.transfer_weight, 2) + " against the analytical model (chosen from held-out "
         "architectures; on sm_100, 0.5 where the family was measured on one architecture only)\n";
  if (pred.at_ceiling)
    s += "note     the learned model put this kernel below its speed-of-light ceiling; the prediction is clamped to "
         "the ceiling (an extrapolation: no measured kernel ran this close to it)\n";
  if (measured) {
    s += "measured " + fmt(*measured) + " us = " + fmt(100 * a.ceiling_us / *measured, 2) +
         "% of speed-of-light\n";
    s += "advice   " + advice(a, *measured) + "\n";
  }
  for (const auto& n : a.notes) s += "note     " + n + "\n";
  if (auto padded = padded_gemm(spec, a)) {  // what padding K/N to the fast path's alignment would buy
    Prediction pp = Predictor(args.get("--model", "learned")).predict(gpus[0], *padded);
    s += "padded   " + padded->to_string() + ": " + fmt(pp.latency_us) + " us predicted, " +
         fmt(pred.latency_us / pp.latency_us, 3) + "x faster than as given\n";
  }
  emit(s);
  return 0;
}

}  // namespace loom::cli
