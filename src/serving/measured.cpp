// Strict readers of cb_engine's per-request and per-iteration CSV files.
#include "serving/measured.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"

namespace loom::serving {

namespace {

std::string read_text(const std::string& path) {
  // Checked first: a named pipe waited forever for a writer; a folder read as "holds no rows".
  return read_input_file(path, "cannot open; a measured run holds requests.csv, per_request.csv, iterations.csv");
}

struct Row {
  std::string where;  ///< FILE:LINE
  std::map<std::string, double> v;
  double at(const std::string& key) const { return v.at(key); }
  /// A column that counts (ids, tokens, batch sizes): a whole number up to 2^40. A larger one (1e300) was cast to an
  /// integer out of range (undefined; found by measured_run_fuzz).
  int64_t count(const std::string& key) const {
    const double x = v.at(key);
    if (x != std::floor(x) || x > 1099511627776.0)
      throw InputError(where, key + " is " + fmt_num(x) + "; want a whole number up to 2^40");
    return static_cast<int64_t>(x);
  }
  static std::string fmt_num(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", x);
    return buf;
  }
};

/// Rows of a CSV with exactly the columns `want` (any order); values as finite doubles.
std::vector<Row> read_table(const std::string& text, const std::string& path, const std::vector<std::string>& want) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> cols;
  std::vector<Row> rows;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    const std::string where = path + ":" + std::to_string(lineno);
    if (cols.empty()) {
      cols = cells;
      for (const auto& w : want) {
        int n = 0;
        for (const auto& c : cols) n += c == w;
        if (n != 1) throw InputError(where, "needs exactly one column '" + w + "'");
      }
      if (cols.size() != want.size()) throw InputError(where, "has " + std::to_string(cols.size()) + " columns; want " +
                                                                  std::to_string(want.size()));
      continue;
    }
    if (cells.size() != cols.size())
      throw InputError(
          where, "has " + std::to_string(cells.size()) + " fields; the header has " + std::to_string(cols.size()));
    Row row{where, {}};
    for (size_t i = 0; i < cells.size(); ++i) {
      double v = 0;
      const char* end = cells[i].data() + cells[i].size();
      auto r = std::from_chars(cells[i].data(), end, v);
      if (cells[i].empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v) || v < 0)
        throw InputError(where, cols[i] + " is '" + cells[i] + "'; want a finite number >= 0");
      row.v[cols[i]] = v;
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw InputError(path, "holds no rows");
  return rows;
}

}  // namespace

static std::string fmt_id(double id) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", id);
  return buf;
}

MeasuredRun read_measured_run(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<Request> requests = read_requests((fs::path(dir) / "requests.csv").string());  // in this order: the
  const std::string per = read_text((fs::path(dir) / "per_request.csv").string());          // first missing file is
  const std::string its = read_text((fs::path(dir) / "iterations.csv").string());           // the one named
  return read_measured_run_text(dir, std::move(requests), per, its);
}

MeasuredRun read_measured_run_text(const std::string& dir, std::vector<Request> requests,
                                   const std::string& per_request_csv, const std::string& iterations_csv) {
  namespace fs = std::filesystem;
  MeasuredRun run;
  run.dir = dir;
  run.name = fs::path(dir).filename().string();
  run.requests = std::move(requests);
  const std::string per = (fs::path(dir) / "per_request.csv").string();
  // per_request.csv measures requests.csv's rows (id = its row from 0): a duplicate id, an id of no row, other token
  // counts or a missing request were averaged in without a word.
  std::map<int64_t, const Request*> by_id;
  for (const auto& q : run.requests) by_id[q.id] = &q;
  std::set<int64_t> seen;
  for (const auto& r : read_table(per_request_csv, per,
                                  {"id", "arrival_s", "prompt_tokens", "output_tokens", "first_token_s", "finish_s"})) {
    MeasuredRequest m;
    const double id = r.at("id");
    const auto q = id == std::floor(id) && id <= 1099511627776.0 ? by_id.find(static_cast<int64_t>(id)) : by_id.end();
    if (q == by_id.end())
      throw InputError(per, "request id " + fmt_id(id) + " is not a row of requests.csv (ids are its rows from 0); "
                            "pair each per_request.csv with its run's requests.csv");
    m.id = q->first;
    if (!seen.insert(m.id).second) throw InputError(per, "request id " + fmt_id(id) + " appears twice; give each once");
    m.arrival_s = r.at("arrival_s");
    m.prompt_tokens = r.count("prompt_tokens");
    m.output_tokens = r.count("output_tokens");
    m.first_token_s = r.at("first_token_s");
    m.finish_s = r.at("finish_s");
    if (m.first_token_s < m.arrival_s || m.finish_s < m.first_token_s)
      throw InputError(per, "request " + std::to_string(m.id) + ": times run backwards (arrival, first token, finish)");
    if (m.prompt_tokens != q->second->prompt_tokens || m.output_tokens != q->second->output_tokens)
      throw InputError(per, "request " + std::to_string(m.id) + ": " + std::to_string(m.prompt_tokens) + " prompt / " +
                                std::to_string(m.output_tokens) + " output tokens, requests.csv says " +
                                std::to_string(q->second->prompt_tokens) + " / " +
                                std::to_string(q->second->output_tokens) + "; pair the run's files");
    run.per_request.push_back(m);
  }
  if (run.per_request.size() != run.requests.size())
    throw InputError(per, std::to_string(run.per_request.size()) + " requests measured, requests.csv holds " +
                              std::to_string(run.requests.size()) + "; a run measures every request it was given");
  const std::string its = (fs::path(dir) / "iterations.csv").string();
  for (const auto& r : read_table(iterations_csv, its,
                                  {"start_s", "end_s", "gpu_ms", "decodes", "prefills", "decode_kv", "decode_kv_max",
                                   "prefill_tokens", "prefill_pairs", "graph_batch"})) {
    MeasuredIteration m;
    m.start_s = r.at("start_s");
    m.end_s = r.at("end_s");
    m.gpu_ms = r.at("gpu_ms");
    m.batch.decodes = r.count("decodes");
    m.batch.prefills = r.count("prefills");
    m.batch.decode_kv = r.count("decode_kv");
    m.batch.decode_kv_max = r.count("decode_kv_max");
    m.batch.prefill_tokens = r.count("prefill_tokens");
    m.batch.prefill_pairs = r.at("prefill_pairs");
    m.graph_batch = r.count("graph_batch");
    if (m.end_s < m.start_s || m.batch.requests() == 0)
      throw InputError(its, "an iteration ends before it starts or schedules nothing");
    run.iterations.push_back(m);
  }
  return run;
}

}  // namespace loom::serving
