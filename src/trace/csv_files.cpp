// Readers of the two CSV trace files (case lists, FORMAT.md section 2; corpus, section 3) and the corpus writer.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <unordered_set>

#include "core/error.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"
#include "trace/kernel_dict.h"
#include "trace/text_io.h"
#include "trace/trace.h"

namespace loom {
namespace {

using trace_io::LineReader;

const std::vector<std::string> kCaseColumns = {"case_id", "family",          "spec",         "impl",
                                               "reps",    "event_median_us", "event_p10_us", "event_p90_us"};
const std::vector<std::string> kCorpusColumns = {"case_id", "family",   "spec",   "impl",      "kernels",
                                                 "grid",    "block",    "regs",   "smem_bytes", "reps",
                                                 "median_us", "p10_us", "p90_us", "spread_pct", "event_median_us"};

// A CSV file's preamble and column map: magic line, `#key=value` lines, then the header row.
struct Table {
  std::map<std::string, std::string> meta;
  std::map<std::string, std::string> meta_where;  // key -> FILE:LINE of its line
  std::vector<size_t> col;  // index in a row of each wanted column
  size_t width = 0;         // fields per row
  int version = 1;          // schema version from the magic line
};

// "'#loom-corpus 1' or '#loom-corpus 2'": the versions this loom reads.
std::string versions_read(std::string_view magic, int max_version) {
  std::string s;
  for (int v = 1; v <= max_version; ++v)
    s += std::string(v == 1 ? "" : v == max_version ? " or " : ", ") + "'" + std::string(magic) + " " +
         std::to_string(v) + "'";
  return s;
}

// Reads the magic line (versions 1..max_version), metadata and, when `dict` is given and the version is 2 or more,
// the kernel dictionary's `#kernel.<id>=` lines; then the header row.
Table read_preamble(LineReader& r, std::string_view magic, int max_version, const std::vector<std::string>& columns,
                    std::string_view what_file, trace_io::KernelDictReader* dict = nullptr) {
  Table t;
  std::string line;
  if (!r.next(line)) throw InputError(r.name() + ":1", "empty file; expected '" + std::string(magic) + " 1'");
  if (line.rfind(magic, 0) != 0)
    throw InputError(r.where(), "missing header: first line must be '" + std::string(magic) + " 1'; is this a " +
                                    std::string(what_file) + "?");
  t.version = 0;
  for (int v = 1; v <= max_version; ++v)
    if (line == std::string(magic) + " " + std::to_string(v)) t.version = v;
  if (t.version == 0)
    throw InputError(r.where(), "unknown schema version '" + line.substr(0, 40) + "'; this loom reads " +
                                    versions_read(magic, max_version) + ": upgrade loom or regenerate the file");
  for (;;) {
    if (!r.next(line)) throw InputError(r.where(), "no CSV header line; the file is truncated");
    if (line.empty()) continue;
    if (dict && t.version >= 2 && line.rfind(trace_io::kKernelLinePrefix, 0) == 0) {
      dict->add_line(line, r.where(), r.line_no());
      continue;
    }
    if (line[0] == '#') {
      // A case list's `#sms=0` / `#clock_mhz=0` is a sweep's "not recorded" (its device query failed); loom writes
      // no such corpus line.
      if (auto kv = trace_io::parse_meta(line))
        trace_io::add_meta(t.meta, t.meta_where, *kv, r.where(), magic != "#loom-corpus");
      continue;
    }
    break;
  }
  auto names = trace_io::split_csv(line, r.where());
  trace_io::check_unique_columns(names, r.where());
  for (const auto& c : columns) {
    auto it = std::find(names.begin(), names.end(), c);
    if (it == names.end())
      throw InputError(r.where(), "CSV header lacks column '" + c + "'; expected " + [&] {
        std::string s;
        for (const auto& x : columns) s += (s.empty() ? "" : ",") + x;
        return s;
      }());
    t.col.push_back(size_t(it - names.begin()));
  }
  t.width = names.size();
  return t;
}

// Per-row parse helpers: each throws std::string with what is wrong (converted to InputError/skip by the caller).
int64_t get_int(const std::vector<std::string>& f, size_t i, const char* name) {
  auto v = trace_io::parse_i64(f[i]);
  if (!v) throw std::string(name) + " '" + f[i].substr(0, 40) + "' is not an integer";
  return *v;
}
double get_num(const std::vector<std::string>& f, size_t i, const char* name, bool allow_empty) {
  if (f[i].empty() && allow_empty) return std::nan("");
  auto v = trace_io::parse_f64(f[i]);
  if (!v || (!allow_empty && !std::isfinite(*v)))
    throw std::string(name) + " '" + f[i].substr(0, 40) + "' is not a number";
  return *v;
}
// A measured event time: empty (not recorded) or a finite duration in [1e-6, 1e9] us. "nan", "inf", 0, -5 or 1e300
// were read as given and reached validate --e2e's measured column and the corpus.
double get_event_us(const std::vector<std::string>& f, size_t i, const char* name) {
  if (f[i].empty()) return std::nan("");
  auto v = trace_io::parse_f64(f[i]);
  if (!v || !std::isfinite(*v)) throw std::string(name) + " '" + f[i].substr(0, 40) + "' is not a number";
  if (*v < 1e-6 || *v > 1e9)
    throw std::string(name) + " '" + f[i].substr(0, 40) + "' is not a plausible duration (1e-6 to 1e9 us)";
  return *v;
}
std::array<int64_t, 3> get_dim3(const std::vector<std::string>& f, size_t i, const char* name) {
  std::array<int64_t, 3> d{};
  std::string_view s = f[i];
  for (int k = 0; k < 3; ++k) {
    size_t c = k < 2 ? s.find(':') : s.size();
    auto v = c == std::string_view::npos ? std::nullopt : trace_io::parse_i64(s.substr(0, c));
    if (!v || *v < 0) throw std::string(name) + " '" + f[i].substr(0, 40) + "' is not x:y:z";
    d[size_t(k)] = *v;
    if (k < 2) s.remove_prefix(c + 1);
  }
  return d;
}

// Reads rows; `parse` fills one record from split fields (throws std::string on bad data). With `dictionary`, a
// kernel dictionary line among the rows is an error (it would be read as a comment and its id missed).
template <class Rec, class Parse>
void read_rows(LineReader& r, const Table& t, const ReadOptions& opts, std::vector<Rec>& out, int64_t& skipped,
               std::vector<std::string>& messages, Parse parse, bool dictionary = false) {
  std::string line;
  while (r.next(line)) {
    if (dictionary && line.rfind(trace_io::kKernelLinePrefix, 0) == 0)
      throw InputError(r.where(), "kernel dictionary line after the CSV header; move it above the header");
    if (line.empty() || line[0] == '#') continue;
    try {
      auto f = trace_io::split_csv(line, r.where());
      if (f.size() != t.width)
        throw "row has " + std::to_string(f.size()) + " fields, header has " + std::to_string(t.width);
      Rec rec;
      parse(f, rec);
      out.push_back(std::move(rec));
    } catch (const InputError& e) {
      if (!opts.lenient) throw;
      ++skipped;
      if (messages.size() < opts.max_messages) messages.push_back(e.what());
    } catch (const std::string& what) {
      if (!opts.lenient) throw InputError(r.where(), what + "; fix the row or pass lenient to skip bad rows");
      ++skipped;
      if (messages.size() < opts.max_messages) messages.push_back(r.where() + ": " + what);
    }
  }
}

// A measured row's spec must be one predict accepts (without a GPU: check_spec_sizes): a zero or negative
// dimension (m=0), or tensors beyond 2^40 elements, would enter (or stay in) a corpus as a measured kernel that no
// model can describe and every later command refuses. Case lists were checked; corpora too since round 14.
void check_row_spec(const std::string& spec, const std::string& where) {
  try {
    check_spec_sizes(parse_kernel_spec(spec, where));
  } catch (const InputError& e) {
    throw "spec '" + spec.substr(0, 80) + "': " + e.detail();
  }
}

// The specs a corpus read has checked, by their text without config= (which the check takes as opaque text): a
// tuning sweep repeats each shape once per config (traces/: 666,171 checks for 1,357,913 rows).
class CheckedSpecs {
 public:
  void check(const std::string& spec, const std::string& where) {
    std::string key = spec;
    if (const size_t c = key.find(" config="); c != std::string::npos) {
      const size_t next = key.find(' ', c + 1);  // the key after config=, or npos: config= is the last key
      key.erase(c, next == std::string::npos ? std::string::npos : next - c);
    }
    if (seen_.count(key)) return;
    check_row_spec(spec, where);
    seen_.insert(std::move(key));
  }

 private:
  std::unordered_set<std::string> seen_;
};

CaseList read_cases(LineReader& r, const ReadOptions& opts) {
  CaseList cl;
  cl.path = r.name();
  Table t = read_preamble(r, "#loom-bench", 1, kCaseColumns, "loom-bench case list (.cases.csv)");
  cl.meta = t.meta;
  std::map<int64_t, int64_t> seen;  // case_id -> line
  const auto& c = t.col;
  read_rows(r, t, opts, cl.cases, cl.skipped_records, cl.messages,
            [&](const std::vector<std::string>& f, CaseRow& row) {
              row.case_id = get_int(f, c[0], "case_id");
              row.family = f[c[1]];
              row.spec = f[c[2]];
              row.impl = f[c[3]];
              row.reps = get_int(f, c[4], "reps");
              row.event_median_us = get_event_us(f, c[5], "event_median_us");
              row.event_p10_us = get_event_us(f, c[6], "event_p10_us");
              row.event_p90_us = get_event_us(f, c[7], "event_p90_us");
              if (row.reps < 1) throw "reps " + std::to_string(row.reps) + " must be >= 1";
              if (row.event_p10_us > row.event_median_us ||
                  row.event_median_us > row.event_p90_us)  // false when one is empty
                throw std::string("event_p10_us <= event_median_us <= event_p90_us does not hold");
              if (row.family.empty()) throw std::string("empty family");
              check_row_spec(row.spec, r.where());
              auto [it, fresh] = seen.emplace(row.case_id, r.line_no());
              if (!fresh)
                throw "duplicate case_id " + std::to_string(row.case_id) + " (first at line " +
                    std::to_string(it->second) + ")";
            });
  return cl;
}

Corpus read_corpus_text(LineReader& r, const ReadOptions& opts) {
  Corpus co;
  co.path = r.name();
  trace_io::KernelDictReader dict;
  CheckedSpecs checked;
  Table t = read_preamble(r, "#loom-corpus", kCorpusVersion, kCorpusColumns, "loom corpus (.corpus.csv.gz)", &dict);
  const bool v2 = t.version >= 2;
  co.meta = t.meta;
  co.gpu = trace_io::meta_get(co.meta, "gpu");
  co.gpu_key = trace_io::meta_get(co.meta, "gpu_key");
  // `#sms=`, `#clock_mhz=` and `#resolution_us=` were checked as read (trace_io::check_meta_value).
  if (co.meta.count("sms")) co.sms = *trace_io::parse_i64(co.meta.at("sms"));
  if (co.meta.count("clock_mhz")) co.clock_mhz = *trace_io::parse_f64(co.meta.at("clock_mhz"));
  if (co.meta.count("resolution_us")) co.resolution_us = *trace_io::parse_f64(co.meta.at("resolution_us"));
  const auto& c = t.col;
  read_rows(
      r, t, opts, co.rows, co.skipped_records, co.messages,
      [&](const std::vector<std::string>& f, CorpusRow& row) {
        row.case_id = get_int(f, c[0], "case_id");
        row.family = f[c[1]];
        row.spec = f[c[2]];
        row.impl = f[c[3]];
        row.kernels = v2 ? dict.resolve(f[c[4]]) : f[c[4]];
        row.grid = get_dim3(f, c[5], "grid");
        row.block = get_dim3(f, c[6], "block");
        row.regs = get_int(f, c[7], "regs");
        row.smem_bytes = get_int(f, c[8], "smem_bytes");
        row.reps = get_int(f, c[9], "reps");
        row.median_us = get_num(f, c[10], "median_us", false);
        row.p10_us = get_num(f, c[11], "p10_us", false);
        row.p90_us = get_num(f, c[12], "p90_us", false);
        row.spread_pct = get_num(f, c[13], "spread_pct", false);
        row.event_median_us = get_event_us(f, c[14], "event_median_us");
        if (row.median_us <= 0) throw std::string("median_us must be > 0");
        if (row.median_us > 1e9)
          throw "median_us " + f[c[10]].substr(0, 40) + " is not a plausible duration (<= 1e9 us)";
        if (row.p10_us > row.median_us || row.median_us > row.p90_us)
          throw std::string("p10_us <= median_us <= p90_us does not hold");
        if (row.spread_pct < 0) throw std::string("spread_pct must be >= 0");
        if (row.regs < 0 || row.smem_bytes < 0) throw std::string("regs and smem_bytes must be >= 0");
        if (row.reps <= 0) throw std::string("reps must be > 0");
        checked.check(row.spec, r.where());  // last: a row's other faults are said first, as before
      },
      v2);
  // A lenient read may have skipped the only rows that used an id.
  if (v2 && !opts.lenient) dict.check_all_used(r.name());
  return co;
}

std::string fmt_num(double v) {
  if (std::isnan(v)) return "";
  std::ostringstream s;
  s.precision(8);
  s << v;
  return s.str();
}

std::string dim3(const std::array<int64_t, 3>& d) {
  return std::to_string(d[0]) + ":" + std::to_string(d[1]) + ":" + std::to_string(d[2]);
}

}  // namespace

CaseList read_case_list(const std::string& path, const ReadOptions& opts) {
  LineReader r = LineReader::open_file(path);
  return read_cases(r, opts);
}
CaseList parse_case_list(std::string_view text, const std::string& name, const ReadOptions& opts) {
  LineReader r = LineReader::from_text(text, name);
  return read_cases(r, opts);
}
Corpus read_corpus(const std::string& path, const ReadOptions& opts) {
  LineReader r = LineReader::open_file(path);
  return read_corpus_text(r, opts);
}
Corpus parse_corpus(std::string_view text, const std::string& name, const ReadOptions& opts) {
  LineReader r = LineReader::from_text(text, name);
  return read_corpus_text(r, opts);
}

std::vector<std::string> find_corpus_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, "not a directory; give the corpus directory (e.g. traces/)");
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string p = it->path().string();
    if (it->is_regular_file(ec) && (trace_io::ends_with(p, ".corpus.csv.gz") || trace_io::ends_with(p, ".corpus.csv")))
      out.push_back(p);
  }
  if (ec) throw InputError(dir, "cannot list directory: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Corpus> read_corpus_dir(const std::string& dir, const ReadOptions& opts) {
  std::vector<Corpus> out;
  for (const auto& p : find_corpus_files(dir)) out.push_back(read_corpus(p, opts));
  return out;
}

namespace {

// True when every kernel name of every row can be a dictionary name and no metadata key would read as a dictionary
// line: then the corpus can be written as version 2.
bool dictionary_fits(const Corpus& co, const std::map<std::string, std::string>& meta) {
  for (const auto& [k, v] : meta)
    if (("#" + k).rfind(trace_io::kKernelLinePrefix, 0) == 0) return false;
  for (const auto& r : co.rows) {
    if (r.kernels.empty()) continue;
    for (size_t start = 0;;) {
      const size_t semi = r.kernels.find(';', start);
      const std::string_view name =
          std::string_view(r.kernels).substr(start, semi == std::string::npos ? semi : semi - start);
      if (!trace_io::kernel_name_problem(name).empty()) return false;
      if (semi == std::string::npos) break;
      start = semi + 1;
    }
  }
  return true;
}

}  // namespace

std::string format_corpus(const Corpus& co, int version) {
  std::map<std::string, std::string> meta = co.meta;
  if (!co.gpu.empty()) meta["gpu"] = co.gpu;
  meta["gpu_key"] = co.gpu_key;
  // The fields are the truth: a case list's `#sms=0` / `#clock_mhz=0` ("not recorded"), copied with its metadata,
  // is no corpus line (no reader takes it).
  meta.erase("sms"), meta.erase("clock_mhz");
  if (co.sms > 0) meta["sms"] = std::to_string(co.sms);
  if (co.clock_mhz > 0) meta["clock_mhz"] = fmt_num(co.clock_mhz);
  if (version >= 2 && !dictionary_fits(co, meta)) version = 1;
  std::string out = "#loom-corpus " + std::to_string(version) + "\n";
  for (const auto& [k, v] : meta) {
    std::string val = v;
    std::replace(val.begin(), val.end(), '\n', ' ');
    out += "#" + k + "=" + val + "\n";
  }
  // Version 2: each row's kernels as @id references; the dictionary goes before the header once all rows are seen.
  trace_io::KernelDictWriter dict;
  std::string header;
  for (size_t i = 0; i < kCorpusColumns.size(); ++i) header += (i ? "," : "") + kCorpusColumns[i];
  std::string rows;
  using trace_io::csv_field;
  for (const auto& r : co.rows) {
    rows += std::to_string(r.case_id) + "," + csv_field(r.family) + "," + csv_field(r.spec) + "," +
            csv_field(r.impl) + "," + (version >= 2 ? dict.encode(r.kernels) : csv_field(r.kernels)) + "," +
            dim3(r.grid) + "," + dim3(r.block) + "," + std::to_string(r.regs) + "," + std::to_string(r.smem_bytes) +
            "," + std::to_string(r.reps) + "," + fmt_num(r.median_us) + "," + fmt_num(r.p10_us) + "," +
            fmt_num(r.p90_us) + "," + fmt_num(r.spread_pct) + "," + fmt_num(r.event_median_us) + "\n";
  }
  return out + dict.lines() + header + "\n" + rows;
}

void write_corpus(const Corpus& corpus, const std::string& path) { trace_io::write_text(path, format_corpus(corpus)); }

}  // namespace loom
