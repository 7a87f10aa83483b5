// Coverage of the training corpus and held-out error bands (coverage.json), and the per-prediction assessment.
#include "learned/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "learned/transfer.h"
#include "core/json_strict.h"
#include "kernels/shape.h"  // family_names
#include "learned/model.h"

namespace loom {
namespace {

ResidualBand band(std::vector<double> r) {
  ResidualBand b;
  b.n = r.size();
  if (r.empty()) return b;
  std::sort(r.begin(), r.end());
  auto q = [&](double p) {
    const double pos = p * double(r.size() - 1);
    const size_t i = size_t(pos);
    const double f = pos - double(i);
    return i + 1 < r.size() ? r[i] * (1 - f) + r[i + 1] * f : r[i];
  };
  b.lo = q(0.1);
  b.hi = q(0.9);
  return b;
}

nlohmann::json band_json(const ResidualBand& b) { return {{"n", b.n}, {"log_lo", b.lo}, {"log_hi", b.hi}}; }

ResidualBand band_from(const nlohmann::json& j, const std::string& path, const std::string& where) {
  const std::string retrain = "; retrain with `loom train`";
  if (!j.is_object() || j.size() != 3 || !j.contains("n") || !j.contains("log_lo") || !j.contains("log_hi"))
    throw InputError(path, where + " must be an object {n, log_lo, log_hi}" + retrain);
  if (!j["n"].is_number_unsigned() || !j["log_lo"].is_number() || !j["log_hi"].is_number())
    throw InputError(path, where + ": n must be a count and log_lo, log_hi numbers" + retrain);
  const ResidualBand b{j["n"].get<size_t>(), j["log_lo"].get<double>(), j["log_hi"].get<double>()};
  if (!std::isfinite(b.lo) || !std::isfinite(b.hi) || b.lo > b.hi || b.hi > 20 || b.lo < -20)
    throw InputError(path, where + ": log_lo <= log_hi, both finite and within +-20" + retrain);
  return b;
}

}  // namespace

Coverage Coverage::from(const Dataset& ds, const ValidationReport& rep) {
  Coverage c;
  for (const auto& s : ds.samples) {
    auto& f = c.families[s.m.family];
    f.architectures.insert(s.architecture);
    f.gpus.insert(s.m.gpu_key);
    f.impls.insert(impl_class(s.m.impl));
    ++f.kernels;
  }
  std::map<std::string, std::vector<double>> shapes, arch;
  for (const auto& p : rep.points) {
    if (!(p.learned_us > 0) || !(p.measured_us > 0)) continue;
    const double r = std::log(p.measured_us / p.learned_us);
    if (p.split == "shapes") shapes[p.family].push_back(r);
    else if (p.split.rfind("arch:", 0) == 0) arch[p.family].push_back(r);
  }
  for (auto& [fam, f] : c.families) {
    f.shapes = band(shapes[fam]);
    f.unseen_arch = band(arch[fam]);
  }
  return c;
}

void Coverage::save(const std::string& dir) const {
  nlohmann::json j;
  j["schema"] = "loom-coverage 1";
  for (const auto& [fam, f] : families)
    j["families"][fam] = {{"architectures", f.architectures}, {"gpus", f.gpus},          {"impls", f.impls},
                          {"kernels", f.kernels},             {"shapes", band_json(f.shapes)},
                          {"unseen_architecture", band_json(f.unseen_arch)}};
  write_file((std::filesystem::path(dir) / "coverage.json").string(), j.dump(1) + "\n");
}

Coverage Coverage::load(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "coverage.json").string();
  return from_text(
      read_data_file(path, "missing; retrain with `loom train` (it writes the coverage the interval needs)"), path);
}

Coverage Coverage::from_text(const std::string& text, const std::string& path) {
  const std::string retrain = "; retrain with `loom train`";
  const std::string not_coverage = "not a coverage file (schema loom-coverage 1, families)" + retrain;
  // Unlike the other learned-model readers, a duplicate key here says no "give it once", and text that is not JSON
  // is "not a coverage file" at the file (no line).
  nlohmann::json j = parse_strict_json(text, path, {retrain, 80, not_coverage, false, not_coverage});
  if (!j.is_object() || !j.contains("schema") || j["schema"] != "loom-coverage 1" || !j.contains("families") ||
      !j["families"].is_object() || j.size() != 2)
    throw InputError(path, not_coverage);
  Coverage c;
  const auto& known = family_names();
  for (const auto& [fam, f] : j["families"].items()) {
    const std::string where = "family '" + fam.substr(0, 80) + "'";
    if (std::find(known.begin(), known.end(), fam) == known.end())
      throw InputError(path, where + " is not a kernel family" + retrain);
    const bool keys = f.is_object() && f.size() == 6 && f.contains("architectures") && f.contains("gpus") &&
                      f.contains("impls") && f.contains("kernels") && f.contains("shapes") &&
                      f.contains("unseen_architecture");
    if (!keys) throw InputError(path, where + " must hold architectures, gpus, impls, kernels, "
                                                                        "shapes, unseen_architecture" + retrain);
    FamilyCoverage fc;
    try {
      fc.architectures = f.at("architectures").get<std::set<std::string>>();
      fc.gpus = f.at("gpus").get<std::set<std::string>>();
      fc.impls = f.at("impls").get<std::set<std::string>>();
      if (!f.at("kernels").is_number_unsigned()) throw InputError(path, where + ": kernels must be a count" + retrain);
      fc.kernels = f.at("kernels").get<size_t>();
    } catch (const nlohmann::json::exception&) {
      throw InputError(path, where + ": architectures, gpus and impls must be lists of names, kernels a count" +
                                 retrain);
    }
    fc.shapes = band_from(f.at("shapes"), path, where + " shapes");
    fc.unseen_arch = band_from(f.at("unseen_architecture"), path, where + " unseen_architecture");
    c.families[fam] = std::move(fc);
  }
  return c;
}

Uncertainty assess(const Coverage& cov, const std::string& family, const std::string& architecture,
                   const std::string& gpu_key, const std::string& impl, double latency_us) {
  Uncertainty u;
  auto it = cov.families.find(family);
  if (it == cov.families.end()) {
    // No measured kernel of the family: the analytical model alone, which validation puts within 2x.
    u.extrapolated = true;
    u.reasons.push_back("extrapolated: no measured " + family + " kernels");
    u.lo_us = latency_us * 0.5;
    u.hi_us = latency_us * 2.0;
    return u;
  }
  const FamilyCoverage& f = it->second;
  ResidualBand b = f.shapes;
  if (!f.architectures.count(architecture)) {
    u.extrapolated = true;
    u.reasons.push_back("extrapolated: no measured " + architecture + " " + family + " kernels");
    // Errors seen when a whole architecture was held out; at least as wide as the in-distribution band. A family
    // measured on one architecture only was held out whole by its arch: split (no kernel of it left to train on),
    // which says nothing of its forest on another architecture: the no-data band (x0.5-x2) instead.
    if (f.architectures.size() == 1) b = {b.n, std::min(b.lo, std::log(0.5)), std::max(b.hi, std::log(2.0))};
    else if (f.unseen_arch.n > 0)
      b = {f.unseen_arch.n, std::min(b.lo, f.unseen_arch.lo), std::max(b.hi, f.unseen_arch.hi)};
  } else if (!f.gpus.count(gpu_key)) {
    u.reasons.push_back("note: no measured " + family + " kernels on " + gpu_key + " (its architecture is)");
  }
  if (!f.impls.count(impl)) {
    u.extrapolated = true;
    u.reasons.push_back("extrapolated: no measured " + impl + " " + family + " kernels");
  }
  if (b.n == 0) b = {0, std::log(0.5), std::log(2.0)};
  u.lo_us = latency_us * std::exp(b.lo);
  u.hi_us = latency_us * std::exp(b.hi);
  return u;
}

Uncertainty assess_prediction(const Coverage* cov, const Prediction& p, const GpuSpec& gpu, const KernelSpec& spec) {
  auto it = spec.params.find("impl");
  const std::string impl = impl_class(it != spec.params.end() ? it->second : default_impl(p.analysis->family));
  if (p.collective) {  // measured all_reduce fits: their own error band, or x0.5-x2 when extrapolated
    Uncertainty u;
    const double b = p.collective->band_pct / 100;
    u.extrapolated = !p.collective->extrapolation.empty();
    u.lo_us = p.latency_us * (u.extrapolated ? 0.5 : std::max(0.0, 1 - b));
    u.hi_us = p.latency_us * (u.extrapolated ? 2.0 : 1 + b);
    u.reasons = {u.extrapolated ? p.collective->extrapolation
                                : "note: measured " + p.analysis->family + " (" + p.collective->basis +
                                      "), band = its mean error"};
    return u;
  }
  const std::string arch = measured_architecture(p.analysis->family, gpu);
  if (cov && p.model == "learned") return assess(*cov, p.analysis->family, arch, gpu.name, impl, p.latency_us);
  Uncertainty u = assess(Coverage{}, p.analysis->family, arch, gpu.name, impl, p.latency_us);
  u.reasons = {"extrapolated: no learned model for " + p.analysis->family + " (analytical model only)"};
  return u;
}

}  // namespace loom
