// Bucketed, cached iteration costs over loom's op graph and timeline.
#include "serving/step_cost.h"

#include <algorithm>
#include <cmath>

#include "analytical/sustained_load.h"

namespace loom::serving {

int64_t bucket(int64_t x, double resolution) {
  if (x <= 32) return x;
  const double step = std::log1p(resolution);
  return static_cast<int64_t>(std::llround(std::exp(std::round(std::log(static_cast<double>(x)) / step) * step)));
}

StepCost::StepCost(const GpuSpec& gpu, const ModelConfig& stage_model, const ServingProfile& profile, int tp,
                   KernelPredictor predictor, double resolution)
    : gpu_(gpu), model_(stage_model), profile_(profile), tp_(tp), resolution_(resolution) {
  KernelPredictor base = predictor ? std::move(predictor) : analytical_predictor();
  // Identical kernel shapes recur across cached steps: predict each once per simulation.
  predict_ = [this, base](const GpuSpec& g, const KernelSpec& k) {
    const std::string key = k.to_string();
    auto it = kernel_memo_.find(key);
    if (it == kernel_memo_.end()) it = kernel_memo_.emplace(key, base(g, k)).first;
    return it->second;
  };
}

void StepCost::set_step_clock(KernelPredictor sustained) {
  if (!sustained) {
    predict_sustained_ = KernelPredictor{};
    cache_.clear();
    return;
  }
  predict_sustained_ = [this, base = std::move(sustained)](const GpuSpec& g, const KernelSpec& k) {
    const std::string key = k.to_string();
    auto it = sustained_memo_.find(key);
    if (it == sustained_memo_.end()) it = sustained_memo_.emplace(key, base(g, k)).first;
    return it->second;
  };
  cache_.clear();
}

int64_t StepCost::graph_batch(const BatchShape& b) const {
  if (b.prefills > 0 || b.decodes == 0 || profile_.decode_mode != "graph") return 0;
  const auto& sizes = profile_.scheduler.cuda_graph_sizes;
  auto it = std::lower_bound(sizes.begin(), sizes.end(), b.decodes);
  return it == sizes.end() ? 0 : *it;
}

double StepCost::step_us(const BatchShape& b, double extra_host_us) {
  const int64_t graph = graph_batch(b);
  int64_t kv_mean = b.decodes > 0 ? std::max<int64_t>(1, (b.decode_kv + b.decodes / 2) / b.decodes) : 0;
  // A paged decode kernel without split-KV runs one program per (sequence, KV head). Its programs share the chip's
  // bandwidth (processor sharing): while many run, the longest sequence's program advances about as far as an average
  // one, and the kernel is throughput bound (the batch at its mean length, t_thr); once the others have finished, the
  // longest runs alone, at one program's rate, through its keys beyond the mean (the batch-1 launch at the longest
  // length, t_lat, scaled by that share). Kernel time ~ t_thr + t_lat x (1 - mean / longest), never more than the
  // whole batch at the longest length. Priced as the batch at the length that gives that time.
  const bool by_max = profile_.decode_attention == "paged" && b.decode_kv_max > kv_mean;
  if (by_max) {
    auto paged = [&](int64_t batch, int64_t kv) {
      KernelSpec k;
      k.family = "attention_decode";
      k.where = "serving";
      k.params = {{"batch", std::to_string(batch)}, {"heads", std::to_string(std::max<int64_t>(1, model_.heads / tp_))},
                  {"kv_heads", std::to_string(std::max<int64_t>(1, model_.kv_heads / tp_))},
                  {"seq_kv", std::to_string(kv)}, {"head_dim", std::to_string(model_.head_dim)},
                  {"dtype", std::string(dtype_name(model_.dtype))}, {"impl", "paged"},
                  {"block", std::to_string(profile_.scheduler.block_size)}};
      return predict_(gpu_, k);
    };
    const int64_t longest = bucket(b.decode_kv_max, resolution_), mean = bucket(kv_mean, resolution_);
    const double t_lat = paged(1, longest), t_thr = paged(std::max(graph, b.decodes), mean);
    const double tail = t_lat / t_thr * (1.0 - static_cast<double>(mean) / static_cast<double>(longest));
    kv_mean =
        std::min(longest, static_cast<int64_t>(std::llround(static_cast<double>(mean) * (1.0 + std::max(0.0, tail)))));
  }
  const int64_t q_mean = b.prefills > 0 ? std::max<int64_t>(1, b.prefill_tokens / b.prefills) : 0;
  // Mean context of the prefill chunks that reproduces their causal attention work.
  const int64_t ctx_mean =
      b.prefills > 0 ? std::max<int64_t>(0, std::llround(b.prefill_pairs / static_cast<double>(b.prefill_tokens) -
                                                         (static_cast<double>(q_mean) + 1) / 2))
                     : 0;
  const int64_t kd = graph > 0 ? graph : bucket(b.decodes, resolution_), kkv = bucket(kv_mean, resolution_),
                kp = std::min<int64_t>(b.prefills, 255);
  const int64_t kq = bucket(q_mean, resolution_), kc = bucket(ctx_mean, resolution_);
  // The step's token count (every GEMM's rows) on the same grid: the representative chunks are stretched to it.
  const int64_t kt = graph > 0 || kp == 0 ? 0 : bucket(b.tokens(), resolution_);
  const ShapeKey key{kd, kkv, kp, kq, kc, kt, (by_max ? 2 : 0) + (graph > 0 ? 1 : 0)};
  const double extra_us = extra_host_us * host_time_scale(profile_, gpu_.host_cpu_speed);
  auto with_host = [&](const Cost& c) { return std::max(c.wall_us, c.host_end_us + extra_us); };
  auto it = cache_.find(key);
  if (it != cache_.end()) return with_host(it->second);
  ++evaluations_;
  std::vector<int64_t> q, ctx;
  if (graph > 0) {  // padded slots attend to nothing: their keys are 1, the real ones keep the mean
    for (int64_t i = 0; i < graph; ++i) {
      q.push_back(1);
      ctx.push_back(i < b.decodes ? kkv - 1 : 0);
    }
  } else {
    for (int64_t i = 0; i < kd; ++i) q.push_back(1), ctx.push_back(std::max<int64_t>(1, kkv - 1));
  }
  for (int64_t i = 0; i < kp; ++i) q.push_back(kq), ctx.push_back(kc);
  // Chunks beyond 255 share the last bucket's shape: scale the rest of the tokens into the existing chunks.
  if (b.prefills > kp && kp > 0) q.back() += (b.prefills - kp) * kq;
  if (kt > 0) {
    int64_t total = 0;
    for (auto x : q) total += x;
    q.back() = std::max<int64_t>(1, q.back() + kt - total);
  }
  Workload w = graph > 0 ? decode_workload(graph, ctx, tp_) : mixed_workload(q, ctx, tp_);
  if (by_max) w.decode_attention_kv = kkv;
  const ExecMode mode = graph > 0 ? ExecMode::graph : mode_for(profile_, Phase::prefill);
  const std::vector<Op> ops = build_op_graph(model_, profile_, w);
  const StepTiming st = simulate_step(gpu_, ops, profile_, mode, model_.is_moe(), predict_);
  Cost c{st.wall_time_us, st.wall_time_us};
  if (mode == ExecMode::eager && !st.kernels.empty())
    c.host_end_us = st.kernels.back().issue_us + st.kernels.back().gpu_us;
  const double past = predict_sustained_ ? sustained_load_weight(gpu_, st.gpu_time_us, ClockMode::automatic) : 0.0;
  if (past > 0) {  // the share of the step past the throttle onset runs at the sustained clock
    const StepTiming ss = simulate_step(gpu_, ops, profile_, mode, model_.is_moe(), predict_sustained_);
    Cost s{ss.wall_time_us, ss.wall_time_us};
    if (mode == ExecMode::eager && !ss.kernels.empty())
      s.host_end_us = ss.kernels.back().issue_us + ss.kernels.back().gpu_us;
    c.wall_us += past * (s.wall_us - c.wall_us);
    c.host_end_us += past * (s.host_end_us - c.host_end_us);
  }
  return with_host(cache_.emplace(key, c).first->second);
}

}  // namespace loom::serving
