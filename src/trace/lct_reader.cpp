// Reader of the collector's .lct files (traces/FORMAT.md section 1).

#include "core/error.h"
#include "trace/text_io.h"
#include "trace/trace.h"

namespace loom {
namespace {

using trace_io::LineReader;
using trace_io::parse_i64;

constexpr std::string_view kMagic = "#loom-cupti";

// Parses numeric fields [first, first+n) of `f` into out; returns the index of the first bad field or -1.
int parse_ints(const std::vector<std::string_view>& f, size_t first, size_t n, int64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    auto v = parse_i64(f[first + i]);
    if (!v || *v < 0) return int(first + i);
    out[i] = *v;
  }
  return -1;
}

std::string bad_field(const std::vector<std::string_view>& f, int i) {
  std::string shown(f[size_t(i)].substr(0, 40));
  return "field " + std::to_string(i + 1) + " ('" + shown + "') is not a non-negative integer";
}

// Parses one record line into `t`; returns "" on success or what is wrong.
std::string parse_record(std::string_view line, LctTrace& t) {
  auto f = trace_io::split_tabs(line);
  const std::string_view type = f[0];
  auto want = [&](size_t n) -> std::string {
    if (f.size() == n) return "";
    return "record '" + std::string(type) + "' has " + std::to_string(f.size()) + " fields, expected " +
           std::to_string(n);
  };
  if (type == "K") {
    if (auto e = want(18); !e.empty()) return e;
    int64_t v[16];
    if (int b = parse_ints(f, 1, 16, v); b >= 0) return bad_field(f, b);
    LctKernel k;
    k.start_ns = v[0], k.end_ns = v[1], k.device_id = v[2], k.context_id = v[3], k.stream_id = v[4];
    k.correlation_id = v[5], k.graph_node_id = v[6];
    k.grid = {v[7], v[8], v[9]};
    k.block = {v[10], v[11], v[12]};
    k.registers_per_thread = v[13], k.static_smem_bytes = v[14], k.dynamic_smem_bytes = v[15];
    if (k.end_ns < k.start_ns) return "kernel ends before it starts";
    if (f[17].empty()) return "kernel has an empty name";
    k.name = std::string(f[17]);
    t.kernels.push_back(std::move(k));
  } else if (type == "C" || type == "S") {
    const bool memset = type == "S";
    if (auto e = want(memset ? 7 : 8); !e.empty()) return e;
    int64_t v[7] = {};
    if (int b = parse_ints(f, 1, f.size() - 1, v); b >= 0) return bad_field(f, b);
    LctMemOp m;
    m.is_memset = memset;
    m.start_ns = v[0], m.end_ns = v[1], m.device_id = v[2], m.stream_id = v[3], m.correlation_id = v[4];
    m.bytes = v[5], m.copy_kind = memset ? 0 : v[6];
    if (m.end_ns < m.start_ns) return "record ends before it starts";
    t.memops.push_back(m);
  } else if (type == "R") {
    if (auto e = want(5); !e.empty()) return e;
    int64_t v[3];
    if (int b = parse_ints(f, 1, 3, v); b >= 0) return bad_field(f, b);
    if (v[1] < v[0]) return "range ends before it starts";
    t.ranges.push_back({v[0], v[1], v[2], std::string(f[4])});
  } else {
    return "unknown record type '" + std::string(type.substr(0, 20)) + "' (expected K, C, S or R)";
  }
  return "";
}

// "#end records=N dropped=D" -> (N, D); false when malformed.
bool parse_end(std::string_view line, int64_t& records, int64_t& dropped) {
  constexpr std::string_view a = "#end records=";
  if (line.substr(0, a.size()) != a) return false;
  line.remove_prefix(a.size());
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return false;
  auto n = parse_i64(line.substr(0, sp));
  constexpr std::string_view b = "dropped=";
  std::string_view rest = line.substr(sp + 1);
  if (rest.substr(0, b.size()) != b) return false;
  auto d = parse_i64(rest.substr(b.size()));
  if (!n || !d || *n < 0 || *d < 0) return false;
  records = *n;
  dropped = *d;
  return true;
}

LctTrace read(LineReader& r, const ReadOptions& opts) {
  LctTrace t;
  t.path = r.name();
  std::string line;
  if (!r.next(line))
    throw InputError(r.name() + ":1", "empty file; expected a loom CUPTI trace starting with '#loom-cupti 1'");
  if (line.substr(0, kMagic.size()) != kMagic)
    throw InputError(r.where(), "missing header: first line must be '#loom-cupti 1'; is this a .lct file?");
  if (line != "#loom-cupti 1")
    throw InputError(r.where(), "unknown schema version '" + line.substr(0, 40) +
                                    "'; this loom reads '#loom-cupti 1': upgrade loom or re-collect");
  std::map<std::string, std::string> meta_where;  // `#key=` -> FILE:LINE (a key twice is refused: round 11)
  bool ended = false;
  int64_t end_records = 0;
  std::string end_where;
  auto bad = [&](const std::string& what) {
    if (!opts.lenient) throw InputError(r.where(), what + "; fix the line or pass lenient to skip bad records");
    ++t.skipped_records;
    if (t.messages.size() < opts.max_messages) t.messages.push_back(r.where() + ": " + what);
  };
  while (r.next(line)) {
    if (line.empty()) continue;
    if (ended) {
      bad("data after the '#end' line (two traces concatenated?)");
      continue;
    }
    if (line[0] == '#') {
      if (line == "#end" || line.rfind("#end ", 0) == 0) {
        if (!parse_end(line, end_records, t.dropped))
          throw InputError(r.where(), "malformed end line '" + line.substr(0, 60) +
                                          "'; expected '#end records=<N> dropped=<D>'");
        ended = true;
        end_where = r.where();
        continue;
      }
      if (line.rfind(kMagic, 0) == 0)
        throw InputError(r.where(), "a second '#loom-cupti' header (files concatenated?); keep one trace per file");
      if (auto kv = trace_io::parse_meta(line))
        trace_io::add_meta(t.meta, meta_where, *kv, r.where(), true);  // 0: not recorded
      continue;  // other '#' lines are comments
    }
    ++t.records;
    if (std::string e = parse_record(line, t); !e.empty()) bad(e);
  }
  if (!ended)
    throw InputError(r.name() + ":" + std::to_string(r.line_no()),
                     "truncated trace (no #end line): the process died before flushing; rerun");
  if (end_records != t.records)
    throw InputError(end_where, "'#end' says " + std::to_string(end_records) + " records but the file holds " +
                                    std::to_string(t.records) + "; the file is damaged: rerun the collection");
  return t;
}

}  // namespace

LctTrace read_lct(const std::string& path, const ReadOptions& opts) {
  LineReader r = LineReader::open_file(path);
  return read(r, opts);
}

LctTrace parse_lct(std::string_view text, const std::string& name, const ReadOptions& opts) {
  LineReader r = LineReader::from_text(text, name);
  return read(r, opts);
}

}  // namespace loom
