// Strict readers of cb_engine's per-request and per-iteration CSV files.
#include "serving/measured.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"

namespace loom::serving {

namespace {

/// Rows of a CSV with exactly the columns `want` (any order); values as finite doubles.
std::vector<std::map<std::string, double>> read_table(const std::string& path, const std::vector<std::string>& want) {
  check_input_file(path);  // a named pipe waited forever for a writer; a folder read as "holds no rows"
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open; a measured run holds requests.csv, per_request.csv, iterations.csv");
  std::string line;
  std::vector<std::string> cols;
  std::vector<std::map<std::string, double>> rows;
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
      throw InputError(where, "has " + std::to_string(cells.size()) + " fields; the header has " + std::to_string(cols.size()));
    std::map<std::string, double> row;
    for (size_t i = 0; i < cells.size(); ++i) {
      double v = 0;
      const char* end = cells[i].data() + cells[i].size();
      auto r = std::from_chars(cells[i].data(), end, v);
      if (cells[i].empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v) || v < 0)
        throw InputError(where, cols[i] + " is '" + cells[i] + "'; want a finite number >= 0");
      row[cols[i]] = v;
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
  MeasuredRun run;
  run.dir = dir;
  run.name = fs::path(dir).filename().string();
  run.requests = read_requests((fs::path(dir) / "requests.csv").string());
  const std::string per = (fs::path(dir) / "per_request.csv").string();
  // per_request.csv measures requests.csv's rows (id = its row from 0): a duplicate id, an id of no row, other token
  // counts or a missing request were averaged in without a word.
  std::map<int64_t, const Request*> by_id;
  for (const auto& q : run.requests) by_id[q.id] = &q;
  std::set<int64_t> seen;
  for (const auto& r : read_table(per, {"id", "arrival_s", "prompt_tokens", "output_tokens", "first_token_s", "finish_s"})) {
    MeasuredRequest m;
    const double id = r.at("id");
    m.id = static_cast<int64_t>(id);
    const auto q = by_id.find(m.id);
    if (id != std::floor(id) || q == by_id.end())
      throw InputError(per, "request id " + fmt_id(id) + " is not a row of requests.csv (ids are its rows from 0); "
                            "pair each per_request.csv with its run's requests.csv");
    if (!seen.insert(m.id).second) throw InputError(per, "request id " + fmt_id(id) + " appears twice; give each once");
    m.arrival_s = r.at("arrival_s");
    m.prompt_tokens = static_cast<int64_t>(r.at("prompt_tokens"));
    m.output_tokens = static_cast<int64_t>(r.at("output_tokens"));
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
  for (const auto& r : read_table(its, {"start_s", "end_s", "gpu_ms", "decodes", "prefills", "decode_kv", "decode_kv_max",
                                        "prefill_tokens", "prefill_pairs", "graph_batch"})) {
    MeasuredIteration m;
    m.start_s = r.at("start_s");
    m.end_s = r.at("end_s");
    m.gpu_ms = r.at("gpu_ms");
    m.batch.decodes = static_cast<int64_t>(r.at("decodes"));
    m.batch.prefills = static_cast<int64_t>(r.at("prefills"));
    m.batch.decode_kv = static_cast<int64_t>(r.at("decode_kv"));
    m.batch.decode_kv_max = static_cast<int64_t>(r.at("decode_kv_max"));
    m.batch.prefill_tokens = static_cast<int64_t>(r.at("prefill_tokens"));
    m.batch.prefill_pairs = r.at("prefill_pairs");
    m.graph_batch = static_cast<int64_t>(r.at("graph_batch"));
    if (m.end_s < m.start_s || m.batch.requests() == 0)
      throw InputError(its, "an iteration ends before it starts or schedules nothing");
    run.iterations.push_back(m);
  }
  return run;
}

}  // namespace loom::serving
