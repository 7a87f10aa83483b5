// Strict reader of a model directory's model.json (see model_index.h).
#include "learned/model_index.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "core/json_strict.h"
#include "kernels/shape.h"  // family_names

namespace loom {

namespace {

const char* const kRetrain = "; retrain with `loom train`";

/// family[@cutlass|@fused|@paged][.q], or _all[.q] (one global model): the keys EfficiencyModel::train writes.
bool valid_key(std::string key) {
  if (key.size() > 2 && key.compare(key.size() - 2, 2, ".q") == 0) key.resize(key.size() - 2);
  if (key == "_all") return true;
  const size_t at = key.find('@');
  const std::string family = key.substr(0, at);
  const auto& known = family_names();
  if (std::find(known.begin(), known.end(), family) == known.end()) return false;
  if (at == std::string::npos) return true;
  const std::string impl = key.substr(at + 1);
  return impl == "cutlass" || impl == "fused" || impl == "paged";
}

std::string text_of(const nlohmann::json& j, const std::string& path, const std::string& key) {
  if (!j.is_string()) throw InputError(path, "'" + key + "' must be a string" + kRetrain);
  return j.get<std::string>();
}

}  // namespace

ModelIndex parse_model_index(const std::string& text, const std::string& path) {
  nlohmann::json j = parse_strict_json(text, path, StrictJsonMessages::for_hint(kRetrain));
  if (!j.is_object()) throw InputError(path, std::string("must be a JSON object") + kRetrain);
  for (const auto& [key, v] : j.items())
    if (key != "schema" && key != "target" && key != "features" && key != "fingerprint" && key != "models")
      throw InputError(path, "unknown key '" + key.substr(0, 80) +
                                 "' (expected schema, target, features, fingerprint, models)" + kRetrain);
  if (j.contains("schema") && text_of(j["schema"], path, "schema") != "loom-efficiency-model 1")
    throw InputError(path, std::string("'schema' must be \"loom-efficiency-model 1\"") + kRetrain);
  if (j.contains("target")) (void)text_of(j["target"], path, "target");
  if (j.contains("fingerprint")) (void)text_of(j["fingerprint"], path, "fingerprint");
  ModelIndex out;
  if (!j.contains("features") || !j["features"].is_array() || j["features"].empty())
    throw InputError(path, std::string("'features' must be a non-empty list of feature names") + kRetrain);
  std::set<std::string> seen;
  for (const auto& f : j["features"]) {
    if (!f.is_string() || f.get<std::string>().empty())
      throw InputError(path, std::string("'features' must list feature names (non-empty strings)") + kRetrain);
    if (!seen.insert(f.get<std::string>()).second)
      throw InputError(path, "feature '" + f.get<std::string>().substr(0, 80) + "' is listed twice" + kRetrain);
    out.features.push_back(f.get<std::string>());
  }
  if (!j.contains("models") || !j["models"].is_object() || j["models"].empty())
    throw InputError(path, std::string("'models' must be an object of forest -> {file, hash} with at least one "
                                       "forest (without one every prediction is analytical: use --model analytical)") +
                               kRetrain);
  for (const auto& [key, e] : j["models"].items()) {
    const std::string where = "model '" + key.substr(0, 80) + "'";
    if (!valid_key(key))
      throw InputError(path, where + " is not a kernel family[@cutlass|@fused|@paged][.q] (or _all)" + kRetrain);
    if (!e.is_object()) throw InputError(path, where + " must be an object {file, hash}" + kRetrain);
    for (const auto& [k, v] : e.items())
      if (k != "file" && k != "hash")
        throw InputError(path, where + ": unknown key '" + k.substr(0, 80) + "' (expected file, hash)" + kRetrain);
    if (!e.contains("file") || !e.contains("hash"))
      throw InputError(path, where + " needs 'file' and 'hash'" + kRetrain);
    ModelIndexEntry m;
    m.key = key;
    m.file = text_of(e["file"], path, key + ".file");
    m.hash = text_of(e["hash"], path, key + ".hash");
    if (m.file.empty() || m.file == "." || m.file == ".." || m.file.find('/') != std::string::npos ||
        m.file.find('\0') != std::string::npos)
      throw InputError(path, where + ": file '" + m.file.substr(0, 80) +
                                 "' must be a file name inside the model directory" + kRetrain);
    if (m.hash.size() != 16 || !std::all_of(m.hash.begin(), m.hash.end(),
                                            [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
      throw InputError(path, where + ": hash '" + m.hash.substr(0, 80) + "' is not 16 hex digits" + kRetrain);
    out.models.push_back(std::move(m));
  }
  return out;
}

}  // namespace loom
