// Training, saving, loading and evaluating the per-family efficiency models.
#include "learned/model.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "analytical/features.h"
#include "core/error.h"
#include "core/file_io.h"
#include "learned/model_index.h"
#include "learned/packed.h"

namespace loom {

namespace fs = std::filesystem;

namespace {

// Models are stored gzip-compressed (XGBoost's JSON compresses ~6x); gzip via zlib writes no timestamp, so the
// same model gives the same bytes.
void write_gz(const std::string& path, const std::string& data) {
  gzFile f = gzopen(path.c_str(), "wb9");
  if (!f || gzwrite(f, data.data(), static_cast<unsigned>(data.size())) != static_cast<int>(data.size())) {
    if (f) gzclose(f);
    throw InputError(path, write_failed_message(errno));
  }
  if (gzclose(f) != Z_OK) throw InputError(path, write_failed_message(errno));
}

std::string read_gz(const std::string& path) {
  check_data_file(path);  // a forest file that is a named pipe waited forever; a folder read as "bad gzip"
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw InputError(path, "cannot read model file");
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, n);
  gzclose(f);
  if (n < 0) throw InputError(path, "corrupt model file (bad gzip); retrain with `loom train`");
  return out;
}

}  // namespace

std::string fnv1a_hex(const std::string& bytes, uint64_t h) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

EfficiencyModel EfficiencyModel::train(const Dataset& ds, const std::vector<size_t>& rows, const TrainOptions& opt,
                                       const std::function<void(size_t, size_t, const std::string&)>& progress) {
  EfficiencyModel m;
  m.feature_names_ = ds.feature_names;
  const size_t cols = ds.feature_names.size();
  // Per family: one model per family with enough samples; a family without one is predicted analytically
  // (a model trained on other families says nothing trustworthy about it). Global: one model, family one-hot.
  std::map<std::string, std::vector<size_t>> groups;
  if (opt.per_family)
    for (size_t r : rows) groups[model_key(ds.samples[r].m.family, impl_class(ds.samples[r].m.impl))].push_back(r);
  else
    groups["_all"] = rows;
  std::vector<std::string> keys;
  for (const auto& [k, v] : groups)
    // An implementation's own forest (family@impl) comes from one focused sweep: half the family threshold.
    if (k == "_all" ||
        v.size() >= (k.find('@') != std::string::npos ? opt.min_family_samples / 2 : opt.min_family_samples))
      keys.push_back(k);
  size_t step = 0;
  for (const auto& key : keys) {
    const auto& idx = groups[key];
    std::vector<float> x;
    std::vector<float> y;
    x.reserve(idx.size() * cols);
    for (size_t r : idx) {
      x.insert(x.end(), ds.samples[r].x.begin(), ds.samples[r].x.end());
      y.push_back(static_cast<float>(ds.samples[r].target));
    }
    // A forest whose rows come from fewer than three GPUs (an implementation measured on two, e.g. PipeWeave's
    // CUTLASS fp8 GEMMs on H20 and H800) cannot learn what a GPU constant does: any constant that tells its GPUs
    // apart would only memorise which GPU a row came from, and an unseen GPU would inherit one GPU's efficiency by
    // where its constant falls (the H200 got the H20's). Such forests see the kernel's own features only.
    std::set<std::string> gpus;
    for (size_t r : idx) gpus.insert(ds.samples[r].m.gpu_key);
    std::vector<std::string> masked = opt.masked_features;
    if (gpus.size() < 3)
      masked.insert(masked.end(), gpu_constant_feature_names().begin(), gpu_constant_feature_names().end());
    for (const auto& name : masked)
      for (size_t c = 0; c < cols; ++c)
        if (ds.feature_names[c] == name)
          for (size_t i = 0; i < idx.size(); ++i) x[i * cols + c] = 0.0f;
    auto add = [&](const std::string& k, std::string json) {
      auto e = std::make_shared<Entry>();
      e->hash = fnv1a_hex(json);
      e->forest = std::make_unique<Forest>(Forest::from_json(json));
      e->json = std::move(json);
      std::call_once(e->once, [] {});
      m.entries_[k] = e;
    };
    if (progress) progress(step++, keys.size() * 2, key);
    add(key, xgb_train(x, idx.size(), cols, y, opt.params_for(key)));
    XgbParams q = opt.params_for(key);
    q.quantile = opt.achievable_quantile;
    if (progress) progress(step++, keys.size() * 2, key + " (achievable)");
    add(key + ".q", xgb_train(x, idx.size(), cols, y, q));
  }
  if (progress) progress(step, keys.size() * 2, "done");
  return m;
}

XgbParams TrainOptions::params_for(const std::string& key) const {
  XgbParams p = params;
  const auto it = depth_by_family.find(key.substr(0, key.find('@')));
  if (it != depth_by_family.end()) p.max_depth = it->second;
  return p;
}

std::vector<std::string> EfficiencyModel::save(const std::string& dir) const {
  fs::create_directories(dir);
  std::vector<std::string> written;
  nlohmann::json index;
  index["schema"] = "loom-efficiency-model 1";
  index["target"] = "log(measured_us / analytical ceiling_us)";
  index["features"] = feature_names_;
  index["fingerprint"] = fingerprint();
  for (const auto& [key, e] : entries_) {
    const std::string file = key + ".xgb.json.gz";
    const std::string& json = json_of(*e);
    write_gz((fs::path(dir) / file).string(), json);
    index["models"][key] = {{"file", file}, {"hash", fnv1a_hex(json)}};
    written.push_back((fs::path(dir) / file).string());
  }
  write_file((fs::path(dir) / "model.json").string(),
             index.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  written.push_back((fs::path(dir) / "model.json").string());
  return written;
}

EfficiencyModel EfficiencyModel::load(const std::string& dir) {
  const fs::path index_path = fs::path(dir) / "model.json";
  const std::string index_file = index_path.string();
  std::error_code ec;
  if (!fs::exists(index_path, ec))
    throw InputError(index_file, "no model index; train one with `loom train` or use --model analytical");
  // A named pipe waited forever; a folder read as "malformed model index".
  const std::string text = read_data_file(index_file, "cannot read; check the file's permissions");
  const ModelIndex index = parse_model_index(text, index_file);
  EfficiencyModel m;
  m.feature_names_ = index.features;
  for (const ModelIndexEntry& entry : index.models) {
    const std::string file = (fs::path(dir) / entry.file).string();
    if (!fs::exists(file, ec)) throw InputError(index_file, "model file '" + file + "' is missing");
    auto e = std::make_shared<Entry>();
    e->file = file;
    e->hash = entry.hash;
    e->index = index_file;
    m.entries_[entry.key] = e;
  }
  return m;
}

const std::string& EfficiencyModel::json_of(Entry& e) const {
  if (e.json.empty()) {
    e.json = read_gz(e.file);
    if (fnv1a_hex(e.json) != e.hash)
      throw InputError(e.file, "model file does not match its hash in " + e.index + "; retrain with `loom train`");
  }
  return e.json;
}

const Forest* EfficiencyModel::find(const std::string& family, const char* suffix) const {
  auto it = entries_.find(family + suffix);
  if (it == entries_.end()) it = entries_.find(std::string("_all") + suffix);
  if (it == entries_.end()) return nullptr;
  Entry& e = *it->second;
  // First use: the packed cache (built from the same JSON, named by its hash and .gz size) or the JSON itself.
  std::call_once(e.once, [&] {
    std::error_code ec;
    const auto gz_size = fs::file_size(e.file, ec);
    const std::string dir = packed_model_dir();
    if (!ec && !dir.empty())
      if (auto f = load_packed(packed_path(dir, e.hash), e.hash, gz_size)) {
        e.forest = std::make_unique<Forest>(std::move(*f));
        return;
      }
    try {
      e.forest = std::make_unique<Forest>(Forest::from_json(json_of(e)));
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& ex) {
      throw InputError(e.file, std::string(ex.what()) + "; retrain with `loom train`");
    }
  });
  return e.forest.get();
}

std::optional<double> EfficiencyModel::predict_log_ratio(const std::string& family, const float* x) const {
  const Forest* f = find(family, "");
  if (!f) return std::nullopt;
  return f->predict(x);
}

std::optional<double> EfficiencyModel::predict_achievable_log_ratio(const std::string& family, const float* x) const {
  const Forest* f = find(family, ".q");
  if (!f) return std::nullopt;
  return f->predict(x);
}

std::string EfficiencyModel::fingerprint() const {
  std::string all;
  for (const auto& [k, e] : entries_) all += k + "\n" + e->hash + "\n";
  return fnv1a_hex(all);
}

}  // namespace loom
