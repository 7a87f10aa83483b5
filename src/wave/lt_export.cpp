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
  return {{"family", "gemm-cublaslt"}, {"gpu", m.gpu}, {"sms", m.sms}, {"source", m.source},
          {"features", {"W*L", "W", "G*L/SMs", "1", "bytes/1e8", "L", "splitK partial bytes/1e8"}},
          {"lambda", m.lambda}, {"keep_tolerance", m.keep_tolerance},
          {"keep_configs", m.keep_configs}, {"sampled_shapes", m.sampled_shapes}, {"pool_shapes", m.pool_shapes},
          {"configs", cfgs}};
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
    x.cta_swizzle = need_int(c, "cta_swizzle", w), x.custom = need_int(c, "custom", w), x.inner = need_int(c, "inner", w);
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
    throw InputError(path, std::string("not JSON (") + e.what() + "); refit with `loom tune --fit --family gemm-cublaslt`");
  }
  return lt_model_from_json(j, path);
}

std::string export_lt_header(const LtModel& full, const std::string& p) {
  LtModel m = full;  // only the configs a decision can choose (pruned ones have a +inf validity bound)
  m.configs.clear(), m.coef.clear(), m.max_refused_k_per_split.clear();
  for (size_t i = 0; i < full.configs.size(); ++i)
    if (std::isfinite(full.max_refused_k_per_split[i]))
      m.configs.push_back(full.configs[i]), m.coef.push_back(full.coef[i]),
          m.max_refused_k_per_split.push_back(full.max_refused_k_per_split[i]);
  std::string up = p;
  for (char& ch : up) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  const size_t n = m.configs.size();
  std::ostringstream o;
  o << "/* " << p << ".h: loom's wave-model tables for cuBLASLt algorithm selection on " << m.gpu << " (" << m.sms
    << " SMs), bf16 F.linear y = x W^T, fp32 compute, 32 MiB workspace; generated by `loom tune --export --family"
    << " gemm-cublaslt`; do not edit.\n"
    << "   Table 1: per-config T = coef . [W*L, W, G*L/SMs, 1, bytes/1e8, L, splitK partial bytes/1e8] and geometry;\n"
    << "   table 2: the cuBLASLt attributes that rebuild the config (cublasLtMatmulAlgoInit + ConfigSetAttribute). */\n"
    << "#ifndef " << up << "_H\n#define " << up << "_H\n#include <math.h>\n#include <stdint.h>\n\n"
    << "#define " << up << "_CONFIGS " << n << "\n#define " << up << "_SMS " << m.sms << "\n\n";
  o << "static const char* const " << p << "_names[" << up << "_CONFIGS] = {\n";
  for (const auto& c : m.configs) o << "  \"" << c.name << "\",\n";
  o << "};\n/* bm, bn, bk, splitK */\nstatic const int64_t " << p << "_geom[" << up << "_CONFIGS][4] = {\n";
  for (const auto& c : m.configs)
    o << "  {" << std::max(1, c.bm) << ", " << std::max(1, c.bn) << ", " << std::max(1, c.bk) << ", "
      << std::max(1, c.splitk) << "},\n";
  o << "};\n/* validity: chosen only when K / splitK exceeds this (the largest refused on a sample; 1e300: never) */\n"
    << "static const double " << p << "_refused_k[" << up << "_CONFIGS] = {\n";
  for (double r : m.max_refused_k_per_split) o << "  " << (std::isfinite(r) ? num(r) : "1e300") << ",\n";
  o << "};\nstatic const double " << p << "_coef[" << up << "_CONFIGS][7] = {\n";
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
  // Same integer geometry and floating-point order as decide_lt (src/wave/lt_model.cpp), so the choices agree.
  o << "};\n\n/* Index of the config with the lowest predicted latency for y[m,n] = x[m,k] W[n,k]^T; -1: none. */\n"
    << "static inline int " << p << "_pick(int64_t m, int64_t n, int64_t k) {\n"
    << "  const int64_t sms = " << std::max(1, m.sms) << ";\n"
    << "  const double dm = (double)m, dn = (double)n, dk = (double)k;\n"
    << "  const double bytes = 2.0 * (dn * dk + dm * dk + dm * dn) / 1e8, partial = 4.0 * dm * dn / 1e8;\n"
    << "  double best_t = HUGE_VAL;\n  int best = -1, i, j;\n"
    << "  for (i = 0; i < " << up << "_CONFIGS; ++i) {\n"
    << "    const int64_t* g4 = " << p << "_geom[i];\n"
    << "    const int64_t sk = g4[3];\n"
    << "    int64_t g, l, w;\n    double f[7], t = 0;\n"
    << "    if (!(dk / (double)sk > " << p << "_refused_k[i])) continue;\n"
    << "    g = ((n + g4[0] - 1) / g4[0]) * ((m + g4[1] - 1) / g4[1]) * sk;\n"
    << "    l = (k + sk * g4[2] - 1) / (sk * g4[2]);\n    w = (g + sms - 1) / sms;\n"
    << "    f[0] = (double)(w * l); f[1] = (double)w; f[2] = (double)g * (double)l / (double)sms; f[3] = 1.0;\n"
    << "    f[4] = bytes; f[5] = (double)l; f[6] = sk > 1 ? partial * (double)sk : 0.0;\n"
    << "    for (j = 0; j < 7; ++j) t += " << p << "_coef[i][j] * f[j];\n"
    << "    if (t < best_t) { best_t = t; best = i; }\n  }\n  return best;\n}\n\n#endif\n";
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
