// Reader of cuBLASLt sweep CSVs (see lt_sweep.h; the writer is bench/cublaslt/cublaslt_sweep.cu).
#include "wave/lt_sweep.h"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "core/error.h"
#include "trace/text_io.h"

namespace loom::wave {
namespace {

using trace_io::LineReader;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "key=value" from the "# tool=cublaslt_sweep gpu=NVIDIA H200 sms=132 ..." line; values may hold spaces (gpu), so a
// value runs to the next " word=".
// Not trace_io::add_meta / check_meta_value: they read one `#key=value` a line, and the sweep (cublaslt_sweep.cu)
// writes every pair on one `# ` line, the form of the committed sweeps under traces/tune/.
std::string meta_value(const std::string& line, const std::string& key) {
  const std::string k = " " + key + "=";
  size_t p = line.find(k);
  if (p == std::string::npos) return "";
  p += k.size();
  size_t end = p;
  while (end < line.size()) {
    const size_t sp = line.find(' ', end);
    if (sp == std::string::npos) return line.substr(p);
    const size_t eq = line.find('=', sp), nsp = line.find(' ', sp + 1);
    if (eq != std::string::npos && (nsp == std::string::npos || eq < nsp)) return line.substr(p, sp - p);
    end = sp + 1;
  }
  return line.substr(p);
}

struct Columns {
  std::map<std::string, size_t> at;
  size_t get(const std::string& name, const std::string& where) const {
    auto it = at.find(name);
    if (it == at.end()) throw InputError(where, "missing column '" + name + "'; is this a cublaslt_sweep CSV?");
    return it->second;
  }
};

int64_t int_field(const std::vector<std::string>& f, size_t i, const char* name, const std::string& where,
                  int64_t lo, int64_t hi) {
  const auto v = trace_io::parse_i64(f[i]);
  if (!v || *v < lo || *v > hi)
    throw InputError(where, std::string("field '") + name + "': '" + f[i] + "' is not an integer in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

LtSweep read(LineReader& in) {
  LtSweep sw;
  sw.path = in.name();
  std::string line;
  std::vector<std::string> header;
  while (in.next(line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      sw.gpu_name = meta_value(line, "gpu");
      if (auto v = trace_io::parse_i64(meta_value(line, "sms"))) sw.sms = int(*v);
      if (auto v = trace_io::parse_i64(meta_value(line, "cublaslt"))) sw.cublaslt_version = int(*v);
      if (auto v = trace_io::parse_i64(meta_value(line, "workspace_bytes"))) sw.workspace_bytes = *v;
      continue;
    }
    header = trace_io::split_csv(line, in.where());
    trace_io::check_unique_columns(header, in.where());
    break;
  }
  if (header.empty()) throw InputError(in.name(), "no header line; expected a cublaslt_sweep CSV");
  if (sw.sms <= 0)
    throw InputError(in.name(), "no '# ... sms=N' line before the header; expected a cublaslt_sweep CSV");
  Columns c;
  for (size_t i = 0; i < header.size(); ++i) c.at[header[i]] = i;
  const std::string hw = in.name() + ":header";
  const size_t c_shape = c.get("shape", hw), c_m = c.get("m", hw), c_n = c.get("n", hw), c_k = c.get("k", hw),
               c_src = c.get("source", hw), c_cfg = c.get("config", hw), c_algo = c.get("algo", hw),
               c_bm = c.get("bm", hw), c_bn = c.get("bn", hw), c_st = c.get("stages", hw), c_sk = c.get("splitk", hw),
               c_red = c.get("reduction", hw), c_cta = c.get("cta_swizzle", hw), c_cus = c.get("custom", hw),
               c_in = c.get("inner", hw), c_cl = c.get("cluster", hw), c_tid = c.get("tile_id", hw),
               c_sid = c.get("stages_id", hw), c_cid = c.get("cluster_id", hw), c_status = c.get("status", hw),
               c_us = c.get("us", hw), c_rank = c.get("heur_rank", hw), c_q = c.get("heur_query_us", hw);
  std::map<std::string, int> cfg_index;
  std::map<int64_t, size_t> shape_index;  // sweep's shape id -> position in `all`
  struct Partial {
    LtShape shape;
    std::map<int, double> us;
    double heur0 = kNaN, query = kNaN;
    int heur0_cfg = -1;
  };
  std::vector<Partial> all;
  constexpr int64_t kMaxDim = int64_t(1) << 24;
  while (in.next(line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string where = in.where();
    const auto f = trace_io::split_csv(line, where);
    if (f.size() != header.size())
      throw InputError(where, "has " + std::to_string(f.size()) + " fields, the header " +
                                  std::to_string(header.size()));
    const int64_t id = int_field(f, c_shape, "shape", where, 0, std::numeric_limits<int32_t>::max());
    // Compact form (the committed sweeps): a shape's m, n, k and source may be left empty after its first row, and a
    // config's attributes after the config's first row; they are then taken from that row.
    auto known_shape = shape_index.find(id);
    const bool shape_blank = f[c_m].empty() && f[c_n].empty() && f[c_k].empty() && f[c_src].empty();
    if (shape_blank && known_shape == shape_index.end())
      throw InputError(where, "field 'm': empty on the first row of shape " + std::to_string(id));
    LtShape s = shape_blank
                    ? all[known_shape->second].shape
                    : LtShape{int_field(f, c_m, "m", where, 1, kMaxDim), int_field(f, c_n, "n", where, 1, kMaxDim),
                              int_field(f, c_k, "k", where, 1, kMaxDim), f[c_src]};
    auto [si, fresh] = shape_index.try_emplace(id, all.size());
    if (fresh) all.push_back({s, {}, kNaN, kNaN, -1});
    Partial& p = all[si->second];
    if (p.shape.m != s.m || p.shape.n != s.n || p.shape.k != s.k)
      throw InputError(where, "field 'shape': id " + std::to_string(id) + " was " + std::to_string(p.shape.m) + "x" +
                                  std::to_string(p.shape.n) + "x" + std::to_string(p.shape.k) + " on an earlier row");
    const std::string& status = f[c_status];
    if (status != "ok" && status != "invalid" && status != "failed")
      throw InputError(where, "field 'status': '" + status + "' is not ok, invalid or failed");
    double us = kNaN;
    if (status == "ok") {
      const auto v = trace_io::parse_f64(f[c_us]);
      if (!v || !(*v > 0) || !std::isfinite(*v))
        throw InputError(where, "field 'us': '" + f[c_us] + "' is not a positive latency (status ok)");
      us = *v;
    }
    if (f[c_cfg] == "heuristic0") {
      p.heur0 = us;
      if (auto q = trace_io::parse_f64(f[c_q]); q && *q >= 0) p.query = *q;
      continue;
    }
    LtConfig cfg;
    cfg.name = f[c_cfg];
    if (cfg.name.empty()) throw InputError(where, "field 'config': empty");
    if (f[c_algo].empty() && f[c_bm].empty() &&
        f[c_tid].empty()) {  // compact row: attributes of the config's first row
      auto known = cfg_index.find(cfg.name);
      if (known == cfg_index.end())
        throw InputError(where, "field 'algo': empty on the first row of config " + cfg.name);
      const int ci = known->second;
      if (!p.us.emplace(ci, us).second)
        throw InputError(where, "field 'config': " + cfg.name + " listed twice for shape " + std::to_string(id));
      if (int_field(f, c_rank, "heur_rank", where, -1, 1 << 10) == 0) p.heur0_cfg = ci;
      continue;
    }
    cfg.algo = int(int_field(f, c_algo, "algo", where, 0, 1 << 20));
    cfg.bm = int(int_field(f, c_bm, "bm", where, 0, 4096));
    cfg.bn = int(int_field(f, c_bn, "bn", where, 0, 4096));
    cfg.splitk = int(int_field(f, c_sk, "splitk", where, 1, 1 << 16));
    cfg.reduction = int(int_field(f, c_red, "reduction", where, 0, 255));
    cfg.cta_swizzle = int(int_field(f, c_cta, "cta_swizzle", where, 0, 255));
    cfg.custom = int(int_field(f, c_cus, "custom", where, 0, 1 << 20));
    cfg.inner = int(int_field(f, c_in, "inner", where, 0, 1 << 16));
    cfg.tile_id = int(int_field(f, c_tid, "tile_id", where, 0, 1 << 16));
    cfg.stages_id = int(int_field(f, c_sid, "stages_id", where, 0, 1 << 16));
    cfg.cluster_id = int(int_field(f, c_cid, "cluster_id", where, 0, 1 << 16));
    cfg.stages = f[c_st], cfg.cluster = f[c_cl];
    if (auto x = cfg.stages.find('x'); x != std::string::npos)
      if (auto v = trace_io::parse_i64(std::string_view(cfg.stages).substr(0, x)); v && *v > 0) cfg.bk = int(*v);
    auto [ci, new_cfg] = cfg_index.try_emplace(cfg.name, int(sw.configs.size()));
    if (new_cfg) {
      sw.configs.push_back(cfg);
    } else {
      const LtConfig& o = sw.configs[size_t(ci->second)];
      if (std::tie(o.algo, o.tile_id, o.stages_id, o.splitk, o.reduction, o.cta_swizzle, o.custom, o.inner,
                   o.cluster_id) != std::tie(cfg.algo, cfg.tile_id, cfg.stages_id, cfg.splitk, cfg.reduction,
                                             cfg.cta_swizzle, cfg.custom, cfg.inner, cfg.cluster_id))
        throw InputError(where, "field 'config': " + cfg.name + " has other attributes than on an earlier row");
    }
    if (!p.us.emplace(ci->second, us).second)
      throw InputError(where, "field 'config': " + cfg.name + " listed twice for shape " + std::to_string(id));
    const int64_t rank = int_field(f, c_rank, "heur_rank", where, -1, 1 << 10);
    if (rank == 0) p.heur0_cfg = ci->second;
  }
  for (auto& p : all) {
    if (p.us.size() != sw.configs.size()) {
      ++sw.incomplete_shapes;
      continue;
    }
    std::vector<double> row(sw.configs.size());
    for (const auto& [ci, v] : p.us) row[size_t(ci)] = v;
    sw.shapes.push_back(p.shape), sw.us.push_back(std::move(row)), sw.heur0_us.push_back(p.heur0);
    sw.heur0_config.push_back(p.heur0_cfg), sw.heur_query_us.push_back(p.query);
  }
  if (sw.shapes.empty()) throw InputError(in.name(), "no complete shape (every config measured) in the sweep");
  return sw;
}

}  // namespace

LtSweep read_lt_sweep(const std::string& path) {
  LineReader in = LineReader::open_file(path);
  return read(in);
}

LtSweep read_lt_sweep_text(std::string_view text, const std::string& name) {
  LineReader in = LineReader::from_text(text, name);
  return read(in);
}

}  // namespace loom::wave
