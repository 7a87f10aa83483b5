// Parsing of the request-stream flags shared by simulate and whatif.
#include "cli/serving_args.h"

#include <algorithm>

#include "core/error.h"

namespace loom::cli {

const std::vector<std::string> kRequestFlags = {"--requests", "--rate",       "--num-requests", "--arrivals",
                                                "--prompt-len", "--output-len", "--seed",         "--slo"};

SyntheticStream synthetic_from(const Args& args) {
  SyntheticStream s;
  s.count = args.integer("--num-requests", 1, serving::kMaxRequests, 1000);
  s.arrivals = serving::parse_arrivals(args.get("--arrivals", "poisson"), "--arrivals");
  s.prompt = serving::parse_length_dist(args.get("--prompt-len", "1024"), "--prompt-len");
  s.output = serving::parse_length_dist(args.get("--output-len", "256"), "--output-len");
  s.seed = static_cast<uint64_t>(args.integer("--seed", 0, int64_t{1} << 62, 0));
  return s;
}

std::vector<serving::Request> requests_from(const Args& args) {
  const bool file = args.has("--requests"), rate = args.has("--rate");
  if (file == rate) throw InputError("--requests", "give either --requests FILE or --rate R (requests per second)");
  if (file) {
    for (const char* f : {"--num-requests", "--arrivals", "--prompt-len", "--output-len", "--seed"})
      if (args.has(f)) throw InputError(f, "only applies to synthetic requests (--rate); the file gives them");
    return serving::read_requests(args.get("--requests"));
  }
  const double r = *args.number("--rate");
  if (r <= 0 || r > 1e6) throw InputError("--rate", "requests per second must be in (0, 1e6]");
  const SyntheticStream s = synthetic_from(args);
  return serving::synthesize(s.count, r, s.arrivals, s.prompt, s.output, s.seed);
}

std::vector<std::string> stream_warnings(const ModelConfig& model, const std::vector<serving::Request>& requests) {
  int64_t positions = 0, beyond = 0;
  for (const auto& q : requests) {
    positions = std::max(positions, q.prompt_tokens + q.output_tokens);
    beyond += model.max_positions > 0 && q.prompt_tokens + q.output_tokens > model.max_positions;
  }
  std::vector<std::string> warnings;
  if (std::string w = position_warning(model, positions); !w.empty())
    warnings.push_back(std::to_string(beyond) + " of " + std::to_string(requests.size()) + " requests: " + w);
  if (std::string w = sliding_window_warning(model, positions); !w.empty()) warnings.push_back(w);
  return warnings;
}

}  // namespace loom::cli
