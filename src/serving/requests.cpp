// Strict readers for request streams and the synthetic arrival / length generators.
#include "serving/requests.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"

namespace loom::serving {

namespace {

const std::vector<std::string> kColumns = {"arrival_s", "prompt_tokens", "output_tokens", "cached_prefix_tokens"};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

/// A finite plain decimal (no hex, nan, inf, trailing text).
double decimal(const std::string& text, const std::string& where, const std::string& field) {
  const std::string t = trim(text);
  double v = 0;
  const char* end = t.data() + t.size();
  auto r = std::from_chars(t.data(), end, v, std::chars_format::general);
  if (t.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v))
    throw InputError(where, field + " is '" + t + "'; write a finite decimal number");
  return v;
}

int64_t whole(double v, const std::string& where, const std::string& field, int64_t lo, int64_t hi) {
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw InputError(where, field + " = " + num_text(v) + " must be an integer in [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "]");
  return static_cast<int64_t>(v);
}

void set_field(Request& r, const std::string& key, double v, const std::string& where) {
  if (key == "arrival_s") {
    if (v < 0 || v > kMaxArrivalS)
      throw InputError(where, "arrival_s = " + num_text(v) + " must be in [0, 1e9] seconds");
    r.arrival_s = v;
  } else if (key == "prompt_tokens") {
    r.prompt_tokens = whole(v, where, key, 1, kMaxTokensPerRequest);
  } else if (key == "output_tokens") {
    r.output_tokens = whole(v, where, key, 1, kMaxTokensPerRequest);
  } else {
    r.cached_prefix_tokens = whole(v, where, key, 0, kMaxTokensPerRequest);
  }
}

void finish(Request& r, const std::string& where, std::vector<Request>& out) {
  if (r.cached_prefix_tokens >= r.prompt_tokens)
    throw InputError(where, "cached_prefix_tokens (" + std::to_string(r.cached_prefix_tokens) +
                                ") must be below prompt_tokens (" + std::to_string(r.prompt_tokens) +
                                "): at least one prompt token is computed");
  if (static_cast<int64_t>(out.size()) >= kMaxRequests)
    throw InputError(where, "more than " + std::to_string(kMaxRequests) + " requests; split the file");
  r.id = static_cast<int64_t>(out.size());
  out.push_back(r);
}

std::vector<Request> parse_csv(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<int> col;  // column -> index into kColumns
  std::vector<Request> out;
  while (std::getline(in, line)) {
    ++lineno;
    refuse_cr_line_ends(line, source + ":" + std::to_string(lineno));
    if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line = line.substr(3);
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ls(line);
    std::string c;
    while (std::getline(ls, c, ',')) cells.push_back(trim(c));
    if (!line.empty() && line.back() == ',') cells.push_back("");
    const std::string where = source + ":" + std::to_string(lineno);
    if (col.empty()) {
      std::set<int> seen;
      for (const auto& name : cells) {
        auto it = std::find(kColumns.begin(), kColumns.end(), name);
        if (it == kColumns.end())
          throw InputError(where, "unknown column '" + name +
                                      "'; the header is arrival_s,prompt_tokens,output_tokens[,cached_prefix_tokens]");
        const int k = static_cast<int>(it - kColumns.begin());
        if (!seen.insert(k).second) throw InputError(where, "column '" + name + "' appears twice");
        col.push_back(k);
      }
      for (int k = 0; k < 3; ++k)
        if (!seen.count(k)) throw InputError(where, "the header lacks the column '" + kColumns[k] + "'");
      continue;
    }
    if (cells.size() != col.size())
      throw InputError(where, "has " + std::to_string(cells.size()) + " fields; the header has " +
                                  std::to_string(col.size()));
    Request r;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string& key = kColumns[static_cast<size_t>(col[i])];
      set_field(r, key, decimal(cells[i], where, key), where);
    }
    finish(r, where, out);
  }
  if (col.empty())
    throw InputError(source + ":1", "no header; the first line is arrival_s,prompt_tokens,output_tokens");
  return out;
}

std::vector<Request> parse_jsonl(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<Request> out;
  while (std::getline(in, line)) {
    ++lineno;
    refuse_cr_line_ends(line, source + ":" + std::to_string(lineno));
    if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line = line.substr(3);
    if (trim(line).empty()) continue;
    const std::string where = source + ":" + std::to_string(lineno);
    std::vector<std::set<std::string>> keys;  // duplicate-key check per object depth
    std::string dup;
    auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
      if (ev == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
      if (ev == nlohmann::json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
      if (ev == nlohmann::json::parse_event_t::key && !keys.empty() &&
          !keys.back().insert(parsed.get<std::string>()).second)
        dup = parsed.get<std::string>();
      (void)depth;
      return true;
    };
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line, cb);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where, std::string("malformed JSON: ") + e.what());
    }
    if (!dup.empty()) throw InputError(where, "key '" + dup + "' appears twice");
    if (!j.is_object()) throw InputError(where, "each line is one JSON object {\"arrival_s\":..., ...}");
    Request r;
    for (const auto& name : {"arrival_s", "prompt_tokens", "output_tokens"})
      if (!j.contains(name)) throw InputError(where, "missing key '" + std::string(name) + "'");
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(kColumns.begin(), kColumns.end(), it.key()) == kColumns.end())
        throw InputError(where, "unknown key '" + it.key() +
                                    "'; keys: arrival_s, prompt_tokens, output_tokens, cached_prefix_tokens");
      if (!it.value().is_number()) throw InputError(where, it.key() + " must be a number");
      const double v = it.value().get<double>();
      if (!std::isfinite(v)) throw InputError(where, it.key() + " must be finite");
      set_field(r, it.key(), v, where);
    }
    finish(r, where, out);
  }
  return out;
}

}  // namespace

std::vector<Request> parse_requests(const std::string& text, const std::string& source, bool jsonl) {
  std::vector<Request> out = jsonl ? parse_jsonl(text, source) : parse_csv(text, source);
  if (out.empty()) throw InputError(source, "holds no requests");
  std::stable_sort(out.begin(), out.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  return out;
}

std::vector<Request> read_requests(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory; give the requests file");
  check_input_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open the requests file; check the path");
  // Read in chunks up to the cap: a device or pipe (/dev/zero, /dev/urandom) has no size to check up front and
  // would otherwise be read until memory runs out.
  constexpr size_t kMaxBytes = size_t{1} << 30;
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxBytes) throw InputError(path, "is larger than 1 GiB; split it");
  }
  const bool jsonl = path.size() >= 6 && path.substr(path.size() - 6) == ".jsonl";
  return parse_requests(text, path, jsonl);
}

LengthDist parse_length_dist(const std::string& text, const std::string& flag) {
  LengthDist d;
  auto parts = [&](const std::string& body) {
    std::vector<double> v;
    std::stringstream ss(body);
    std::string x;
    while (std::getline(ss, x, ':')) v.push_back(decimal(x, flag, "'" + text + "'"));
    return v;
  };
  if (text.rfind("file:", 0) == 0) {
    const std::string path = text.substr(5);
    check_input_file(path);
    std::ifstream in(path);
    if (!in) throw InputError(flag, "cannot open '" + path + "'");
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      refuse_cr_line_ends(line, path + ":" + std::to_string(lineno));
      if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
        line.erase(0, 3);  // a UTF-8 BOM, as the CSV readers take it
      if (trim(line).empty()) continue;
      const std::string where = path + ":" + std::to_string(lineno);
      d.samples.push_back(whole(decimal(line, where, "length"), where, "length", 1, kMaxTokensPerRequest));
    }
    if (d.samples.empty()) throw InputError(flag, "'" + path + "' holds no lengths");
    d.kind = "file";
    return d;
  }
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  if (colon == std::string::npos) {
    d.a = d.b = static_cast<double>(whole(decimal(text, flag, "length"), flag, "length", 1, kMaxTokensPerRequest));
    return d;
  }
  const std::vector<double> v = parts(text.substr(colon + 1));
  if (kind == "uniform" && v.size() == 2) {
    d.kind = kind;
    d.a = static_cast<double>(whole(v[0], flag, "uniform LO", 1, kMaxTokensPerRequest));
    d.b = static_cast<double>(whole(v[1], flag, "uniform HI", 1, kMaxTokensPerRequest));
    if (d.b < d.a) throw InputError(flag, "uniform:LO:HI needs LO <= HI");
    return d;
  }
  if (kind == "lognormal" && v.size() == 2) {
    d.kind = kind;
    if (v[0] < 1 || v[0] > static_cast<double>(kMaxTokensPerRequest) || v[1] <= 0 || v[1] > 4)
      throw InputError(flag, "lognormal:MEDIAN:SIGMA needs 1 <= MEDIAN <= " + std::to_string(kMaxTokensPerRequest) +
                                 " and 0 < SIGMA <= 4");
    d.a = v[0];
    d.b = v[1];
    return d;
  }
  throw InputError(flag, "'" + text + "' is not a length; use N, uniform:LO:HI, lognormal:MEDIAN:SIGMA or file:PATH");
}

ArrivalProcess parse_arrivals(const std::string& text, const std::string& flag) {
  ArrivalProcess a;
  if (text == "poisson") return a;
  if (text.rfind("gamma:cv=", 0) == 0) {
    a.cv = decimal(text.substr(9), flag, "cv");
    // Below 0.01 the gamma shape 1/cv^2 exceeds 10^4 and the sampler's rejection loop crawls (cv=1e-300 hung);
    // arrivals that regular are a constant rate: give a cv of at least 0.01.
    if (a.cv < 0.01 || a.cv > 100)
      throw InputError(flag, "gamma cv must be in [0.01, 100]; for evenly spaced arrivals use gamma:cv=0.01");
    return a;
  }
  throw InputError(flag, "'" + text + "' is not an arrival process; use poisson or gamma:cv=X");
}

std::vector<Request> synthesize(int64_t count, double rate, const ArrivalProcess& arrivals, const LengthDist& prompt,
                                const LengthDist& output, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double shape = 1.0 / (arrivals.cv * arrivals.cv);  // gamma with mean 1/rate and CV cv
  std::gamma_distribution<double> gap(shape, 1.0 / (rate * shape));
  auto draw = [&](const LengthDist& d) -> int64_t {
    if (d.kind == "fixed") return static_cast<int64_t>(d.a);
    if (d.kind == "file") return d.samples[std::uniform_int_distribution<size_t>(0, d.samples.size() - 1)(rng)];
    if (d.kind == "uniform")
      return std::uniform_int_distribution<int64_t>(static_cast<int64_t>(d.a), static_cast<int64_t>(d.b))(rng);
    const double x = std::lognormal_distribution<double>(std::log(d.a), d.b)(rng);
    return std::clamp<int64_t>(static_cast<int64_t>(std::llround(x)), 1, kMaxTokensPerRequest);
  };
  std::vector<Request> out;
  out.reserve(static_cast<size_t>(count));
  double t = 0;
  for (int64_t i = 0; i < count; ++i) {
    Request r;
    r.id = i;
    if (i > 0) t += gap(rng);
    // As a request file's arrival_s: --rate 1e-300 put arrivals at 1e300 s and reported a makespan of 1e303 ms.
    if (t > kMaxArrivalS)
      throw InputError("--rate", num_text(rate) + " requests/s spreads " + std::to_string(count) +
                                     " requests beyond 1e9 s (request " + std::to_string(i + 1) +
                                     " arrives at " + num_text(t) + " s); raise the rate or lower --num-requests");
    r.arrival_s = t;
    r.prompt_tokens = draw(prompt);
    r.output_tokens = draw(output);
    out.push_back(r);
  }
  return out;
}

}  // namespace loom::serving
