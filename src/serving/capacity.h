// Capacity planning: the highest request rate one replica (tp x pp GPUs) serves within an SLO, the replicas and
// GPUs a target rate needs, and the cost per million output tokens — by simulating the request stream at
// different rates (bisection over the rate).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "serving/engine.h"
#include "serving/metrics.h"

namespace loom::serving {

struct CapacityQuery {
  std::vector<Request> unit_stream;  ///< lengths, with arrivals of a rate-1 process (scaled per trial rate)
  double target_rate = 0;            ///< requests per second the deployment must serve (0 = none)
  Slo slo;                           ///< met when p99 TTFT and p99 TPOT are within it
  int pp = 1;
  int bisections = 7;
  KernelPredictor step_sustained;    ///< `--clock auto` (SimConfig::step_sustained); empty = off
};

struct CapacityRow {
  std::string gpu;
  int tp = 1, pp = 1;
  double max_rate = 0;            ///< requests/s per replica within the SLO (0: not even at the lowest rate)
  double output_tokens_per_s = 0; ///< per replica at max_rate: max_rate x the stream's mean output length
  double ttft_p99_ms = 0, tpot_p99_ms = 0;  ///< at max_rate
  int64_t replicas = 0, gpus = 0; ///< for target_rate (0 when there is none or max_rate is 0)
  std::optional<double> usd_per_hour;        ///< of those GPUs
  std::optional<double> usd_per_m_output;    ///< at max_rate, per million output tokens
  int simulations = 0;
  std::string error;              ///< why this GPU / tp cannot serve the model (then nothing else is set)
};

/// Scales the rate-1 arrivals to `rate`.
std::vector<Request> at_rate(const std::vector<Request>& unit, double rate);

/// Rescales a request file's arrivals to a rate-1 process (its mean rate becomes 1); returns its mean rate.
double to_unit_rate(std::vector<Request>& requests);

/// The search for one GPU kind and tp. Never throws for a model that cannot run there: sets `error`.
CapacityRow capacity(const GpuSpec& gpu, int tp, const ModelConfig& model, const ServingProfile& profile,
                     const CapacityQuery& q, const KernelPredictor& predictor);

}  // namespace loom::serving
