// Flags shared by `loom simulate` and `loom whatif --rate/--requests`: the request stream and the SLO.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"
#include "e2e/model_config.h"
#include "serving/metrics.h"
#include "serving/requests.h"

namespace loom::cli {

/// Flags that take a value, for Args.
extern const std::vector<std::string> kRequestFlags;

/// The request stream from --requests FILE, or synthetic from --rate R [--num-requests N] [--arrivals A]
/// [--prompt-len D] [--output-len D] [--seed S]. Throws InputError naming the flag; refuses both or neither.
std::vector<serving::Request> requests_from(const Args& args);

/// What the model's config says of a request stream that loom prices anyway: requests beyond its
/// max_position_embeddings (how many), sequences past its sliding_window (not modelled). For warnings[].
std::vector<std::string> stream_warnings(const ModelConfig& model, const std::vector<serving::Request>& requests);

/// --num-requests N (default 1000) and the synthetic distributions, for a capacity search at varying rates.
struct SyntheticStream {
  int64_t count = 1000;
  serving::ArrivalProcess arrivals;
  serving::LengthDist prompt, output;
  uint64_t seed = 0;
};
SyntheticStream synthetic_from(const Args& args);

}  // namespace loom::cli
