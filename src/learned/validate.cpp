// Splits, per-split training, and error statistics for `loom validate`.
#include "learned/validate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "analytical/features.h"
#include "learned/transfer.h"

namespace loom {

ErrorStats error_stats(const std::vector<double>& predicted, const std::vector<double>& measured) {
  ErrorStats s;
  std::vector<double> ape;
  for (size_t i = 0; i < predicted.size(); ++i)
    ape.push_back(100.0 * std::fabs(predicted[i] - measured[i]) / measured[i]);
  s.n = ape.size();
  if (ape.empty()) return s;
  double sum = 0;
  for (double a : ape) sum += a;
  s.mape = sum / ape.size();
  std::sort(ape.begin(), ape.end());
  auto q = [&](double p) { return ape[std::min(ape.size() - 1, static_cast<size_t>(p * (ape.size() - 1) + 0.5))]; };
  s.median_ape = q(0.5);
  s.p90_ape = q(0.9);
  s.max_ape = ape.back();
  return s;
}

double learned_latency_us(const EfficiencyModel& model, const Sample& s) {
  auto r = model.predict_log_ratio(model_key(s.m.family, impl_class(s.m.impl)), s.x.data());
  return r ? s.ceiling_us * std::exp(*r) : s.analytical_us;
}

std::vector<Split> make_splits(const Dataset& ds, uint64_t seed, const std::string& train_gpu, bool leave_one_gpu_out) {
  std::vector<Split> out;
  // Public data sets with their own train/test protocol (corpus `#dataset=`): their train rows join the shapes
  // split's training side (so the committed model learns from them), their test rows are tested only by their own
  // split, which trains on the data set's train rows alone, as the publishers did.
  Split shapes{
      "shapes", "1 in 5 shapes held out (all configs of a shape on one side), every GPU and partition", {}, {}};
  std::map<std::string, Split> datasets;
  for (size_t i = 0; i < ds.samples.size(); ++i) {
    const Measurement& m = ds.samples[i].m;
    if (!m.dataset.empty()) {
      Split& d = datasets[m.dataset];
      if (d.name.empty())
        d.name = "dataset:" + m.dataset,
        d.description = "the data set's own protocol: trained on its train rows only, tested on its test rows",
        // Its training GPUs are few (PipeWeave fp8: H20 and H800): per-GPU constants would only memorise which
        // GPU a row came from, and an unseen GPU would inherit one of them by where its constants fall.
        d.masked_features = gpu_constant_feature_names();
      (m.dataset_split == "test" ? d.test : d.train).push_back(i);
      if (d.train.empty() && m.dataset_split == "test")
        d.description = "held-out measurements, never trained on: the committed model as it is";
      if (m.dataset_split != "test") shapes.train.push_back(i);
      continue;
    }
    uint64_t h = (ds.samples[i].shape_group ^ seed) * 0x9E3779B97F4A7C15ull;
    ((h >> 32) % 5 == 0 ? shapes.test : shapes.train).push_back(i);
  }
  out.push_back(shapes);
  // SM partitions of the training GPU: train on the others (same GPU), test on this one.
  std::set<int> partitions;
  int full = 0;
  for (const auto& s : ds.samples)
    if (s.m.gpu_key == train_gpu && s.m.dataset.empty()) partitions.insert(s.m.sms), full = std::max(full, s.m.sms);
  for (int p : partitions) {
    if (p == full) continue;
    Split sp{"partition:" + std::to_string(p),
             "trained on " + train_gpu + " partitions other than " + std::to_string(p) + " SMs; tested on " +
                 std::to_string(p) + " SMs",
             {}, {}};
    for (size_t i = 0; i < ds.samples.size(); ++i)
      if (ds.samples[i].m.gpu_key == train_gpu && ds.samples[i].m.dataset.empty())
        (ds.samples[i].m.sms == p ? sp.test : sp.train).push_back(i);
    out.push_back(sp);
  }
  // Every other GPU of the training GPU's architecture: trained on the training GPU only. (GPUs of other
  // architectures are tested by the arch: splits, which train on everything else.)
  std::string train_arch;
  std::set<std::string> others, all_gpus, archs;
  for (const auto& s : ds.samples)
    if (s.m.gpu_key == train_gpu) train_arch = s.architecture;
  for (const auto& s : ds.samples) {
    if (!s.m.dataset.empty()) continue;  // data sets with their own protocol are tested by their dataset: split
    all_gpus.insert(s.m.gpu_key);
    archs.insert(s.architecture);
    if (s.m.gpu_key != train_gpu && s.architecture == train_arch) others.insert(s.m.gpu_key);
  }
  // Only loom's own sweeps are tested here (imported public rows, traces/public/, measure other ops and impls;
  // the arch: splits test them).
  auto is_public = [](const Sample& s) { return s.m.source.find("/public/") != std::string::npos; };
  // Rows a split may train on: everything but the test rows of data sets with their own protocol.
  auto trainable = [&](size_t i) { return ds.samples[i].m.dataset_split != "test"; };
  auto testable = [&](size_t i) { return ds.samples[i].m.dataset.empty(); };
  for (const auto& g : others) {
    Split sp{
        "gpu:" + g, "trained on " + train_gpu + " only (all partitions); tested on " + g + "'s own sweeps", {}, {}};
    for (size_t i = 0; i < ds.samples.size(); ++i) {
      if (!ds.samples[i].m.dataset.empty()) continue;
      if (ds.samples[i].m.gpu_key == train_gpu) sp.train.push_back(i);
      else if (ds.samples[i].m.gpu_key == g && !is_public(ds.samples[i])) sp.test.push_back(i);
    }
    out.push_back(sp);
  }
  // Leave one architecture out: what a GPU of an architecture loom never measured gets.
  for (const auto& a : archs) {
    Split sp{"arch:" + a, "trained on every architecture but " + a + "; tested on " + a, {}, {}};
    for (size_t i = 0; i < ds.samples.size(); ++i) {
      if (ds.samples[i].architecture == a) {
        if (testable(i)) sp.test.push_back(i);
      } else if (trainable(i)) {
        sp.train.push_back(i);
      }
    }
    out.push_back(sp);
  }
  if (leave_one_gpu_out)
    for (const auto& g : all_gpus) {
      Split sp{"lgo:" + g, "trained on every GPU but " + g + "; tested on " + g, {}, {}};
      for (size_t i = 0; i < ds.samples.size(); ++i) {
        if (ds.samples[i].m.gpu_key == g) {
          if (testable(i)) sp.test.push_back(i);
        } else if (trainable(i)) {
          sp.train.push_back(i);
        }
      }
      out.push_back(sp);
    }
  for (auto& [name, d] : datasets) out.push_back(std::move(d));
  return out;
}

ValidationReport validate(const Dataset& ds, const std::vector<Split>& splits, const TrainOptions& opt,
                          const EfficiencyModel* shapes_model,
                          const std::function<void(const std::string&)>& progress) {
  ValidationReport rep;
  EfficiencyModel last_model;
  std::vector<size_t> last_train;
  std::vector<std::string> last_masked;
  for (const auto& sp : splits) {
    // A data set with test rows only (held-out measurements, e.g. traces/heldout/) is a check of the committed
    // model itself: nothing is trained for it.
    const bool heldout = sp.train.empty() && sp.name.rfind("dataset:", 0) == 0 && shapes_model;
    if ((sp.train.empty() && !heldout) || sp.test.empty()) continue;
    const bool reuse = (sp.name == "shapes" || heldout) && shapes_model;
    if (progress)
      progress("split " + sp.name +
               (reuse ? ": committed model on " + std::to_string(sp.test.size()) + " held-out kernels"
                      : ": training on " + std::to_string(sp.train.size()) + " kernels"));
    const EfficiencyModel* model = shapes_model;
    if (!reuse) {
      // Splits with the same training rows and options (the gpu: splits all train on one GPU) share one model.
      TrainOptions o = opt;
      o.masked_features.insert(o.masked_features.end(), sp.masked_features.begin(), sp.masked_features.end());
      if (sp.train != last_train || last_model.empty() || o.masked_features != last_masked) {
        last_model = EfficiencyModel::train(ds, sp.train, o);
        last_train = sp.train;
        last_masked = o.masked_features;
      }
      model = &last_model;
    }
    const bool keep_points = sp.name == "shapes" || sp.name.rfind("gpu:", 0) == 0 || sp.name.rfind("arch:", 0) == 0 ||
                             sp.name.rfind("dataset:", 0) == 0;
    const bool arch_split = sp.name.rfind("arch:", 0) == 0;
    using Key = std::tuple<std::string, std::string, int>;
    std::map<Key, std::array<std::vector<double>, 4>> by_group;  // roofline, analytical, learned, measured
    std::array<std::vector<double>, 4> all;
    for (size_t i : sp.test) {
      const Sample& s = ds.samples[i];
      double learned = learned_latency_us(*model, s);
      std::array<double, 4> v{s.roofline_us, s.analytical_us, learned, s.m.median_us};
      auto& g = by_group[{s.m.family, s.m.gpu_key, s.m.sms}];
      for (int k = 0; k < 4; ++k) g[k].push_back(v[k]), all[k].push_back(v[k]);
      if (!arch_split)  // arch: splits are blended afterwards (blend_unseen_architectures adds their worst)
        rep.worst.push_back({s.m.spec, s.m.gpu_key, s.m.sms, s.m.median_us, learned,
                             100.0 * std::fabs(learned - s.m.median_us) / s.m.median_us});
      if (keep_points)
        rep.points.push_back({sp.name, s.m.spec, s.m.family, s.m.gpu_key, s.m.sms, s.m.median_us, learned,
                              s.analytical_us, s.roofline_us});
    }
    rep.splits.push_back({sp.name, sp.description, error_stats(all[0], all[3]), error_stats(all[1], all[3]),
                          error_stats(all[2], all[3]), model->fingerprint()});
    for (const auto& [key, v] : by_group) {
      const auto& [family, gpu, sms] = key;
      rep.groups.push_back({sp.name, family, gpu, sms, error_stats(v[0], v[3]), error_stats(v[1], v[3]),
                            error_stats(v[2], v[3])});
    }
  }
  // An unseen architecture is predicted as loom predicts one: the learned model blended with the analytical one
  // by the family's transfer weight, chosen without the held-out architecture.
  rep.transfer_weights = blend_unseen_architectures(rep);
  std::sort(rep.worst.begin(), rep.worst.end(), [](const WorstCase& a, const WorstCase& b) { return a.ape > b.ape; });
  if (rep.worst.size() > 20) rep.worst.resize(20);
  return rep;
}

}  // namespace loom
