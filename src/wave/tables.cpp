// JSON form of the tuning tables (models/tune/<gpu>-<family>.json): writer, strict reader, file helpers.
#include "wave/tables.h"
#include "wave/config_model.h"

#include <filesystem>

#include "core/error.h"
#include "core/json_strict.h"
#include "core/file_io.h"
#include "hw/catalog.h"

namespace loom::wave {
namespace {

using ojson = nlohmann::ordered_json;

ojson fit_json(const BilinearFit& f) {
  return ojson{{"a", f.a}, {"b", f.b}, {"c", f.c}, {"d", f.d}, {"terms", f.terms}, {"samples", f.samples},
               {"r2", f.r2}, {"rel_rms", f.rel_rms}, {"max_rel_err", f.max_rel_err}, {"min_us", f.min_us},
               {"mean_waves", f.mean_waves}};
}

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw InputError(where, std::string("missing field '") + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(where, std::string("field '") + key + "' has the wrong type");
  }
}

}  // namespace

std::string tables_path(const std::string& gpu, const std::string& family) {
  // The tables are per catalogue GPU: a YAML path made "models/tune/gpus/x.yaml-gemm.json" and a wrong refusal.
  if (gpu.find('/') != std::string::npos || gpu.ends_with(".yaml") || gpu.ends_with(".yml"))
    throw InputError("--gpu", "'" + gpu.substr(0, 80) + "' is a GPU file; tuning tables are per catalogue GPU "
                              "(models/tune/<key>-<family>.json): give the catalogue key (see `loom gpus`)");
  return data_dir() + "/models/tune/" + gpu + "-" + family + ".json";
}

nlohmann::ordered_json tables_to_json(const TuneTables& t) {
  ojson j;
  j["loom_tune_tables"] = t.version;
  j["gpu"] = t.gpu, j["family"] = t.family, j["sms"] = t.sms, j["default_config"] = t.default_config;
  j["provenance"] = ojson{{"pool_shapes", t.pool_shapes}, {"sampled_shapes", t.sampled_shapes},
                          {"samples", t.samples}, {"exhaustive_points", t.exhaustive_points}};
  ojson cfgs = ojson::array();
  for (const auto& c : t.configs)
    cfgs.push_back(ojson{{"name", c.name}, {"macro", c.macro}, {"micro", c.micro}, {"bm", c.bm}, {"bn", c.bn},
                         {"bk", c.bk}, {"stages", c.stages}, {"warps", c.warps}, {"regs_per_thread", c.regs_per_thread},
                         {"smem_bytes", c.smem_bytes}, {"ctas_per_sm", c.ctas_per_sm}});
  j["configs"] = cfgs;
  ojson macros = ojson::array();
  for (const auto& m : t.macros) {
    ojson fits = ojson::array(), micros = ojson::array();
    for (const auto& b : m.fits) {
      ojson e{{"bucket", b.bucket}, {"min_waves", b.min_waves}, {"max_waves", b.max_waves}};
      e["fit"] = fit_json(b.fit);
      fits.push_back(e);
    }
    for (const auto& u : m.micros)
      micros.push_back(ojson{{"bucket", u.bucket}, {"anchor", u.anchor}, {"config", u.config}, {"samples", u.samples}});
    macros.push_back(ojson{{"macro", m.macro}, {"bm", m.bm}, {"bn", m.bn}, {"bk", m.bk},
                           {"ctas_per_sm", m.ctas_per_sm}, {"configs", m.configs}, {"table1", fits},
                           {"table2", micros}});
  }
  j["wave_bucket_edges"] = wave_bucket_edges();
  j["macros"] = macros;
  j["sampled"] = t.sampled;
  if (!t.config_model.coef.empty()) j["config_model"] = config_model_json(t.config_model, t.configs, base_family(t.family) == "moe");
  return j;
}

TuneTables tables_from_json(const nlohmann::json& j, const std::string& where) {
  TuneTables t;
  if (!j.is_object() || !j.contains("loom_tune_tables"))
    throw InputError(where, "not a loom tune table (no 'loom_tune_tables' field)");
  t.version = field<int>(j, "loom_tune_tables", where);
  if (t.version != 1) throw InputError(where, "unsupported tune table version " + std::to_string(t.version));
  if (field<std::vector<int64_t>>(j, "wave_bucket_edges", where) != wave_bucket_edges())
    throw InputError(where, "wave buckets differ from this loom's; re-run `loom tune --fit`");
  t.gpu = field<std::string>(j, "gpu", where), t.family = field<std::string>(j, "family", where);
  check_tune_family(t.family, where);
  t.sms = field<int>(j, "sms", where);
  t.default_config = field<std::string>(j, "default_config", where);
  const auto p = field<nlohmann::json>(j, "provenance", where);
  t.pool_shapes = field<int64_t>(p, "pool_shapes", where),
  t.sampled_shapes = field<int64_t>(p, "sampled_shapes", where);
  t.samples = field<int64_t>(p, "samples", where), t.exhaustive_points = field<int64_t>(p, "exhaustive_points", where);
  for (const auto& c : field<nlohmann::json>(j, "configs", where)) {
    TuneConfig tc = parse_tune_config(t.family, field<std::string>(c, "name", where), where);
    tc.regs_per_thread = field<int>(c, "regs_per_thread", where);
    tc.ctas_per_sm = field<int>(c, "ctas_per_sm", where);
    t.configs.push_back(tc);
  }
  for (const auto& m : field<nlohmann::json>(j, "macros", where)) {
    MacroTable mt;
    mt.macro = field<std::string>(m, "macro", where);
    mt.bm = field<int>(m, "bm", where), mt.bn = field<int>(m, "bn", where), mt.bk = field<int>(m, "bk", where);
    mt.ctas_per_sm = field<int>(m, "ctas_per_sm", where);
    mt.configs = field<std::vector<std::string>>(m, "configs", where);
    for (const auto& e : field<nlohmann::json>(m, "table1", where)) {
      BucketEntry b;
      b.bucket = field<int>(e, "bucket", where);
      b.min_waves = field<int64_t>(e, "min_waves", where), b.max_waves = field<int64_t>(e, "max_waves", where);
      const auto& f = field<nlohmann::json>(e, "fit", where);
      b.fit.a = field<double>(f, "a", where), b.fit.b = field<double>(f, "b", where);
      b.fit.c = field<double>(f, "c", where), b.fit.d = field<double>(f, "d", where);
      b.fit.terms = field<int>(f, "terms", where), b.fit.samples = field<int>(f, "samples", where);
      b.fit.r2 = field<double>(f, "r2", where), b.fit.rel_rms = field<double>(f, "rel_rms", where);
      b.fit.max_rel_err = field<double>(f, "max_rel_err", where), b.fit.min_us = field<double>(f, "min_us", where);
      b.fit.mean_waves = field<double>(f, "mean_waves", where);
      if (b.bucket < 0 || b.bucket >= int(wave_bucket_edges().size()))
        throw InputError(where, "table1 bucket " + std::to_string(b.bucket) + " out of range");
      mt.fits.push_back(b);
    }
    for (const auto& e : field<nlohmann::json>(m, "table2", where)) {
      MicroEntry u;
      u.bucket = field<int>(e, "bucket", where), u.anchor = field<int>(e, "anchor", where);
      u.config = field<std::string>(e, "config", where), u.samples = field<int>(e, "samples", where);
      if (u.bucket < 0 || u.bucket >= int(wave_bucket_edges().size()) || u.anchor < 0 || u.anchor >= kLAnchors)
        throw InputError(where, "table2 cell out of range");
      mt.micros.push_back(u);
    }
    t.macros.push_back(mt);
  }
  t.sampled = field<std::vector<std::string>>(j, "sampled", where);
  if (j.contains("config_model")) t.config_model = config_model_from_json(j["config_model"], t.configs, where,
                                                                        base_family(t.family) == "moe");
  if (t.macros.empty()) throw InputError(where, "tune table has no macro configs");
  return t;
}

void save_tables(const TuneTables& t, const std::string& path) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  write_file(path, tables_to_json(t).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

TuneTables load_tables(const std::string& path, const std::string& gpu, const std::string& family) {
  const std::string text = read_input_file(
      path, "no tuning tables" + (gpu.empty() ? std::string() : " for " + gpu + " " + family) +
                "; run `loom tune --fit --traces traces/ --gpu " + (gpu.empty() ? "GPU" : gpu) + " --family " +
                (family.empty() ? "gemm|moe" : family) + "` first");
  const std::string not_json = "not valid JSON; re-run `loom tune --fit`";
  const nlohmann::json j = parse_strict_json(
      text, path, {"; JSON readers disagree on which value wins: give it once", 60, not_json, false, not_json});
  TuneTables t = tables_from_json(j, path);
  // Another GPU's or family's tables (--tables FILE) would answer with the wrong kernels' measurements, or divide by
  // fields the family does not fill: the file must be for the GPU and family asked about.
  if (!gpu.empty() && t.gpu != gpu)
    throw InputError(path, "holds tuning tables for GPU '" + t.gpu.substr(0, 60) + "', not '" + gpu +
                               "'; give that GPU's tables (models/tune/" + gpu + "-" + family + ".json)");
  if (!family.empty() && t.family != family)
    throw InputError(path, "holds tuning tables for family '" + t.family.substr(0, 60) + "', not '" + family +
                               "'; give the " + family + " tables (models/tune/" + gpu + "-" + family + ".json)");
  return t;
}

}  // namespace loom::wave
