// Per-family transfer weights for unseen architectures (see transfer.h).
#include "learned/transfer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/error.h"
#include "core/file_io.h"
#include "hw/tensor_path.h"
#include "core/json_strict.h"
#include "hw/gpu_schema.h"  // gpu_architectures
#include "kernels/shape.h"  // family_names

namespace loom {

namespace {

constexpr double kGrid[] = {0.0, 0.25, 0.5, 0.75, 1.0};

bool is_arch_split(const std::string& split) { return split.rfind("arch:", 0) == 0; }

double blend(double learned_us, double analytical_us, double w) {
  if (w >= 1 || !(analytical_us > 0) || !(learned_us > 0)) return learned_us;
  return std::exp(w * std::log(learned_us) + (1 - w) * std::log(analytical_us));
}

}  // namespace

double TransferWeights::weight_for(const std::string& family, const std::string& architecture) const {
  auto w = weight.find(family);
  if (w == weight.end()) return 1.0;
  auto a = architectures.find(family);
  if (a != architectures.end() && a->second.count(architecture)) return 1.0;
  return w->second;
}

double TransferWeights::weight_or_prior(const std::string& family, const std::string& architecture) const {
  auto a = architectures.find(family);
  if (a != architectures.end() && a->second.size() == 1 && !a->second.count(architecture)) return 0.5;
  return weight_for(family, architecture);
}

std::string measured_architecture(const std::string& family, const GpuSpec& gpu) {
  const bool tensor_family = family == "gemm" || family == "moe" || family == "attention_prefill";
  return tensor_family && tensor_path_of(gpu.compute_capability) == TensorPath::tcgen05
             ? gpu.architecture + std::string(kTcgen05ArchSuffix)
             : gpu.architecture;
}

void TransferWeights::save(const std::string& dir) const {
  nlohmann::json j;
  j["schema"] = "loom-transfer 1";
  j["rule"] = "on an architecture a family was never measured on: learned^w x analytical^(1-w)";
  j["families"] = nlohmann::json::object();
  for (const auto& [fam, archs] : architectures)
    j["families"][fam] = {{"architectures", archs}, {"weight", weight.count(fam) ? weight.at(fam) : 1.0}};
  write_file((std::filesystem::path(dir) / "transfer.json").string(), j.dump(1) + "\n");
}

TransferWeights TransferWeights::load(const std::string& dir) {
  TransferWeights t;
  const std::string path = (std::filesystem::path(dir) / "transfer.json").string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return t;
  // A directory, device or named pipe is refused by what it is (a FIFO would hang).
  return from_text(read_data_file(path, "cannot read; check the file's permissions"), path);
}

TransferWeights TransferWeights::from_text(const std::string& text, const std::string& path) {
  TransferWeights t;
  const std::string retrain = "; retrain with `loom train` (or delete the file: every weight is then 1)";
  nlohmann::json j = parse_strict_json(text, path, StrictJsonMessages::for_hint(retrain));
  if (!j.is_object()) throw InputError(path, "must be a JSON object" + retrain);
  for (const auto& [key, v] : j.items())
    if (key != "schema" && key != "rule" && key != "families")
      throw InputError(path, "unknown key '" + key.substr(0, 80) + "' (expected schema, rule, families)" + retrain);
  if (j.contains("rule") && !j["rule"].is_string()) throw InputError(path, "'rule' must be a string" + retrain);
  if (!j.contains("schema") || !j["schema"].is_string() || j["schema"].get<std::string>() != "loom-transfer 1")
    throw InputError(path, "'schema' must be \"loom-transfer 1\"" + retrain);
  if (!j.contains("families") || !j["families"].is_object())
    throw InputError(path, "'families' must be an object of family -> {architectures, weight}" + retrain);
  const auto& known = family_names();
  for (const auto& [fam, f] : j["families"].items()) {
    const std::string where = "family '" + fam.substr(0, 80) + "'";
    if (std::find(known.begin(), known.end(), fam) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError(path, where + " is not a kernel family (" + list + ")" + retrain);
    }
    if (!f.is_object()) throw InputError(path, where + " must be an object {architectures, weight}" + retrain);
    for (const auto& [key, v] : f.items())
      if (key != "architectures" && key != "weight")
        throw InputError(path, where + ": unknown key '" + key.substr(0, 80) + "' (expected architectures, weight)" +
                                   retrain);
    if (!f.contains("weight") || !f["weight"].is_number())
      throw InputError(path, where + ": 'weight' must be a number in [0, 1]" + retrain);
    const double w = f["weight"].get<double>();
    if (!(w >= 0 && w <= 1)) throw InputError(path, where + ": weight must lie in [0, 1]");
    if (!f.contains("architectures") || !f["architectures"].is_array() ||
        !std::all_of(f["architectures"].begin(), f["architectures"].end(), [](const auto& a) { return a.is_string(); }))
      throw InputError(path, where + ": 'architectures' must be a list of architecture names" + retrain);
    // A typo ("hoper") read as "never measured there": the family's weight silently applied on the measured GPUs.
    const auto& archs = gpu_architectures();
    for (const auto& a : f["architectures"]) {
      const std::string name = a.get<std::string>();
      const size_t n = kTcgen05ArchSuffix.size();  // measured_architecture's sm_100 key names its base architecture
      const std::string base =
          name.size() > n && name.compare(name.size() - n, n, kTcgen05ArchSuffix) == 0 ? name.substr(0, name.size() - n)
                                                                                       : name;
      if (std::find(archs.begin(), archs.end(), base) == archs.end())
        throw InputError(path, where + ": unknown architecture '" + name.substr(0, 80) +
                                   "' (expected pascal, volta, turing, ampere, ada, hopper or blackwell)" + retrain);
      if (!t.architectures[fam].insert(name).second)
        throw InputError(path, where + ": architecture '" + name + "' is listed twice" + retrain);
    }
    t.architectures[fam];  // an empty list: measured nowhere
    if (w < 1) t.weight[fam] = w;
  }
  return t;
}

std::map<std::string, double> choose_transfer_weights(const ValidationReport& rep, const std::string& except) {
  // Sum of APE and count per (family, architecture, grid weight).
  std::map<std::pair<std::string, std::string>, std::array<double, 6>> acc;  // 5 APE sums, then the count
  for (const auto& p : rep.points) {
    if (!is_arch_split(p.split) || !(p.measured_us > 0)) continue;
    const std::string arch = p.split.substr(5);
    if (arch == except) continue;
    auto& a = acc[{p.family, arch}];
    for (size_t k = 0; k < 5; ++k)
      a[k] += std::fabs(blend(p.learned_us, p.analytical_us, kGrid[k]) - p.measured_us) / p.measured_us;
    a[5] += 1;
  }
  std::map<std::string, std::array<double, 5>> per_family;  // mean over architectures of each weight's MAPE
  for (const auto& [key, a] : acc)
    for (size_t k = 0; k < 5; ++k) per_family[key.first][k] += a[k] / a[5];
  std::map<std::string, double> out;
  for (const auto& [fam, m] : per_family) {
    size_t best = 4;  // ties keep the learned model
    for (size_t k = 0; k < 4; ++k)
      if (m[k] < m[best]) best = k;
    out[fam] = kGrid[best];
  }
  return out;
}

std::map<std::string, double> blend_unseen_architectures(ValidationReport& rep) {
  std::map<std::string, std::map<std::string, double>> loo;  // architecture -> weights chosen without it
  for (const auto& s : rep.splits)
    if (is_arch_split(s.split)) loo[s.split.substr(5)] = choose_transfer_weights(rep, s.split.substr(5));
  const std::map<std::string, double> all = choose_transfer_weights(rep);
  using Key = std::tuple<std::string, std::string, std::string, int>;  // split, family, gpu, sms
  std::map<Key, std::array<std::vector<double>, 2>> groups;              // learned, measured
  std::map<std::string, std::array<std::vector<double>, 2>> splits;
  for (auto& p : rep.points) {
    if (!is_arch_split(p.split)) continue;
    const auto& w = loo[p.split.substr(5)];
    const auto it = w.find(p.family);
    if (it != w.end()) p.learned_us = blend(p.learned_us, p.analytical_us, it->second);
    auto& g = groups[{p.split, p.family, p.gpu, p.sms}];
    g[0].push_back(p.learned_us), g[1].push_back(p.measured_us);
    auto& s = splits[p.split];
    s[0].push_back(p.learned_us), s[1].push_back(p.measured_us);
    rep.worst.push_back({p.spec, p.gpu, p.sms, p.measured_us, p.learned_us,
                         100.0 * std::fabs(p.learned_us - p.measured_us) / p.measured_us});
  }
  for (auto& s : rep.splits)
    if (auto it = splits.find(s.split); it != splits.end()) s.learned = error_stats(it->second[0], it->second[1]);
  for (auto& g : rep.groups)
    if (auto it = groups.find({g.split, g.family, g.gpu, g.sms}); it != groups.end())
      g.learned = error_stats(it->second[0], it->second[1]);
  return all;
}

}  // namespace loom
