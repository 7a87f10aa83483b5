// Tables file (JSON) and C-header export of the gemm-cublaslt wave model (see lt_model.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "trace/text_io.h"
#include "wave/export.h"
#include "wave/lt_model.h"

namespace loom::wave {
namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const nlohmann::json& need(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw InputError(where, std::string(key) + ": missing");
  return j[key];
}
int need_int(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = need(j, key, where);
  if (!v.is_number_integer()) throw InputError(where, std::string(key) + ": not an integer");
  return v.get<int>();
}
std::string need_str(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = need(j, key, where);
  if (!v.is_string()) throw InputError(where, std::string(key) + ": not a string");
  return v.get<std::string>();
}

}  // namespace

nlohmann::ordered_json lt_model_json(const LtModel& m) {
  nlohmann::ordered_json cfgs = nlohmann::ordered_json::array();
  for (size_t i = 0; i < m.configs.size(); ++i) {
    const LtConfig& c = m.configs[i];
    nlohmann::ordered_json coef = nlohmann::ordered_json::array();
    for (double x : m.coef[i]) coef.push_back(x);
    cfgs.push_back({{"name", c.name}, {"algo", c.algo}, {"tile_id", c.tile_id}, {"stages_id", c.stages_id},
                    {"splitk", c.splitk}, {"reduction", c.reduction}, {"cta_swizzle", c.cta_swizzle},
                    {"custom", c.custom}, {"inner", c.inner}, {"cluster_id", c.cluster_id}, {"bm", c.bm},
                    {"bn", c.bn}, {"bk", c.bk}, {"stages", c.stages}, {"cluster", c.cluster},
                    {"max_refused_k_per_split", std::isfinite(m.max_refused_k_per_split[i])
                                                    ? nlohmann::ordered_json(m.max_refused_k_per_split[i])
                                                    : nlohmann::ordered_json(nullptr)},
                    {"coef", coef}});
  }
  nlohmann::ordered_json j{{"family", "gemm-cublaslt"}, {"gpu", m.gpu}, {"sms", m.sms}, {"source", m.source},
          {"features", {"W*L", "W", "G*L/SMs", "1", "bytes/1e8", "L", "splitK partial bytes/1e8"}},
          {"lambda", m.lambda}, {"keep_tolerance", m.keep_tolerance},
          {"keep_configs", m.keep_configs}, {"switch_margin", m.switch_margin},
          {"sampled_shapes", m.sampled_shapes}, {"pool_shapes", m.pool_shapes},
          {"configs", cfgs}};
  if (m.switch_neighbours > 0) {  // the neighbour gate's references: shapes and log(T / heuristic #0's T) per config
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : m.ref_log_ratio) {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (double x : r) row.push_back(std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr));
      rows.push_back(row);
    }
    j["switch_neighbours"] = m.switch_neighbours;
    j["ref_shapes"] = m.ref_shapes, j["ref_log_ratio"] = rows;
  }
  return j;
}

LtModel lt_model_from_json(const nlohmann::json& j, const std::string& where) {
  LtModel m;
  if (need_str(j, "family", where) != "gemm-cublaslt")
    throw InputError(where, "family: '" + j["family"].get<std::string>() + "' is not gemm-cublaslt");
  m.gpu = need_str(j, "gpu", where), m.source = need_str(j, "source", where), m.sms = need_int(j, "sms", where);
  if (m.sms <= 0) throw InputError(where, "sms: must be positive");
  const auto& l = need(j, "lambda", where);
  if (!l.is_number()) throw InputError(where, "lambda: not a number");
  m.lambda = l.get<double>();
  const auto& cfgs = need(j, "configs", where);
  if (!cfgs.is_array() || cfgs.empty()) throw InputError(where, "configs: not a non-empty array");
  for (size_t i = 0; i < cfgs.size(); ++i) {
    const auto& c = cfgs[i];
    const std::string w = where + ": configs[" + std::to_string(i) + "]";
    LtConfig x;
    x.name = need_str(c, "name", w), x.stages = need_str(c, "stages", w), x.cluster = need_str(c, "cluster", w);
    x.algo = need_int(c, "algo", w), x.tile_id = need_int(c, "tile_id", w), x.stages_id = need_int(c, "stages_id", w);
    x.splitk = need_int(c, "splitk", w), x.reduction = need_int(c, "reduction", w);
    x.cta_swizzle = need_int(c, "cta_swizzle", w), x.custom = need_int(c, "custom", w),
    x.inner = need_int(c, "inner", w);
    x.cluster_id = need_int(c, "cluster_id", w), x.bm = need_int(c, "bm", w), x.bn = need_int(c, "bn", w);
    x.bk = need_int(c, "bk", w);
    if (x.bm <= 0 || x.bn <= 0 || x.bk <= 0 || x.splitk <= 0) throw InputError(w, "bm/bn/bk/splitk: must be positive");
    const auto& mk = need(c, "max_refused_k_per_split", w);
    if (!mk.is_null() && !mk.is_number()) throw InputError(w, "max_refused_k_per_split: not a number or null");
    m.max_refused_k_per_split.push_back(mk.is_null() ? std::numeric_limits<double>::infinity() : mk.get<double>());
    const auto& co = need(c, "coef", w);
    if (!co.is_array() || co.size() != size_t(kLtFeatures))
      throw InputError(w, "coef: not " + std::to_string(kLtFeatures) + " numbers");
    LtCoef v{};
    for (size_t k = 0; k < v.size(); ++k) {
      if (!co[k].is_number() || !std::isfinite(co[k].get<double>())) throw InputError(w, "coef: not a finite number");
      v[k] = co[k].get<double>();
    }
    m.configs.push_back(x), m.coef.push_back(v);
  }
  if (j.contains("keep_tolerance") && j["keep_tolerance"].is_number()) m.keep_tolerance = j["keep_tolerance"];
  if (j.contains("keep_configs") && j["keep_configs"].is_number_integer()) m.keep_configs = j["keep_configs"];
  if (j.contains("switch_margin")) {
    if (!j["switch_margin"].is_number() || !(j["switch_margin"].get<double>() < 1))
      throw InputError(where, "switch_margin: not a number below 1 (-1: no hybrid with heuristic #0)");
    m.switch_margin = j["switch_margin"];
  }
  if (j.contains("switch_neighbours")) {
    const auto& k = j["switch_neighbours"];
    if (!k.is_number_integer() || k.get<int>() < 1 || k.get<int>() > 8)
      throw InputError(where, "switch_neighbours: not an integer in 1..8");
    m.switch_neighbours = k.get<int>();
    const auto& shapes = need(j, "ref_shapes", where);
    const auto& rows = need(j, "ref_log_ratio", where);
    if (!shapes.is_array() || !rows.is_array() || shapes.size() != rows.size())
      throw InputError(where, "ref_shapes / ref_log_ratio: not arrays of the same length");
    for (size_t r = 0; r < shapes.size(); ++r) {
      const auto& x = shapes[r];
      if (!x.is_array() || x.size() != 3 || !std::all_of(x.begin(), x.end(), [](const nlohmann::json& v) {
            return v.is_number_integer() && v.get<int64_t>() > 0;
          }))
        throw InputError(where, "ref_shapes[" + std::to_string(r) + "]: not three positive integers");
      m.ref_shapes.push_back({x[0].get<int64_t>(), x[1].get<int64_t>(), x[2].get<int64_t>()});
      if (!rows[r].is_array() || rows[r].size() != m.configs.size())
        throw InputError(where, "ref_log_ratio[" + std::to_string(r) + "]: not one entry per config");
      std::vector<double> row;
      for (const auto& v : rows[r]) {
        if (!v.is_null() && !v.is_number()) throw InputError(where, "ref_log_ratio: not a number or null");
        row.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
      }
      m.ref_log_ratio.push_back(std::move(row));
    }
  }
  if (j.contains("sampled_shapes") && j["sampled_shapes"].is_number_integer()) m.sampled_shapes = j["sampled_shapes"];
  if (j.contains("pool_shapes") && j["pool_shapes"].is_number_integer()) m.pool_shapes = j["pool_shapes"];
  return m;
}

LtModel load_lt_model(const std::string& path) {
  check_input_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(trace_io::read_all(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path,
                     std::string("not JSON (") + e.what() + "); refit with `loom tune --fit --family gemm-cublaslt`");
  }
  return lt_model_from_json(j, path);
}

std::string export_lt_header(const LtModel& m, const std::string& p) {
  // Every config, in the model's order (indices are decide_lt's); those a decision cannot choose (pruned, never
  // accepted on a sample) have the bound 1e300 and stay for heuristic #0's prediction in the hybrid.
  std::string up = p;
  for (char& ch : up) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  const size_t n = m.configs.size();
  std::vector<size_t> choosable;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(m.max_refused_k_per_split[i])) choosable.push_back(i);
  std::ostringstream o;
  o << "/* " << p << ".h: loom's wave-model tables for cuBLASLt algorithm selection on " << m.gpu << " (" << m.sms
    << " SMs), bf16 F.linear y = x W^T, fp32 compute, 32 MiB workspace; generated by `loom tune --export --family"
    << " gemm-cublaslt`; do not edit.\n"
    << "   Table 1: per-config T = coef . [W*L, W, G*L/SMs, 1, bytes/1e8, L, splitK partial bytes/1e8] and geometry;\n"
    << "   table 2: the cuBLASLt attributes that rebuild the config (cublasLtMatmulAlgoInit + ConfigSetAttribute).\n"
    << "   SWITCH_MARGIN >= 0: hybrid with heuristic #0; pass _pick the index of heuristic #0's config (_index_of its\n"
    << "   attributes) and run heuristic #0 when _pick returns -1. */\n"
    << "#ifndef " << up << "_H\n#define " << up << "_H\n#include <math.h>\n#include <stdint.h>\n\n"
    << "#define " << up << "_CONFIGS " << n << "\n#define " << up << "_CHOOSABLE " << choosable.size() << "\n#define "
    << up << "_SMS " << m.sms << "\n#define " << up << "_SWITCH_MARGIN " << num(m.switch_margin) << "\n"
    << "static const double " << p << "_switch_margin = " << up << "_SWITCH_MARGIN;\n\n";
  o << "static const char* const " << p << "_names[" << up << "_CONFIGS] = {\n";
  for (const auto& c : m.configs) o << "  \"" << c.name << "\",\n";
  o << "};\n/* bm, bn, bk, splitK */\nstatic const int64_t " << p << "_geom[" << up << "_CONFIGS][4] = {\n";
  for (const auto& c : m.configs)
    o << "  {" << std::max(1, c.bm) << ", " << std::max(1, c.bn) << ", " << std::max(1, c.bk) << ", "
      << std::max(1, c.splitk) << "},\n";
  o << "};\n/* validity: chosen only when K / splitK exceeds this (the largest refused on a sample; 1e300: never) */\n"
    << "static const double " << p << "_refused_k[" << up << "_CONFIGS] = {\n";
  for (double r : m.max_refused_k_per_split) o << "  " << (std::isfinite(r) ? num(r) : "1e300") << ",\n";
  o << "};\n/* the configs a decision may choose */\nstatic const int " << p << "_choosable[" << up
    << "_CHOOSABLE + 1] = {";
  for (size_t i = 0; i < choosable.size(); ++i) o << (i % 16 ? " " : "\n  ") << choosable[i] << ",";
  o << " -1};\n/* coefficients; all zero: not fitted (never ran on a sampled shape) */\nstatic const double " << p
    << "_coef[" << up << "_CONFIGS][7] = {\n";
  for (const auto& c : m.coef) {
    o << "  {";
    for (size_t j = 0; j < c.size(); ++j) o << (j ? ", " : "") << num(c[j]);
    o << "},\n";
  }
  o << "};\n/* algo id, tile id, stages id, splitK, reduction scheme, CTA swizzling, custom option, inner shape id,"
       " cluster shape id */\nstatic const int32_t "
    << p << "_attrs[" << up << "_CONFIGS][9] = {\n";
  for (const auto& c : m.configs)
    o << "  {" << c.algo << ", " << c.tile_id << ", " << c.stages_id << ", " << c.splitk << ", " << c.reduction << ", "
      << c.cta_swizzle << ", " << c.custom << ", " << c.inner << ", " << c.cluster_id << "},\n";
  const size_t refs = m.switch_neighbours > 0 && m.switch_margin >= 0 ? m.ref_shapes.size() : 0;
  o << "};\n\n/* Neighbour gate (NEIGHBOURS > 0): the sampled shapes in log2 (m, n, k) and, per choosable config,\n"
    << "   log(latency / heuristic #0's latency) measured there (1e300: refused). */\n#define " << up << "_NEIGHBOURS "
    << (refs ? m.switch_neighbours : 0) << "\n#define " << up << "_REFS " << refs << "\n";
  o << "static const double " << p << "_ref_shape[" << up << "_REFS + 1][3] = {\n";
  for (size_t r = 0; r < refs; ++r)
    o << "  {" << num(std::log2(double(m.ref_shapes[r][0]))) << ", " << num(std::log2(double(m.ref_shapes[r][1])))
      << ", " << num(std::log2(double(m.ref_shapes[r][2]))) << "},\n";
  o << "  {0, 0, 0}};\nstatic const double " << p << "_ref_ratio[" << up << "_REFS + 1][" << up
    << "_CHOOSABLE + 1] = {\n";
  for (size_t r = 0; r < refs; ++r) {
    o << "  {";
    for (size_t i : choosable) {
      const double x = m.ref_log_ratio[r][i];
      o << (std::isfinite(x) ? num(x) : "1e300") << ", ";
    }
    o << "0},\n";
  }
  o << "  {0}};\n";
  // Same integer geometry and floating-point order as decide_lt (src/wave/lt_model.cpp, lt_hybrid.cpp), so the
  // choices agree.
  o << "\n/* Predicted latency of config i for y[m,n] = x[m,k] W[n,k]^T. */\n"
    << "static inline double " << p << "_predict(int i, int64_t m, int64_t n, int64_t k) {\n"
    << "  const int64_t sms = " << std::max(1, m.sms) << ";\n"
    << "  const double dm = (double)m, dn = (double)n, dk = (double)k;\n"
    << "  const double bytes = 2.0 * (dn * dk + dm * dk + dm * dn) / 1e8, partial = 4.0 * dm * dn / 1e8;\n"
    << "  const int64_t* g4 = " << p << "_geom[i];\n  const int64_t sk = g4[3];\n"
    << "  const int64_t g = ((n + g4[0] - 1) / g4[0]) * ((m + g4[1] - 1) / g4[1]) * sk;\n"
    << "  const int64_t l = (k + sk * g4[2] - 1) / (sk * g4[2]), w = (g + sms - 1) / sms;\n"
    << "  double f[7], t = 0;\n  int j;\n"
    << "  f[0] = (double)(w * l); f[1] = (double)w; f[2] = (double)g * (double)l / (double)sms; f[3] = 1.0;\n"
    << "  f[4] = bytes; f[5] = (double)l; f[6] = sk > 1 ? partial * (double)sk : 0.0;\n"
    << "  for (j = 0; j < 7; ++j) t += " << p << "_coef[i][j] * f[j];\n  return t;\n}\n\n"
    << "/* Table index of a config given its nine attributes (as _attrs); -1: not in the tables. */\n"
    << "static inline int " << p << "_index_of(const int32_t* a) {\n  int i, j;\n"
    << "  for (i = 0; i < " << up << "_CONFIGS; ++i) {\n"
    << "    for (j = 0; j < 9 && " << p << "_attrs[i][j] == a[j]; ++j) {}\n    if (j == 9) return i;\n  }\n"
    << "  return -1;\n}\n\n"
    << "/* The config to run for y[m,n] = x[m,k] W[n,k]^T: the lowest predicted latency among the choosable configs\n"
    << "   the validity rule admits; with SWITCH_MARGIN >= 0 only when it beats heuristic #0's config (table index\n"
    << "   heur0, -1: not in the tables) by the margin. -1: none; run heuristic #0. */\n"
    << "static inline int " << p << "_pick(int64_t m, int64_t n, int64_t k, int heur0) {\n"
    << "  const double dk = (double)k, margin = " << up << "_SWITCH_MARGIN;\n"
    << "  double best_t = HUGE_VAL, t0 = 0;\n  int best = -1, c, i, j, fitted = 0;\n"
    << "  if (margin >= 0 && " << up << "_NEIGHBOURS > 0 && " << up << "_REFS > 0) {\n"
    << "    const int want = " << up << "_NEIGHBOURS < " << up << "_REFS ? " << up << "_NEIGHBOURS : " << up
    << "_REFS;\n"
    << "    const double lm = log2((double)m), ln = log2((double)n), lk = log2((double)k);\n"
    << "    double near_d[8] = {0}, best_v = log(1.0 - margin);\n    int near_i[8] = {0}, have = 0, r;\n"
    << "    (void)heur0;\n"
    << "    for (r = 0; r < " << up << "_REFS; ++r) {\n"
    << "      const double dx = lm - " << p << "_ref_shape[r][0], dy = ln - " << p << "_ref_shape[r][1], dz = lk - "
    << p << "_ref_shape[r][2];\n"
    << "      const double d = dx * dx + dy * dy + dz * dz;\n"
    << "      if (have == want && !(d < near_d[want - 1])) continue;\n"
    << "      j = have < want ? have++ : want - 1;\n"
    << "      for (; j > 0 && d < near_d[j - 1]; --j) { near_d[j] = near_d[j - 1]; near_i[j] = near_i[j - 1]; }\n"
    << "      near_d[j] = d; near_i[j] = r;\n    }\n"
    << "    for (c = 0; c < " << up << "_CHOOSABLE; ++c) {\n      double sum = 0, v;\n"
    << "      i = " << p << "_choosable[c];\n"
    << "      if (!(dk / (double)" << p << "_geom[i][3] > " << p << "_refused_k[i])) continue;\n"
    << "      for (j = 0; j < want; ++j) sum += " << p << "_ref_ratio[near_i[j]][c];\n"
    << "      v = sum / (double)want;\n"
    << "      if (v < best_v) { best_v = v; best = i; }\n    }\n    return best;\n  }\n"
    << "  for (c = 0; c < " << up << "_CHOOSABLE; ++c) {\n    double t;\n    i = " << p << "_choosable[c];\n"
    << "    if (!(dk / (double)" << p << "_geom[i][3] > " << p << "_refused_k[i])) continue;\n"
    << "    t = " << p << "_predict(i, m, n, k);\n"
    << "    if (t < best_t) { best_t = t; best = i; }\n  }\n"
    << "  if (margin < 0) return best;\n"
    << "  if (best < 0 || heur0 < 0 || heur0 >= " << up << "_CONFIGS) return -1;\n"
    << "  for (j = 0; j < 7; ++j) fitted |= " << p << "_coef[heur0][j] != 0.0;\n"
    << "  if (!fitted) return -1;\n"
    << "  t0 = " << p << "_predict(heur0, m, n, k);\n"
    << "  return best != heur0 && best_t < (1.0 - margin) * t0 ? best : -1;\n}\n\n#endif\n";
  return o.str();
}

std::string export_lt(const LtModel& m, const std::string& gpu_key, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, "cannot create the directory: " + ec.message());
  const std::string prefix = export_prefix(gpu_key, "gemm-cublaslt");
  const std::string h = (std::filesystem::path(dir) / (prefix + ".h")).string();
  const std::string js = (std::filesystem::path(dir) / (gpu_key + "-gemm-cublaslt.json")).string();
  write_file(h, export_lt_header(m, prefix));
  write_file(js, lt_model_json(m).dump(1) + "\n");
  return h + ", " + js;
}

}  // namespace loom::wave
