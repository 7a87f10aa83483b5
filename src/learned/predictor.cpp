// Predictor: analytical analysis + learned correction.
#include "learned/predictor.h"

#include <cstdio>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <exception>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "core/parallel.h"
#include "hw/catalog.h"
#include "analytical/features.h"
#include "kernels/shape.h"
#include "learned/dataset.h"
#include "learned/predict_memo.h"

namespace loom {

std::string default_model_dir() { return data_dir() + "/models/efficiency"; }

std::string Predictor::forest_key(const Prediction& p, const KernelSpec& spec) {
  auto impl = spec.params.find("impl");
  return model_key(p.analysis->family,
                   impl_class(impl != spec.params.end() ? impl->second : default_impl(p.analysis->family)));
}

Predictor::Predictor(const std::string& mode, const std::string& models_dir)
    : memo_(std::make_shared<PredictMemo>()) {
  if (mode != "learned" && mode != "analytical")
    throw InputError("--model", "unknown model '" + mode + "'; use learned or analytical");
  if (mode == "analytical") return;
  if (std::filesystem::exists(default_collectives_path()))
    collectives_ = std::make_shared<CollectiveModel>(CollectiveModel::load(default_collectives_path()));
  const std::string dir = models_dir.empty() ? default_model_dir() : models_dir;
  if (!models_dir.empty() || std::filesystem::exists(dir + "/model.json"))
    model_ = std::make_shared<EfficiencyModel>(EfficiencyModel::load(dir));
  if (!model_) return;
  transfer_ = std::make_shared<const TransferWeights>(TransferWeights::load(dir));
  // A model trained before features were appended still predicts: its features are found by name. A feature it
  // needs that loom no longer computes is an error (retrain).
  std::vector<std::string> now = analysis_feature_names();
  for (const auto& n : impl_feature_names()) now.push_back(n);
  if (model_->feature_names() == now) return;
  for (const auto& n : model_->feature_names()) {
    auto it = std::find(now.begin(), now.end(), n);
    if (it == now.end())
      throw InputError(dir, "the efficiency model uses feature '" + n +
                                "', which loom no longer computes; retrain with `loom train`");
    remap_.push_back(size_t(it - now.begin()));
  }
}

void Predictor::features(const Prediction& p, const GpuSpec& gpu, const KernelSpec& spec, float* out) const {
  // The values make_sample() computes (the same feature code, analysis_feature_values), written in place.
  auto impl = spec.params.find("impl");
  const std::string impl_cls =
      impl_class(impl != spec.params.end() ? impl->second : default_impl(p.analysis->family));
  const std::vector<std::string>& impl_names = impl_feature_names();
  const size_t na = analysis_feature_names().size(), total = na + impl_names.size();
  const size_t cols = model_->feature_names().size();
  if ((remap_.empty() ? total : remap_.size()) != cols)
    throw InputError(default_model_dir(), "the efficiency model was trained on " + std::to_string(cols) +
                                              " features, loom now computes " + std::to_string(total) +
                                              "; retrain with `loom train`");
  thread_local std::vector<float> all;
  float* x = out;
  if (!remap_.empty()) {  // a model trained on an older feature list: its features, found by name
    all.resize(total);
    x = all.data();
  }
  analysis_feature_values(*p.analysis, gpu, x);
  for (size_t i = 0; i < impl_names.size(); ++i)  // one-hot: name == "impl_" + impl_cls
    x[na + i] = impl_names[i].compare(0, 5, "impl_") == 0 && impl_names[i].compare(5, std::string::npos, impl_cls) == 0
                    ? 1.0f : 0.0f;
  for (size_t i = 0; i < remap_.size(); ++i) out[i] = x[remap_[i]];
}

double Predictor::transfer_weight(const std::string& family, const GpuSpec& gpu) const {
  // A GPU of an architecture the family's corpus lacks: the family's chosen weight. On sm_100 the tensor-core
  // families are keyed "<arch>-tcgen05" (measured_architecture), and there a family measured on one architecture
  // gets 0.5, the middle of the grid (B200 attention); elsewhere such a family keeps weight 1.
  if (!transfer_) return 1.0;
  const std::string arch = measured_architecture(family, gpu);
  return arch == gpu.architecture ? transfer_->weight_for(family, arch) : transfer_->weight_or_prior(family, arch);
}

double Predictor::transferred(Prediction& p, double w, double log_ratio) {
  if (w >= 1 || !(p.analysis->latency_us > 0) || !(p.analysis->ceiling_us > 0)) return log_ratio;
  p.transfer_weight = w;
  return w * log_ratio + (1 - w) * std::log(p.analysis->latency_us / p.analysis->ceiling_us);
}

void Predictor::apply_learned(Prediction& p, double log_ratio, const std::optional<double>& achievable_log_ratio) {
  p.model = "learned";
  // No kernel beats its own speed of light: a learned ratio below 1 is clamped to the ceiling. With l2=warm the
  // inputs come from L2, so the DRAM pipe no longer bounds the kernel, but every other pipe still does: the warm
  // kernel's own ceiling is its slowest non-DRAM pipe (a b200 l2=warm GEMM bound by shared memory was predicted 4%
  // below its ceiling). The ratio stays relative to the cold ceiling the model was trained on.
  // The warm ceiling is kept in the prediction (the shared analysis is not copied; shown_analysis() prints it).
  const double cold_ceiling_us = p.analysis->ceiling_us;
  p.warm_ceiling_us.reset();
  p.warm_pipe = -1;
  if (p.analysis->l2_warm) {
    double warm_us = 0;
    int by = -1;
    const std::vector<PipeLoad>& pipes = p.analysis->pipes;
    for (size_t k = 0; k < pipes.size(); ++k)
      if (pipes[k].pipe != "dram" && pipes[k].time_us > warm_us) warm_us = pipes[k].time_us, by = int(k);
    if (warm_us < cold_ceiling_us) p.warm_ceiling_us = warm_us, p.warm_pipe = by;
  }
  const double ceiling_us = p.ceiling_us();
  p.latency_us = std::max(cold_ceiling_us * std::exp(log_ratio), ceiling_us);
  p.at_ceiling = p.latency_us == ceiling_us;
  if (achievable_log_ratio)
    p.achievable_us = std::min(p.latency_us, std::max(ceiling_us, cold_ceiling_us * std::exp(*achievable_log_ratio)));
}

std::shared_ptr<const Analysis> Prediction::shown_analysis() const {
  if (!warm_ceiling_us) return analysis;
  auto warm = std::make_shared<Analysis>(*analysis);
  warm->ceiling_us = *warm_ceiling_us;
  warm->bottleneck = bottleneck();
  warm->notes.push_back("l2=warm: the inputs come from L2, so the dram pipe is no bound here; the ceiling is the "
                        "slowest other pipe");
  return warm;
}

bool Predictor::apply_collective(Prediction& p, const GpuSpec& gpu, const KernelSpec& spec) const {
  const std::string& op = p.analysis->family;
  if (!collectives_ || (op != "all_reduce" && op != "all_gather" && op != "reduce_scatter" && op != "send_recv"))
    return false;
  const KernelShape s = parse_shape(spec, gpu);  // impl=custom where the engines run NCCL is nccl here
  p.collective =
      estimate_collective(*collectives_, gpu, op, int(s.gpus), s.bytes, s.impl == "custom" ? "custom" : "nccl");
  if (!p.collective) return false;
  p.model = "collective-fit";
  p.latency_us = p.collective->latency_us;
  // A fit carried to another GPU count (or GPU) may dip below the link's speed of light: never faster than it. A
  // GPU's own fit at its measured count stays above it since the ceiling counts NVLS (H800's 8-GPU NCCL all-reduce
  // ran up to 5.8% under the ring's bound, above NVLS's; analytical/collective_model.cpp), so the clamp is for all
  // (a100-sxm4's own send_recv fit at 1 GiB was 0.07% under its one-link bound and is clamped to it).
  if (p.latency_us < p.analysis->ceiling_us)
    p.latency_us = p.analysis->ceiling_us, p.at_ceiling = true;
  return true;
}

Prediction Predictor::predict(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const {
  Prediction p = predict_cool(gpu, spec, with_achievable);
  apply_clock(p, gpu);
  return p;
}

void Predictor::apply_clock(Prediction& p, const GpuSpec& gpu) const {
  if (clock_ == ClockMode::boost) return;
  const double w = clock_ == ClockMode::sustained ? clock_weight_ : sustained_load_weight(gpu, p.latency_us, clock_);
  if (!(w > 0)) return;
  p.clock_factor = 1 + (sustained_load_factor(gpu, *p.analysis) - 1) * w;
  p.latency_us *= p.clock_factor;
  if (p.achievable_us) *p.achievable_us *= p.clock_factor;
}

Prediction Predictor::predict_anchored(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const {
  // The GPU as measured gives the prediction; the analytical model, how much the change moves it.
  const Prediction base = predict_cool(*gpu.anchor, spec, with_achievable);
  Prediction p = base;
  p.analysis = std::make_shared<const Analysis>(analyze(gpu, spec));
  const double a_base = base.analysis->latency_us, a_changed = p.analysis->latency_us;
  const double ratio = a_base > 0 && a_changed > 0 ? a_changed / a_base : 1.0;
  const double cold = p.analysis->ceiling_us;
  if (base.model != "learned" || !(cold > 0)) {
    p.latency_us = base.latency_us * ratio;
    if (p.achievable_us) *p.achievable_us *= ratio;
    // The ratio moves the latency, not the changed GPU's ceiling: a collective fit at its link's speed of light on
    // a b200 came out 0.3-1% below the ceiling with --set clock.sustained=1500MHz. A base at or above its own
    // ceiling stays at or above the changed one.
    if (base.latency_us >= base.ceiling_us() && p.latency_us < p.ceiling_us())
      p.latency_us = p.ceiling_us(), p.at_ceiling = true;
    return p;
  }
  // As a learned ratio on the changed GPU, so the same ceiling clamps (warm ones included) apply.
  std::optional<double> q;
  if (base.achievable_us) q = std::log(*base.achievable_us * ratio / cold);
  apply_learned(p, std::log(base.latency_us * ratio / cold), q);
  return p;
}

Prediction Predictor::predict_cool(const GpuSpec& gpu, const KernelSpec& spec, bool with_achievable) const {
  if (gpu.anchor && model_) return predict_anchored(gpu, spec, with_achievable);
  Prediction p;
  p.analysis = std::make_shared<const Analysis>(analyze(gpu, spec));
  p.model = "analytical";
  p.latency_us = p.analysis->latency_us;
  if (apply_collective(p, gpu, spec) || !model_) return p;
  std::vector<float> x(model_->feature_names().size());
  features(p, gpu, spec, x.data());
  const std::string key = forest_key(p, spec);
  if (auto r = model_->predict_log_ratio(key, x.data())) {
    std::optional<double> q;
    if (with_achievable) q = model_->predict_achievable_log_ratio(key, x.data());
    const double w = transfer_weight(p.analysis->family, gpu);
    if (q) q = transferred(p, w, *q);
    apply_learned(p, transferred(p, w, *r), q);
  }
  return p;
}

void Predictor::predict_many(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                             bool with_achievable, std::vector<Prediction>& out, int threads, bool with_text,
                             std::vector<uint8_t>* failed) const {
  if (failed) failed->assign(specs.size(), 0);
  if (model_ && std::any_of(gpus.begin(), gpus.end(), [](const GpuSpec* g) { return g->anchor != nullptr; })) {
    out.resize(specs.size());  // a GPU changed by --set (rare in batches): row by row, anchored
    for (size_t i = 0; i < specs.size(); ++i) try {
        out[i] = predict(*gpus[i], specs[i], with_achievable);
      } catch (const InputError&) {
        if (!failed) throw;
        (*failed)[i] = 1, out[i] = Prediction{};
      }
    return;
  }
  predict_many_cool(gpus, specs, with_achievable, out, threads, with_text, failed);
  if (clock_ != ClockMode::boost)
    for (size_t i = 0; i < specs.size(); ++i)
      if (!failed || !(*failed)[i]) apply_clock(out[i], *gpus[i]);
}

void Predictor::predict_many_cool(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                                  bool with_achievable, std::vector<Prediction>& out, int threads,
                                  bool with_text, std::vector<uint8_t>* failed) const {
  const size_t n = specs.size();
  const uint8_t asks = PredictMemo::asks_of(with_achievable, with_text);
  const size_t cols = model_ ? model_->feature_names().size() : 0;
  out.resize(n);
  // The rows' features: written for the rows analysed here (or copied for their repeats) and read only for those,
  // so a block's buffer (the CLI's 4,096 rows) is this thread's, kept between calls and never cleared: a row served
  // by the memo costs no zeroing. A larger call gets its own, freed on return (memory stays bounded).
  constexpr size_t kKeptFloats = size_t(1) << 20;
  thread_local std::vector<float> x_kept;
  std::vector<float> x_own;
  std::vector<float>& x_buf = n * cols <= kKeptFloats ? x_kept : x_own;
  if (x_buf.size() < n * cols) x_buf.resize(n * cols);
  float* const x_all = x_buf.data();
  // Every row's GPU as a memo id (by its values; a batch names a few GPU objects, each keyed once).
  std::vector<uint32_t> gid(n);
  {
    std::vector<std::pair<const GpuSpec*, uint32_t>> known;
    for (size_t i = 0; i < n; ++i) {
      auto k = std::find_if(known.begin(), known.end(), [&](const auto& e) { return e.first == gpus[i]; });
      if (k == known.end()) k = known.insert(known.end(), {gpus[i], memo_->gpu_id(*gpus[i])});
      gid[i] = k->second;
    }
  }
  // A row's state after phase 1: analysed here (kFresh), served whole by the memo (kDone: phases 2 and 3 skip it),
  // a copy of an equal earlier row of its chunk (the copy's state is that row's), or refused with `failed` given
  // (kFailed: skipped as kDone is, never offered to the memo). walk_forests skips the odd states.
  enum : uint8_t { kFresh, kDone, kCopy, kFailed };
  std::vector<uint8_t> state(n, kFresh);
  std::vector<uint64_t> hash(n);
  // Phase 1, per row (threads take contiguous chunks): the memo, else analysis and features. The lowest failing
  // row's error wins, as in a serial loop.
  // A row equal to an earlier one of the same chunk (same GPU values, family and parameters: the only inputs of
  // phase 1) copies that row's analysis and features instead of recomputing them: exactly the same values.
  auto analyse = [&](size_t begin, size_t end, size_t& bad, std::exception_ptr& err) {
    // The chunk's first row of each hash, by open addressing (no node per row): 1 + its offset in the chunk, 0 when
    // empty (its hash is hash[row]). Four bytes a slot, at most half full: 32 KB for a 4,096-row block, so the
    // probes of a block stay in cache. (A chunk has far fewer than 2^32 rows: each holds a Prediction.)
    thread_local std::vector<uint32_t> seen;
    const size_t mask = std::bit_ceil(2 * (end - begin)) - 1;
    seen.assign(mask + 1, 0);
    auto first_with = [&](uint64_t h, size_t i) {  // that row, or i (then recorded as the first)
      for (size_t k = h & mask;; k = (k + 1) & mask) {
        if (seen[k] == 0) {
          seen[k] = uint32_t(i - begin + 1);
          return i;
        }
        if (const size_t j = begin + seen[k] - 1; hash[j] == h) return j;
      }
    };
    for (size_t i = begin; i < end; ++i) {
      try {
        const uint64_t h = hash[i] = PredictMemo::row_hash(gid[i], asks, specs[i]);
        if (const size_t j = first_with(h, i); j != i) {
          if (gid[j] == gid[i] && specs[j].family == specs[i].family && specs[j].params == specs[i].params) {
            if (state[j] == kFailed) {
              state[i] = kFailed, out[i] = Prediction{};
              continue;
            }
            out[i] = out[j];
            state[i] = state[j] == kDone ? kDone : kCopy;
            if (model_ && state[i] != kDone) std::copy_n(x_all + j * cols, cols, x_all + i * cols);
            continue;
          }
        }
        Prediction& p = out[i];
        if (memo_->find(h, gid[i], asks, specs[i], p)) {
          state[i] = kDone;
          continue;
        }
        p.analysis = std::make_shared<const Analysis>(analyze(*gpus[i], specs[i], with_text));
        p.model = "analytical";
        p.latency_us = p.analysis->latency_us;
        p.achievable_us.reset();
        p.at_ceiling = false;
        p.warm_ceiling_us.reset();
        p.warm_pipe = -1;
        p.collective.reset();
        p.clock_factor = 1.0;
        p.transfer_weight = 1.0;
        if (apply_collective(p, *gpus[i], specs[i])) continue;
        if (model_) features(p, *gpus[i], specs[i], x_all + i * cols);
      } catch (const InputError&) {
        if (!failed) {
          bad = i, err = std::current_exception();
          return;
        }
        state[i] = kFailed, out[i] = Prediction{};
      } catch (...) {
        bad = i, err = std::current_exception();
        return;
      }
    }
  };
  const size_t nt = std::max<size_t>(1, std::min<size_t>(threads > 0 ? threads : 1, n / 64 + 1));
  std::vector<size_t> bad(nt, n);
  std::vector<std::exception_ptr> errs(nt);
  for_each_index(nt, static_cast<int>(nt), [&](size_t t) { analyse(n * t / nt, n * (t + 1) / nt, bad[t], errs[t]); });
  for (size_t t = 0; t < nt; ++t)
    if (errs[t]) std::rethrow_exception(errs[t]);  // chunks are in row order: the first error is the lowest row
  if (model_) walk_forests(gpus, specs, with_achievable, x_all, state, out, threads);
  // Phase 3: the memo is offered what this call computed (a copy of a row of its chunk counts as a second sight).
  if (failed)
    for (size_t i = 0; i < n; ++i) (*failed)[i] = state[i] == kFailed;
  for (size_t i = 0; i < n; ++i) state[i] = state[i] == kFresh || state[i] == kCopy;
  memo_->keep(n, hash.data(), gid.data(), asks, specs.data(), out.data(), state.data());
}

void require_fits_memory(const Prediction& p, const GpuSpec& gpu, const std::string& where) {
  require_operands_fit(p.analysis->min_dram_bytes, gpu, where);
}

void require_operands_fit(double need, const GpuSpec& gpu, const std::string& where) {
  const double have = static_cast<double>(gpu.dram_bytes);
  if (need <= have) return;
  char buf[200];
  std::snprintf(buf, sizeof buf, "its operands need %.4g GB, more than the %.4g GB of DRAM on %s", need / 1e9,
                have / 1e9, gpu.name.c_str());
  throw InputError(where, std::string(buf) + "; no such kernel runs on one GPU: shrink the shape or split it");
}

}  // namespace loom
