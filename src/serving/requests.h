// The request stream a serving simulation replays: read from a CSV/JSONL file or drawn from a synthetic
// arrival process and length distributions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom::serving {

struct Request {
  int64_t id = 0;
  double arrival_s = 0;
  int64_t prompt_tokens = 1;
  int64_t output_tokens = 1;
  int64_t cached_prefix_tokens = 0;  ///< prompt tokens already in the prefix cache (skip prefill when enabled)
};

/// Hard limits on one request stream (documented in docs/serving.md): beyond them the input is refused.
constexpr int64_t kMaxRequests = 10'000'000;
constexpr int64_t kMaxTokensPerRequest = 10'000'000;
/// Output tokens of one simulation (all requests): each is a kept inter-token gap and at most one kept iteration
/// (~120 bytes); 2^24 of them take ~2 GB and seconds. Past it a run exhausted memory or ran for minutes.
constexpr int64_t kMaxSimOutputTokens = int64_t{1} << 24;

/// Reads FILE: CSV with the header `arrival_s,prompt_tokens,output_tokens[,cached_prefix_tokens]` (any column
/// order, a UTF-8 BOM allowed) or, for *.jsonl, one JSON object per line with those keys. Requests come back
/// sorted by arrival (stable). Throws InputError("FILE:LINE", ...) naming the field for anything malformed:
/// unknown or duplicate columns/keys, non-numbers, NaN/inf, negative times, lengths < 1, cached >= prompt.
std::vector<Request> read_requests(const std::string& path);
/// The same, from text (`source` names it in errors; `jsonl` picks the format).
std::vector<Request> parse_requests(const std::string& text, const std::string& source, bool jsonl);

/// A length distribution: "N" (fixed), "uniform:LO:HI", "lognormal:MEDIAN:SIGMA" or "file:PATH" (one integer
/// per line, sampled uniformly). Throws InputError(flag, ...) when malformed.
struct LengthDist {
  std::string kind = "fixed";
  double a = 1, b = 1;
  std::vector<int64_t> samples;
};
LengthDist parse_length_dist(const std::string& text, const std::string& flag);

/// "poisson" or "gamma:cv=X" (X > 0; cv=1 is Poisson). Throws InputError(flag, ...).
struct ArrivalProcess {
  double cv = 1;  ///< coefficient of variation of inter-arrival times
};
ArrivalProcess parse_arrivals(const std::string& text, const std::string& flag);

/// Latest arrival a request may have, from a file or synthesized (about 32 years): beyond it a time is a typo.
inline constexpr double kMaxArrivalS = 1e9;

/// `count` requests at `rate` per second (> 0), lengths drawn from the distributions, deterministic in `seed`.
/// Throws InputError("--rate") when an arrival would come after kMaxArrivalS.
std::vector<Request> synthesize(int64_t count, double rate, const ArrivalProcess& arrivals, const LengthDist& prompt,
                                const LengthDist& output, uint64_t seed);

}  // namespace loom::serving
