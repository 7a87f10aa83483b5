// One-step prediction: glue between op_graph, timeline and memory, plus the per-family / per-op breakdowns.
#include "e2e/e2e.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "analytical/analysis.h"
#include "core/ptr_index.h"

namespace loom {

ExecMode mode_for(const ServingProfile& profile, Phase phase, std::optional<ExecMode> mode) {
  if (mode) return *mode;
  return parse_mode(phase == Phase::prefill ? profile.prefill_mode : profile.decode_mode, profile.source_file);
}

namespace {

/// The per-family and per-op breakdowns of a step, in one pass. Launches of one shape (the same op of identical
/// layers) share their family and nearly always their name: each shape remembers its two groups, the name's checked
/// with a short compare before its hash look-up is skipped.
void group(const StepTiming& t, std::vector<Share>& by_family, std::vector<Share>& by_op) {
  struct Hint {
    size_t family, op;
  };
  PtrIndex shapes;
  std::vector<Hint> hints;
  std::unordered_map<std::string_view, size_t> family_keys, op_keys;
  auto group_of = [](std::vector<Share>& v, std::unordered_map<std::string_view, size_t>& keys,
                     const std::string& key, const std::string& family) {
    auto [slot, added] = keys.try_emplace(key, v.size());
    if (added) {
      v.emplace_back().key = key;
      v.back().family = family;
    }
    return slot->second;
  };
  auto add = [](Share& s, const KernelTiming& k) {
    s.launches += 1;
    s.gpu_us += k.gpu_us;
    s.wall_us += k.wall_us;
  };
  for (const auto& k : t.kernels) {
    bool added = false;
    const size_t i = shapes.find_or_add(k.shape.get(), added);
    if (added)
      hints.push_back({group_of(by_family, family_keys, k.family(), k.family()),
                       group_of(by_op, op_keys, k.name, k.family())});
    else if (by_op[hints[i].op].key != k.name)
      hints[i].op = group_of(by_op, op_keys, k.name, k.family());
    add(by_family[hints[i].family], k);
    add(by_op[hints[i].op], k);
  }
  for (auto* v : {&by_family, &by_op}) {
    for (auto& s : *v) s.wall_fraction = t.wall_time_us > 0 ? s.wall_us / t.wall_time_us : 0;
    std::sort(v->begin(), v->end(), [](const Share& a, const Share& b) {
      return a.wall_us != b.wall_us ? a.wall_us > b.wall_us : a.key < b.key;
    });
  }
}

}  // namespace

StepPrediction predict_step(const GpuSpec& gpu, const ModelConfig& model, const ServingProfile& profile,
                            const Workload& work, std::optional<ExecMode> mode, const KernelPredictor& predictor) {
  StepPrediction p;
  p.gpu = gpu.name;
  p.model = model.name;
  p.profile = profile.name;
  p.work = work;
  p.memory = memory_fit(gpu, model, profile, work);  // first: it checks the TP degree against the node
  p.timing = simulate_step(gpu, build_op_graph(model, profile, work), profile, mode_for(profile, work.phase, mode),
                           model.is_moe(), predictor);
  group(p.timing, p.by_family, p.by_op);
  p.tokens_per_s = p.timing.wall_time_us > 0 ? static_cast<double>(work.tokens()) / (p.timing.wall_time_us * 1e-6) : 0;
  return p;
}

std::vector<PredictedLaunch> predict_kernels(const GpuSpec& gpu, const ModelConfig& model,
                                             const ServingProfile& profile, const Workload& work,
                                             std::optional<ExecMode> mode, const KernelPredictor& predictor) {
  const std::vector<Op> ops = build_op_graph(model, profile, work);
  const StepTiming t = simulate_step(gpu, ops, profile, mode_for(profile, work.phase, mode), model.is_moe(), predictor);
  const KernelPredictor predict = predictor ? predictor : analytical_predictor();
  std::map<std::string, double> memo;
  std::vector<PredictedLaunch> out;
  for (size_t i = 0; i < ops.size(); ++i) {
    PredictedLaunch l;
    l.name = ops[i].name;
    l.layer = ops[i].layer;
    l.parts = ops[i].parts();
    for (const auto& part : ops[i].parts()) {
      const std::string key = part.to_string();
      auto it = memo.find(key);
      if (it == memo.end()) it = memo.emplace(key, predict(gpu, part)).first;
      l.part_us.push_back(it->second);
    }
    l.gpu_us = t.kernels[i].gpu_us;
    l.wall_us = t.kernels[i].wall_us;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace loom
