// Predictor::walk_forests: predict_many's phase 2, the forests' walk over the analysed rows, on one or more threads.
#include <algorithm>
#include <exception>
#include <optional>
#include <tuple>

#include "core/parallel.h"
#include "learned/forest.h"
#include "learned/model.h"
#include "learned/predictor.h"

namespace loom {

void Predictor::walk_forests(const std::vector<const GpuSpec*>& gpus, const std::vector<KernelSpec>& specs,
                             bool with_achievable, const float* x_all, const std::vector<uint8_t>& skip,
                             std::vector<Prediction>& out, int threads) const {
  const size_t n = specs.size();
  const size_t cols = model_->feature_names().size();
  // Rows grouped by forest. A group is one (family, impl=) pair, its forest key computed once (pairs sharing a
  // forest walk it separately: every row's sum is the same either way).
  struct Group {
    const std::string* family;
    const std::string* impl;  // the spec's impl= value, or null
    std::string key;
    std::vector<size_t> rows;
    std::vector<float> r, q;  // the forest's and the quantile forest's sums, one per row
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < n; ++i) {
    if ((skip[i] & 1) || out[i].collective) continue;  // 1: served whole by the memo, 3: refused
    const std::string& fam = out[i].analysis->family;
    auto it = specs[i].params.find("impl");
    const std::string* impl = it != specs[i].params.end() ? &it->second : nullptr;
    Group* g = nullptr;
    for (auto& c : groups)
      if (*c.family == fam && (c.impl && impl ? *c.impl == *impl : c.impl == impl)) g = &c;
    if (!g) g = &groups.emplace_back(Group{&fam, impl, forest_key(out[i], specs[i]), {}, {}, {}});
    g->rows.push_back(i);
  }
  // A task walks rows [begin, end) of one group. On one thread a group is one task (one predict_batch call per
  // forest, as ever); on more, a group of many rows is cut into pieces of at least kMinRows, and the tasks are
  // listed piece by piece across groups, so the threads start on different forests (a forest's first use loads it,
  // once: EfficiencyModel::find). A row's sum does not depend on how its forest's rows are cut: each is its own.
  struct Task {
    size_t group, begin, end;
  };
  constexpr size_t kMinRows = 256;
  const size_t nt = static_cast<size_t>(std::clamp(threads, 1, 256));
  std::vector<size_t> pieces(groups.size(), 1);
  size_t most = 1;
  for (size_t g = 0; g < groups.size(); ++g) {
    const size_t rows = groups[g].rows.size();
    groups[g].r.resize(rows);
    if (with_achievable) groups[g].q.resize(rows);
    if (nt > 1) pieces[g] = std::clamp<size_t>(rows / kMinRows, 1, nt);
    most = std::max(most, pieces[g]);
  }
  std::vector<Task> tasks;
  for (size_t k = 0; k < most; ++k)
    for (size_t g = 0; g < groups.size(); ++g)
      if (k < pieces[g]) {
        const size_t rows = groups[g].rows.size();
        tasks.push_back({g, rows * k / pieces[g], rows * (k + 1) / pieces[g]});
      }
  // Each task's error, kept so that the one a serial walk would meet first (lowest group, then row) is thrown.
  std::vector<std::exception_ptr> errs(tasks.size());
  for_each_index(tasks.size(), static_cast<int>(nt), [&](size_t t) {
    try {
      const Task& task = tasks[t];
      Group& grp = groups[task.group];
      const Forest* f = model_->find(grp.key, "");
      if (!f) return;
      const Forest* fq = with_achievable ? model_->find(grp.key, ".q") : nullptr;
      const size_t m = task.end - task.begin;
      thread_local std::vector<float> x;
      x.resize(m * cols);
      for (size_t k = 0; k < m; ++k) std::copy_n(x_all + grp.rows[task.begin + k] * cols, cols, x.begin() + k * cols);
      f->predict_batch(x.data(), m, cols, grp.r.data() + task.begin);
      if (fq) fq->predict_batch(x.data(), m, cols, grp.q.data() + task.begin);
    } catch (...) {
      errs[t] = std::current_exception();
    }
  });
  const Task* first = nullptr;
  for (size_t t = 0; t < tasks.size(); ++t)
    if (errs[t] && (!first || std::tie(tasks[t].group, tasks[t].begin) < std::tie(first->group, first->begin)))
      first = &tasks[t];
  if (first) std::rethrow_exception(errs[static_cast<size_t>(first - tasks.data())]);
  for (auto& grp : groups) {
    const Forest* f = model_->find(grp.key, "");  // loaded above: a look-up
    if (!f) continue;
    const Forest* fq = with_achievable ? model_->find(grp.key, ".q") : nullptr;
    // The transfer weight depends on the family (the group's) and the GPU's architecture: looked up once per GPU.
    std::vector<std::pair<const GpuSpec*, double>> weights;
    for (size_t k = 0; k < grp.rows.size(); ++k) {
      Prediction& p = out[grp.rows[k]];
      const GpuSpec* gpu = gpus[grp.rows[k]];
      auto w = std::find_if(weights.begin(), weights.end(), [&](const auto& e) { return e.first == gpu; });
      if (w == weights.end()) w = weights.insert(weights.end(), {gpu, transfer_weight(*grp.family, *gpu)});
      apply_learned(p, transferred(p, w->second, grp.r[k]),
                    fq ? std::optional<double>(transferred(p, w->second, grp.q[k])) : std::nullopt);
    }
  }
}

}  // namespace loom
