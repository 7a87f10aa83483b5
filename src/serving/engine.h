// An iteration-level serving simulation: replicas (data parallel) behind a router, each a pipeline of `pp`
// stages of `tp` GPUs running a continuous-batching scheduler (vLLM V1 "mixed" or SGLang "prefill_first") over a
// paged KV cache sized by the memory-fit model, with chunked prefill, preemption by recompute, prefix-cache hits
// and CUDA-graph padding. Iteration costs come from loom's step model (StepCost).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "e2e/e2e.h"
#include "serving/requests.h"

namespace loom::serving {

class StepCost;

struct SimConfig {
  int tp = 1, pp = 1, replicas = 1;
  std::string router = "round_robin";  ///< "round_robin" | "least_outstanding"
  bool record_trace = false;           ///< keep every iteration for a Chrome trace
  std::string requests_from = "--requests";  ///< what a bad request is blamed on (synthetic streams: their flags)
  /// Step costs to reuse across simulations of the same GPU, model, profile, tp and pp (a capacity search);
  /// null = a fresh cache for this run.
  class StepCost* shared_cost = nullptr;
  /// `--clock auto`: the kernel predictor fully throttled; each step past the GPU's onset is priced partly with it
  /// (StepCost::set_step_clock). Empty: steps as the predictor says.
  KernelPredictor step_sustained;
  /// Stop early once more than `abort_after` requests have a TTFT above `abort_ttft_ms` or a TPOT above
  /// `abort_tpot_ms` (a capacity search only needs to know that the p99 is lost); SimResult::aborted is then set.
  int64_t abort_after = -1;
  double abort_ttft_ms = 0, abort_tpot_ms = 0;
  /// Called now and then with (requests finished, total); long runs report progress through it.
  std::function<void(int64_t, int64_t)> progress;
};

/// What happened to one request.
struct RequestResult {
  int64_t id = 0;
  int replica = 0;
  double arrival_s = 0, first_token_s = 0, finish_s = 0;
  int64_t prompt_tokens = 0, output_tokens = 0, cached_tokens = 0;
  int preemptions = 0;
  double ttft_ms() const { return (first_token_s - arrival_s) * 1e3; }
  double e2e_ms() const { return (finish_s - arrival_s) * 1e3; }
  /// Mean time per output token after the first (0 for one-token outputs).
  double tpot_ms() const {
    return output_tokens > 1 ? (finish_s - first_token_s) * 1e3 / static_cast<double>(output_tokens - 1) : 0;
  }
};

/// One iteration of one stage of one replica (for the Chrome trace and the time series).
struct Iteration {
  int replica = 0, stage = 0;
  double start_s = 0, end_s = 0;
  int64_t decodes = 0, prefills = 0, tokens = 0, graph_batch = 0;
  int64_t waiting = 0, running = 0;
  double kv_used = 0;  ///< fraction of the replica's KV blocks in use after scheduling
};

struct SimResult {
  std::vector<RequestResult> requests;  ///< by request id
  std::vector<Iteration> iterations;    ///< stage 0 of every iteration; every stage when record_trace
  std::vector<double> itl_ms;           ///< every inter-token gap
  int64_t kv_blocks = 0, block_size = 0;  ///< per replica
  double kv_bytes_per_token = 0;        ///< per GPU
  int64_t steps = 0, step_evaluations = 0, preemptions = 0;
  double makespan_s = 0;                ///< first arrival to last finish
  std::string stage_note;               ///< how pipeline stages were modelled
  int64_t violations = 0;               ///< requests over the abort bounds (when SimConfig sets them)
  bool aborted = false;                 ///< stopped early: the statistics cover only what finished
};

/// The model one pipeline stage runs: layers / pp decoder layers (rounded up); embedding and lm_head stay in
/// every stage's graph (a small over-estimate, docs/serving.md).
ModelConfig stage_model(const ModelConfig& model, int pp);

/// Runs the simulation. Throws InputError when the model does not fit (naming --tp/--pp), a request can never fit
/// the KV cache, or the step model rejects a shape.
SimResult simulate(const GpuSpec& gpu, const ModelConfig& model, const ServingProfile& profile,
                   const std::vector<Request>& requests, const SimConfig& cfg, const KernelPredictor& predictor);

}  // namespace loom::serving
