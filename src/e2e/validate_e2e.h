// `loom validate --e2e`: measured end-to-end steps (CUPTI traces of real PyTorch runs, traces/e2e/) against loom's
// end-to-end prediction of the same model, batch, length, GPU and execution mode.
//
// Measurement rules (enforced in validate_e2e.cpp):
// - A case list NAME.cases.csv is joined with the trace NAME.lct(.gz) beside it; their `gpu` must agree.
// - A case's reps are the `loom.rep` ranges inside its `loom.case=<id>` range; a kernel belongs to the rep whose
//   range contains its START time (as trace import does); `loom_l2_flush` kernels are ignored.
// - Per rep: GPU time = sum of kernel durations; wall time = the `loom.phase=...` range inside the rep (the
//   rep range when there is none); kernels = launches. Per case: the median over reps of each.
// - Per family (classify_kernel on the demangled name): kernel time and launches of the median-GPU-time rep.
// - `loom.host_probe` ranges inside the case range (hf_eager.py --host-probe) measure the host's speed: an eager
//   step is predicted at host.cpu_speed = kReferenceHostUsPerLaunch x 1.18 (the collector's cost to the probe, measured
//   apart) / their median us a launch.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace loom {

/// `e2e_prefill model=M batch=B seq=S dtype=D mode=eager` / `e2e_decode ... context=C ... mode=cuda_graph`.
struct E2eCaseSpec {
  std::string phase;  ///< "prefill" | "decode"
  std::string model, dtype = "bf16", mode = "eager";  ///< mode as the trace names it: eager | cuda_graph
  int64_t batch = 1;
  int64_t length = 0;  ///< prefill: seq; decode: context (tokens in the KV cache before the step)
  int tp = 1;          ///< tensor-parallel degree of the run (scripts/torch/e2e/tp_e2e.py: rank 0's trace)
};

/// Parses a case spec; throws InputError(where, ...) for another family, a missing key or a bad number.
E2eCaseSpec parse_e2e_spec(const std::string& spec, const std::string& where);

/// Time and launches of one kernel family.
struct FamilyTime {
  double gpu_us = 0;
  int launches = 0;
};

struct MeasuredStep {
  int64_t case_id = 0;
  std::string spec;
  int reps = 0;
  double gpu_us = 0;       ///< median over reps of the summed kernel durations
  double wall_us = 0;      ///< median over reps of the loom.phase range (loom.rep if absent)
  double kernels = 0;      ///< median launches per rep
  /// Median over reps of the collective kernels' durations (all_reduce, all_gather, reduce_scatter, send_recv). In
  /// an eager TP step a collective kernel also waits for the slowest rank's host to launch its part, so for those
  /// steps only gpu_us - collective_us measures the GPU's own work.
  double collective_us = 0;
  std::map<std::string, FamilyTime> families;  ///< of the rep whose GPU time is the median (lower middle)
  /// The host's speed during the run (hf_eager.py --host-probe): over the case's `loom.host_probe` ranges, the median
  /// of a range's length over the kernels that start in it, i.e. host_cost.py's "us a launch" measured between the
  /// steps (0 and 0 probes when the run has none).
  double host_us_per_launch = 0;
  int host_probes = 0;
};

/// Measures every case of `cases` in `lct`. Cases without a range or reps are left out and named in `skipped`
/// ("case 3: no loom.case range"). Throws InputError when the two files name different GPUs.
std::vector<MeasuredStep> measure_e2e_steps(const LctTrace& lct, const CaseList& cases,
                                            std::vector<std::string>& skipped);

/// One step predicted by loom's e2e model (GPU time, wall time, launches, per-family kernel time).
struct PredictedStep {
  double gpu_us = 0, wall_us = 0;
  double collective_us = 0;  ///< of gpu_us, the collective kernels
  int kernels = 0;
  std::map<std::string, FamilyTime> families;  ///< keyed by the trace classifier's family names
};

struct E2eRow {
  std::string source;   ///< case list path
  std::string gpu_key;  ///< catalogue key, e.g. "h200"
  std::string profile, mode;  ///< loom profile and execution mode used
  E2eCaseSpec spec;
  MeasuredStep measured;
  /// host.cpu_speed the predictions used: the catalogue's, or for an eager step with host probes
  /// kReferenceHostUsPerLaunch x the collector's cost to the probe / measured.host_us_per_launch (host_from_probe).
  double host_cpu_speed = 1;
  bool host_from_probe = false;
  /// The learned wall time at the catalogue's host.cpu_speed (equal to learned.wall_us unless host_from_probe).
  double catalogue_host_wall_us = 0;
  PredictedStep learned, analytical;
  /// Predicted with the model trained on E2eOptions::cross_train_gpu's corpus only (rows of other GPUs, when
  /// that model exists): the cross-GPU check, a GPU the model never saw measured.
  std::optional<PredictedStep> cross;
  /// Set when the case reaches beyond the model's max_position_embeddings (position_warning): priced as asked, as
  /// `loom e2e` does, but said in every output.
  std::string warning;
};

struct E2eOptions {
  std::string traces_dir;          ///< searched recursively for *.cases.csv with a sibling .lct(.gz)
  std::string profile = "hf-sdpa";  ///< serving profile for every case (see validate_e2e.cpp for per-case changes)
  std::string models_dir;          ///< learned efficiency model ("" = default)
  std::string gpus_dir;            ///< GPU catalogue ("" = default)
  /// A learned model trained on one GPU's corpus only (`loom train --traces traces/h200 --out DIR`), used for the
  /// other GPUs' cases. "" = models/efficiency-<cross_train_gpu> when it exists; "none" = skip.
  std::string cross_models_dir;
  std::string cross_train_gpu = "h200";
};

struct E2eReport {
  std::vector<E2eRow> rows;              ///< by GPU key, then source, then case id
  std::vector<std::string> skipped;      ///< cases or files that could not be used, with the reason
  bool learned_model = false;            ///< false when no learned model was found (learned == analytical)
  std::string cross_models_dir;          ///< the cross-GPU model used ("" = none)
  std::string cross_train_gpu;
};

/// Measures and predicts every traced case below options.traces_dir. Throws InputError when the directory holds no
/// case list, a case list has no trace beside it, or a GPU is unknown to traces/gpu_names.tsv.
E2eReport validate_e2e(const E2eOptions& options);

/// Signed error in percent: 100 * (predicted - measured) / measured.
double error_pct(double predicted, double measured);

/// The trace classifier's family for a loom op family ("attention_decode" -> "attention", "rms_norm" stays ...).
std::string trace_family(const std::string& loom_family);

}  // namespace loom
