// Strict reader of the measured collective fits (models/collectives.json, written by `loom trace fit-collectives`):
// a key given twice, an unknown key, a bandwidth that is not a positive number or a fit given twice is refused with
// FILE[:LINE] and the fit, never read as one of the values (nlohmann keeps the last duplicate silently).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_strict.h"
#include "learned/collectives.h"

namespace loom {

namespace {

const char* const kRefit = "; rerun `loom trace fit-collectives`";

double number(const nlohmann::json& x, const std::string& key, const std::string& path, const std::string& where,
              double lo) {
  if (!x.contains(key) || !x[key].is_number())
    throw InputError(path, where + ": '" + key + "' must be a number" + kRefit);
  const double v = x[key].get<double>();
  if (!std::isfinite(v) || v < lo) throw InputError(path, where + ": '" + key + "' is out of range" + kRefit);
  return v;
}

std::string text(const nlohmann::json& x, const std::string& key, const std::string& path, const std::string& where) {
  if (!x.contains(key) || !x[key].is_string())
    throw InputError(path, where + ": '" + key + "' must be a string" + kRefit);
  return x[key].get<std::string>();
}

void only_keys(const nlohmann::json& x, std::initializer_list<const char*> keys, const std::string& path,
               const std::string& where) {
  for (const auto& item : x.items()) {  // no structured binding: clang 14 refuses one captured by the lambda
    const std::string& k = item.key();
    if (std::none_of(keys.begin(), keys.end(), [&](const char* w) { return k == w; }))
      throw InputError(path, where + ": unknown key '" + k.substr(0, 80) + "'" + kRefit);
  }
}

AlphaBeta segment(const nlohmann::json& x, const std::string& key, const std::string& path, const std::string& where) {
  if (!x.contains(key) || !x[key].is_object())
    throw InputError(path, where + ": '" + key + "' must be an object {alpha_us, busbw_GBps}" + kRefit);
  only_keys(x[key], {"alpha_us", "busbw_GBps"}, path, where + " " + key);
  const double alpha = number(x[key], "alpha_us", path, where + " " + key, 0);
  const double bw = number(x[key], "busbw_GBps", path, where + " " + key, 0);
  if (!(bw > 0)) throw InputError(path, where + " " + key + ": 'busbw_GBps' must be > 0" + kRefit);
  return {alpha, bw * 1e9};
}

}  // namespace

CollectiveModel CollectiveModel::load(const std::string& path) {
  return from_text(read_data_file(path, "cannot read; run `loom trace fit-collectives`"), path);
}

CollectiveModel CollectiveModel::from_text(const std::string& body, const std::string& path) {
  nlohmann::json j = parse_strict_json(body, path, StrictJsonMessages::for_hint(kRefit));
  if (!j.is_object() || !j.contains("fits") || !j["fits"].is_array())
    throw InputError(path, std::string("must be an object with a 'fits' list") + kRefit);
  only_keys(j, {"about", "fits"}, path, "top level");
  CollectiveModel m;
  std::set<std::tuple<std::string, std::string, std::string, std::string, int>> seen;
  for (const auto& x : j["fits"]) {
    const std::string where = "fit " + std::to_string(m.fits.size() + 1);
    if (!x.is_object()) throw InputError(path, where + " must be an object" + kRefit);
    only_keys(x,
              {"op", "impl", "gpu", "architecture", "topology", "gpus", "link", "link_GBps", "break_bytes", "small",
               "large", "points", "fit_mape_small_pct", "fit_mape_large_pct"},
              path, where);
    CollectiveFit f;
    f.op = x.contains("op") ? text(x, "op", path, where) : "all_reduce";
    if (std::find(collective_ops().begin(), collective_ops().end(), f.op) == collective_ops().end())
      throw InputError(path, where + ": op '" + f.op.substr(0, 40) +
                                 "' is not all_reduce, all_gather, reduce_scatter or send_recv" + kRefit);
    f.impl = x.contains("impl") ? text(x, "impl", path, where) : "nccl";
    if (f.impl != "nccl" && f.impl != "custom")
      throw InputError(path, where + ": impl '" + f.impl.substr(0, 40) + "' is not nccl or custom" + kRefit);
    f.gpu_key = text(x, "gpu", path, where), f.architecture = text(x, "architecture", path, where);
    f.topology = text(x, "topology", path, where), f.link = text(x, "link", path, where);
    const std::string at = where + " (" + f.gpu_key.substr(0, 40) + ")";
    const double gpus = number(x, "gpus", path, at, 2);
    if (gpus != std::floor(gpus) || gpus > 1024)
      throw InputError(path, at + ": 'gpus' must be an integer >= 2" + kRefit);
    f.gpus = int(gpus);
    f.link_bytes_per_s = number(x, "link_GBps", path, at, 0) * 1e9;
    f.break_bytes = int64_t(std::min(number(x, "break_bytes", path, at, 0), 9e18));
    f.small = segment(x, "small", path, at), f.large = segment(x, "large", path, at);
    f.points = size_t(std::min(number(x, "points", path, at, 0), 1e9));
    f.mape_small = number(x, "fit_mape_small_pct", path, at, 0);
    f.mape_large = number(x, "fit_mape_large_pct", path, at, 0);
    if (!seen.insert({f.op, f.impl, f.gpu_key, f.topology, f.gpus}).second)
      throw InputError(path, at + ": a second fit for " + f.op + " " + f.impl + " on " + f.topology + " with " +
                                 std::to_string(f.gpus) + " GPUs; keep one" + kRefit);
    m.fits.push_back(f);
  }
  return m;
}

}  // namespace loom
