// Drives the replicas of a serving simulation in time order: arrivals are routed, iterations start and complete.
#include "serving/engine.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "core/error.h"
#include "e2e/memory.h"
#include "kernels/kernel_spec.h"
#include "serving/replica.h"

namespace loom::serving {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kStageLatencyUs = 5;  // per stage-to-stage send (NCCL p2p launch + NVLink latency), rough

/// A pipeline stage's hand-over of `tokens` activations as the kernel predictor's `send_recv` (measured fits in
/// learned mode, docs/collectives-ops.md), made affine in the token count through 1 token and a full token budget:
/// {latency_us, us_per_token}. nullopt when the predictor has no answer (an empty or measured-only predictor, a
/// one-GPU node): the caller keeps the link-bandwidth estimate.
std::optional<std::pair<double, double>> send_recv_transfer(const GpuSpec& gpu, double bytes_per_token,
                                                            int64_t max_tokens, const KernelPredictor& predictor) {
  if (!predictor) return std::nullopt;
  const auto t = [&](int64_t tokens) {
    const auto bytes = std::max<int64_t>(1, std::llround(double(tokens) * bytes_per_token));
    return predictor(gpu, parse_kernel_spec("send_recv bytes=" + std::to_string(bytes)));
  };
  try {
    const int64_t n = std::max<int64_t>(2, max_tokens);
    const double t1 = t(1), tn = t(n), slope = std::max(0.0, (tn - t1) / double(n - 1));
    if (!(t1 > 0) || !std::isfinite(tn)) return std::nullopt;
    return std::make_pair(std::max(0.0, t1 - slope), slope);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

/// KV blocks one replica's stage holds: what the stack may use minus weights and the activation workspace of a
/// full token budget.
int64_t kv_blocks(const GpuSpec& gpu, const ModelConfig& stage, const ServingProfile& profile, int tp, int pp,
                  double& kv_bytes_token) {
  const SchedulerParams& sp = profile.scheduler;
  const Workload w = prefill_workload(1, {sp.max_num_batched_tokens}, {}, tp);
  const MemoryFit f = memory_fit(gpu, stage, profile, w);
  kv_bytes_token = kv_bytes_per_token(stage, tp);
  const double free = f.usable_bytes - f.weights_bytes - f.activation_bytes;
  if (free <= 0)
    throw InputError(pp > 1 ? "--pp" : "--tp",
                     "the model does not fit: each GPU holds " + std::to_string(f.weights_bytes / 1e9).substr(0, 6) +
                         " GB of weights + activations of " + std::to_string(sp.max_num_batched_tokens) +
                         " tokens, " + std::to_string(f.usable_bytes / 1e9).substr(0, 6) +
                         " GB usable; use a larger --tp or --pp");
  return static_cast<int64_t>(std::floor(free / (kv_bytes_token * static_cast<double>(sp.block_size))));
}

}  // namespace

ModelConfig stage_model(const ModelConfig& model, int pp) {
  ModelConfig stage = model;
  stage.layers = (model.layers + pp - 1) / pp;
  return stage;
}

SimResult simulate(const GpuSpec& gpu, const ModelConfig& model, const ServingProfile& profile,
                   const std::vector<Request>& requests, const SimConfig& cfg, const KernelPredictor& predictor) {
  if (cfg.pp < 1 || cfg.pp > model.layers)
    throw InputError("--pp", std::to_string(cfg.pp) + " pipeline stages for " + model.name + "'s " +
                                 std::to_string(model.layers) + " layers; use 1 to " + std::to_string(model.layers));
  if (cfg.replicas < 1) throw InputError("--replicas", "needs at least one replica");
  if (cfg.router != "round_robin" && cfg.router != "least_outstanding")
    throw InputError("--router", "'" + cfg.router + "'; use round_robin or least_outstanding");
  const SchedulerParams& sp = profile.scheduler;
  const ModelConfig stage = stage_model(model, cfg.pp);
  SimResult out;
  out.stage_note = cfg.pp > 1 ? "each stage runs " + std::to_string(stage.layers) + " of " +
                                    std::to_string(model.layers) + " layers; embedding and lm_head counted per stage"
                              : "";
  out.block_size = sp.block_size;
  out.kv_blocks = kv_blocks(gpu, stage, profile, cfg.tp, cfg.pp, out.kv_bytes_per_token);
  const int64_t capacity = out.kv_blocks * sp.block_size;
  double output_tokens = 0;
  for (const Request& r : requests) output_tokens += static_cast<double>(r.output_tokens);
  if (output_tokens > static_cast<double>(kMaxSimOutputTokens))
    throw InputError(cfg.requests_from == "--requests" ? "--requests" : "--num-requests x --output-len",
                     num_text(output_tokens) + " output tokens in one simulation is beyond loom's limit of 2^24 (" +
                         std::to_string(kMaxSimOutputTokens) + "); simulate fewer or shorter requests");
  for (const Request& r : requests) {
    const int64_t need = r.prompt_tokens + r.output_tokens;
    if (need > capacity)
      throw InputError(cfg.requests_from, "request " + std::to_string(r.id) + " needs " + std::to_string(need) +
                                         " KV tokens; a replica's cache holds " + std::to_string(capacity) +
                                         "; use a larger --tp/--pp or shorter requests");
    if (!sp.chunked_prefill && need > sp.max_num_batched_tokens)
      throw InputError(cfg.requests_from,
                       "request " + std::to_string(r.id) + " is longer than max_num_batched_tokens (" +
                           std::to_string(sp.max_num_batched_tokens) + ") and chunked_prefill is off");
  }
  std::unique_ptr<StepCost> own;
  if (!cfg.shared_cost) {
    own = std::make_unique<StepCost>(gpu, stage, profile, cfg.tp, predictor);
    own->set_step_clock(cfg.step_sustained);
  }
  StepCost& cost = cfg.shared_cost ? *cfg.shared_cost : *own;
  const int64_t evaluations_before = cost.evaluations();
  out.requests.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    RequestResult& r = out.requests[i];
    r.id = requests[i].id;
    r.arrival_s = requests[i].arrival_s;
    r.prompt_tokens = requests[i].prompt_tokens;
    r.output_tokens = requests[i].output_tokens;
  }
  std::vector<Seq> seqs(requests.size());
  ReplicaSetup setup;
  setup.pp = cfg.pp;
  setup.kv_blocks = out.kv_blocks;
  if (cfg.pp > 1) {
    const double bw = gpu.nvlink_bytes_per_s > 0 ? gpu.nvlink_bytes_per_s : 25e9;  // PCIe 4 x16 when no NVLink
    const double bytes_per_token = static_cast<double>(model.hidden) * dtype_bytes(model.dtype) / cfg.tp;
    setup.transfer_us_per_token = bytes_per_token / bw * 1e6;
    setup.transfer_latency_us = kStageLatencyUs;
    if (auto sr = send_recv_transfer(gpu, bytes_per_token, sp.max_num_batched_tokens, predictor))
      setup.transfer_latency_us = sr->first, setup.transfer_us_per_token = sr->second;
  }
  if (cfg.abort_after >= 0) {
    setup.abort_ttft_s = cfg.abort_ttft_ms * 1e-3;
    setup.abort_tpot_s = cfg.abort_tpot_ms * 1e-3;
  }
  std::vector<std::unique_ptr<Replica>> replicas;
  for (int i = 0; i < cfg.replicas; ++i) {
    setup.index = i;
    replicas.push_back(std::make_unique<Replica>(setup, sp, cost, requests, seqs, out, cfg.record_trace));
  }
  // Replicas address requests by position in `requests` (sorted by arrival); results keep each request's id.
  size_t next = 0, rr = 0;
  int64_t done = 0, reported = -1;
  const auto total = static_cast<int64_t>(requests.size());
  while (true) {
    const double t_arr = next < requests.size() ? requests[next].arrival_s : kInf;
    size_t best = 0;
    double t_best = kInf;
    for (size_t i = 0; i < replicas.size(); ++i) {
      const double t = replicas[i]->next_event();
      if (t < t_best) t_best = t, best = i;
    }
    if (t_arr == kInf && t_best == kInf) break;
    if (t_arr <= t_best) {
      size_t target = rr++ % replicas.size();
      if (cfg.router == "least_outstanding")
        for (size_t i = 0; i < replicas.size(); ++i)
          if (replicas[i]->outstanding() < replicas[target]->outstanding()) target = i;
      replicas[target]->add(static_cast<int64_t>(next), t_arr);
      ++next;
      continue;
    }
    replicas[best]->step(t_best);
    if (cfg.abort_after >= 0 && out.violations > cfg.abort_after) {
      out.aborted = true;
      break;
    }
    if (cfg.progress) {
      done = 0;
      for (const auto& r : replicas) done += r->finished();
      if (done * 10 / std::max<int64_t>(1, total) != reported) {  // every 10% of the requests
        reported = done * 10 / std::max<int64_t>(1, total);
        cfg.progress(done, total);
      }
    }
  }
  if (out.aborted) {  // keep the requests that finished
    std::vector<RequestResult> done_requests;
    for (const auto& r : out.requests)
      if (r.finish_s > 0) done_requests.push_back(r);
    out.requests = std::move(done_requests);
  }
  double first = kInf, last = 0;
  for (const auto& r : out.requests) first = std::min(first, r.arrival_s), last = std::max(last, r.finish_s);
  out.makespan_s = requests.empty() ? 0 : last - first;
  out.step_evaluations = cost.evaluations() - evaluations_before;
  return out;
}

}  // namespace loom::serving
