// Bisection over the request rate with the serving simulator; step costs shared across the trials.
#include "serving/capacity.h"

#include <cmath>

#include "core/error.h"
#include "serving/step_cost.h"

namespace loom::serving {

std::vector<Request> at_rate(const std::vector<Request>& unit, double rate) {
  std::vector<Request> v = unit;
  for (auto& r : v) r.arrival_s /= rate;
  return v;
}

double to_unit_rate(std::vector<Request>& requests) {
  const double span = requests.back().arrival_s - requests.front().arrival_s;
  const double rate = span > 0 ? static_cast<double>(requests.size() - 1) / span : 0;
  const double t0 = requests.front().arrival_s;
  for (auto& r : requests) r.arrival_s = rate > 0 ? (r.arrival_s - t0) * rate : 0;
  return rate;
}

CapacityRow capacity(const GpuSpec& gpu, int tp, const ModelConfig& model, const ServingProfile& profile,
                     const CapacityQuery& q, const KernelPredictor& predictor) {
  CapacityRow row;
  row.gpu = gpu.name;
  row.tp = tp;
  row.pp = q.pp;
  try {
    const ModelConfig stage = stage_model(model, q.pp);
    // 4% buckets: the search itself resolves the rate to 4%, and twice coarser buckets halve the shapes priced.
    StepCost cost(gpu, stage, profile, tp, predictor, 0.04);
    cost.set_step_clock(q.step_sustained);
    SimConfig cfg;
    cfg.tp = tp;
    cfg.pp = q.pp;
    cfg.shared_cost = &cost;
    // A trial is lost once more than 1% of its requests miss the SLO: stop it there.
    cfg.abort_after = static_cast<int64_t>(q.unit_stream.size()) / 100;
    cfg.abort_ttft_ms = q.slo.ttft_ms.value_or(0);
    cfg.abort_tpot_ms = q.slo.tpot_ms.value_or(0);
    struct Trial {
      bool ok = false;
      Summary s;
    };
    auto trial = [&](double rate) {
      ++row.simulations;
      const SimResult r = simulate(gpu, model, profile, at_rate(q.unit_stream, rate), cfg, predictor);
      Trial t;
      t.s = summarize(r, q.slo);
      t.ok = !r.aborted && (!q.slo.ttft_ms || t.s.ttft_ms.p99 <= *q.slo.ttft_ms) &&
             (!q.slo.tpot_ms || t.s.tpot_ms.p99 <= *q.slo.tpot_ms);
      return t;
    };
    // Saturation throughput (every request at once) bounds the rate from above.
    const int64_t abort_after = cfg.abort_after;
    cfg.abort_after = -1;  // the burst runs to the end: its throughput is the bound
    const Trial burst = trial(1e9);
    cfg.abort_after = abort_after;
    double hi = std::max(1e-6, burst.s.request_per_s * 1.25), lo = 0;
    Trial best;
    // The burst's drain tail can understate what a steady stream sustains: raise the bound while it holds.
    for (int i = 0; i < 6; ++i) {
      const Trial t = trial(hi);
      if (!t.ok) break;
      lo = hi, best = t, hi *= 2;
    }
    for (int i = 0; i < q.bisections && !(lo > 0 && hi / lo < 1.04); ++i) {  // geometric bisection to 4%
      const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 8;
      const Trial t = trial(mid);
      if (t.ok) lo = mid, best = t;
      else hi = mid;
    }
    row.max_rate = lo;
    if (lo > 0) {
      // Steady state serves what arrives: rate x mean output length (a finite run's makespan adds ramp and drain).
      double out_tokens = 0;
      for (const auto& r : q.unit_stream) out_tokens += static_cast<double>(r.output_tokens);
      row.output_tokens_per_s = lo * out_tokens / static_cast<double>(q.unit_stream.size());
      row.ttft_p99_ms = best.s.ttft_ms.p99;
      row.tpot_p99_ms = best.s.tpot_ms.p99;
      if (gpu.price_per_hour_usd && row.output_tokens_per_s > 0)
        row.usd_per_m_output = *gpu.price_per_hour_usd * tp * q.pp / 3600.0 / row.output_tokens_per_s * 1e6;
      if (q.target_rate > 0) {
        row.replicas = static_cast<int64_t>(std::ceil(q.target_rate / lo - 1e-9));
        row.gpus = row.replicas * tp * q.pp;
        if (gpu.price_per_hour_usd) row.usd_per_hour = *gpu.price_per_hour_usd * static_cast<double>(row.gpus);
      }
    }
  } catch (const InputError& e) {
    row.error = e.detail();
  }
  return row;
}

}  // namespace loom::serving
