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
    StepCost cost(gpu, stage, profile, tp, predictor);
    SimConfig cfg;
    cfg.tp = tp;
    cfg.pp = q.pp;
    cfg.shared_cost = &cost;
    struct Trial {
      bool ok = false;
      Summary s;
    };
    auto trial = [&](double rate) {
      ++row.simulations;
      const SimResult r = simulate(gpu, model, profile, at_rate(q.unit_stream, rate), cfg, predictor);
      Trial t;
      t.s = summarize(r, q.slo);
      t.ok = (!q.slo.ttft_ms || t.s.ttft_ms.p99 <= *q.slo.ttft_ms) && (!q.slo.tpot_ms || t.s.tpot_ms.p99 <= *q.slo.tpot_ms);
      return t;
    };
    // Saturation throughput (every request at once) bounds the rate from above.
    const Trial burst = trial(1e9);
    double hi = std::max(1e-6, burst.s.request_per_s * 1.25), lo = 0;
    Trial best;
    const Trial at_hi = trial(hi);
    if (at_hi.ok) {
      lo = hi, best = at_hi;
    } else {
      for (int i = 0; i < q.bisections; ++i) {
        const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 8;
        const Trial t = trial(mid);
        if (t.ok) lo = mid, best = t;
        else hi = mid;
        if (lo > 0 && hi / lo < 1.03) break;
      }
    }
    row.max_rate = lo;
    if (lo > 0) {
      row.output_tokens_per_s = best.s.output_tokens_per_s;
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
