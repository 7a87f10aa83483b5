// Ranked GPU table and resource sensitivity for one serving request.
#include "e2e/whatif.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analytical/analysis.h"
#include "core/error.h"
#include "core/parallel.h"
#include "e2e/timeline.h"
#include "kernels/shape.h"

namespace loom {

namespace {

/// One TP degree's two step graphs and workloads. The op graph depends on the model, profile and workload, not on
/// the GPU, so a table builds each (TP, step) once and every GPU copies it; a graph that cannot be built keeps its
/// error, rethrown where building it would have thrown.
struct StepGraph {
  bool built = false;
  Workload work;
  std::vector<Op> ops;
  std::exception_ptr error;
};
struct TpGraphs {
  StepGraph pre, dec;
};

const StepGraph& graph(StepGraph& g, const std::function<Workload()>& make, const ModelConfig& model,
                       const ServingProfile& profile) {
  if (!g.built) {
    g.built = true;
    try {
      g.work = make();
      g.ops = build_op_graph(model, profile, g.work);
    } catch (...) {
      g.error = std::current_exception();
    }
  }
  if (g.error) std::rethrow_exception(g.error);
  return g;
}

const StepGraph& prefill_graph(int tp, const ModelConfig& model, const ServingProfile& profile,
                               const WhatIfRequest& req, TpGraphs& graphs) {
  return graph(graphs.pre, [&] { return prefill_workload(req.batch, {req.input_len}, {}, tp); }, model, profile);
}

/// Decode step k (1..N-1) runs with input_len + k - 1 tokens in the cache; its cost is close to linear in the
/// context, so the step at the middle context stands for the average.
const StepGraph& decode_graph(int tp, const ModelConfig& model, const ServingProfile& profile,
                              const WhatIfRequest& req, TpGraphs& graphs) {
  const int64_t mid_context = req.input_len + (req.output_len - 1) / 2;
  return graph(graphs.dec, [&] { return decode_workload(req.batch, {mid_context}, tp); }, model, profile);
}

/// Memory at the last decode step.
MemoryFit last_step_fit(const GpuSpec& gpu, int tp, const ModelConfig& model, const ServingProfile& profile,
                        const WhatIfRequest& req) {
  return memory_fit(gpu, model, profile, decode_workload(req.batch, {req.input_len + req.output_len - 1}, tp));
}

/// whatif_one with the graphs of `tp` shared through `graphs` (exactly predict_step's wall time: the step's
/// breakdowns and memory, which the row does not read, are not built).
WhatIfRow whatif_row(const GpuSpec& gpu, int tp, const ModelConfig& model, const ServingProfile& profile,
                     const WhatIfRequest& req, const KernelPredictor& predictor, TpGraphs& graphs) {
  if (req.batch < 1 || req.input_len < 1 || req.output_len < 1)
    throw InputError("whatif", "batch, input length and output length must be >= 1");
  WhatIfRow r;
  r.gpu = gpu.name;
  r.tp = tp;
  auto wall_us = [&](const StepGraph& g) {
    return simulate_step_totals(gpu, g.ops, profile, mode_for(profile, g.work.phase, std::nullopt), model.is_moe(),
                                predictor)
        .wall_time_us;
  };
  const StepGraph& pre = prefill_graph(tp, model, profile, req, graphs);
  const MemoryFit first = memory_fit(gpu, model, profile, pre.work);  // first: it checks the TP degree
  r.ttft_us = wall_us(pre);
  r.tpot_us = wall_us(decode_graph(tp, model, profile, req, graphs));
  const double total_us = r.ttft_us + static_cast<double>(req.output_len - 1) * r.tpot_us;
  r.tokens_per_s = static_cast<double>(req.batch * req.output_len) / (total_us * 1e-6);
  if (gpu.price_per_hour_usd && *gpu.price_per_hour_usd > 0)
    r.tokens_per_dollar = r.tokens_per_s * 3600.0 / (*gpu.price_per_hour_usd * tp);
  const MemoryFit last = last_step_fit(gpu, tp, model, profile, req);
  r.memory_bytes = std::max(last.total_bytes, first.total_bytes);
  r.usable_bytes = last.usable_bytes;
  r.fits = last.fits && first.fits;
  return r;
}

/// The TP degrees rank_gpus tries on `gpu`, and whether it chose them itself (the smallest of 1, 2, 4, 8 that
/// runs in one node, then larger ones until one fits).
std::vector<int> tp_choices(const GpuSpec& gpu, const WhatIfRequest& req, bool& automatic) {
  std::vector<int> choices = req.tp_choices;
  automatic = choices.empty();
  if (automatic)
    for (int tp : {1, 2, 4, 8})
      if (fits_node(gpu, tp)) choices.push_back(tp);
  return choices;
}

/// Prices, in one batch, every kernel the table's rows will ask for (price_ahead): each GPU's TP degrees, in
/// automatic mode up to the first whose memory fits (where rank_gpus stops). A step that cannot be built or a TP
/// degree the GPU refuses is left to whatif_row, which reports it.
void price_table(const std::vector<GpuSpec>& gpus, const ModelConfig& model, const ServingProfile& profile,
                 const WhatIfRequest& req, const KernelPredictor& predictor, std::map<int, TpGraphs>& graphs) {
  if (!predictor.batched() || req.batch < 1 || req.input_len < 1 || req.output_len < 1) return;
  std::vector<StepToPrice> steps;
  for (const auto& gpu : gpus) {
    bool automatic = false;
    for (int tp : tp_choices(gpu, req, automatic)) {
      try {
        const StepGraph& pre = prefill_graph(tp, model, profile, req, graphs[tp]);
        const StepGraph& dec = decode_graph(tp, model, profile, req, graphs[tp]);
        const bool fits = memory_fit(gpu, model, profile, pre.work).fits &&  // also checks the TP degree
                          last_step_fit(gpu, tp, model, profile, req).fits;
        steps.push_back({&gpu, &pre.ops, mode_for(profile, pre.work.phase, std::nullopt)});
        steps.push_back({&gpu, &dec.ops, mode_for(profile, dec.work.phase, std::nullopt)});
        if (automatic && fits) break;
      } catch (const InputError&) {
      }
    }
  }
  price_ahead(steps, predictor, req.threads);
}

}  // namespace

WhatIfRow whatif_one(const GpuSpec& gpu, int tp, const ModelConfig& model, const ServingProfile& profile,
                     const WhatIfRequest& req, const KernelPredictor& predictor) {
  TpGraphs graphs;
  return whatif_row(gpu, tp, model, profile, req, predictor, graphs);
}

std::vector<WhatIfRow> rank_gpus(const std::vector<GpuSpec>& gpus, const ModelConfig& model,
                                 const ServingProfile& profile, const WhatIfRequest& req,
                                 const KernelPredictor& predictor) {
  std::map<int, TpGraphs> graphs;  // per TP degree, shared by every GPU
  price_table(gpus, model, profile, req, predictor, graphs);
  // One GPU's rows: each TP degree asked for, or in automatic mode the chosen one.
  auto rows_of = [&](const GpuSpec& gpu, std::vector<WhatIfRow>& rows) {
    bool automatic = false;
    const std::vector<int> choices = tp_choices(gpu, req, automatic);
    // Automatic TP: the smallest degree that runs and fits; else the largest that runs; else the first error.
    std::optional<WhatIfRow> fitting, running, failed;
    for (int tp : choices) {
      WhatIfRow r;
      try {
        r = whatif_row(gpu, tp, model, profile, req, predictor, graphs.at(tp));
      } catch (const InputError& e) {
        r.gpu = gpu.name;
        r.tp = tp;
        r.error = e.detail();
      }
      if (!automatic) {
        rows.push_back(r);
        continue;
      }
      if (!r.error.empty()) {
        if (!failed) failed = r;
      } else if (r.fits) {
        fitting = r;
        break;
      } else {
        running = r;
      }
    }
    std::optional<WhatIfRow> chosen = fitting ? fitting : running ? running : failed;
    if (automatic && chosen) rows.push_back(*chosen);
  };
  // Every TP degree's graphs are built before the GPUs' rows read them (a graph that cannot be built keeps its
  // error for the rows that ask). The rows are independent: with --threads and a predictor whose results depend
  // only on (GPU, spec) (the learned and analytical ones: thread-safe, their costs mostly priced ahead above), the
  // GPUs are shared among threads; the table is the same, in the same order.
  const size_t nt = predictor.batched() ? std::min<size_t>(std::max(req.threads, 1), gpus.size()) : 1;
  for (const auto& gpu : gpus) {
    bool automatic = false;
    for (int tp : tp_choices(gpu, req, automatic)) {
      TpGraphs& g = graphs[tp];
      if (nt > 1)
        for (auto build : {prefill_graph, decode_graph}) try {
            build(tp, model, profile, req, g);
          } catch (...) {  // kept in the graph for the rows that ask for it
          }
    }
  }
  std::vector<std::vector<WhatIfRow>> per_gpu(gpus.size());
  for_each_index(gpus.size(), static_cast<int>(nt), [&](size_t i) { rows_of(gpus[i], per_gpu[i]); });
  std::vector<WhatIfRow> rows;
  for (const auto& r : per_gpu) rows.insert(rows.end(), r.begin(), r.end());
  std::stable_sort(rows.begin(), rows.end(), [](const WhatIfRow& a, const WhatIfRow& b) {
    const int ra = a.error.empty() ? (a.fits ? 0 : 1) : 2, rb = b.error.empty() ? (b.fits ? 0 : 1) : 2;
    if (ra != rb) return ra < rb;
    return a.tokens_per_s > b.tokens_per_s;
  });
  return rows;
}

std::vector<SensitivityRow> sensitivity(const GpuSpec& gpu, int tp, const ModelConfig& model,
                                        const ServingProfile& profile, const WhatIfRequest& req,
                                        const KernelPredictor& predictor) {
  struct Change {
    std::string name;
    std::function<void(GpuSpec&)> apply;
  };
  std::vector<Change> changes = {
      {"+50% DRAM bandwidth", [](GpuSpec& g) { g.dram_bytes_per_s *= 1.5; }},
      {"+20% SMs", [](GpuSpec& g) { g.sms = static_cast<int>(std::lround(g.sms * 1.2)); }},
      {"+20% SM clock", [](GpuSpec& g) { g.sustained_clock_mhz *= 1.2; g.boost_clock_mhz *= 1.2; }},
      {"+50% L2 bandwidth", [](GpuSpec& g) { g.l2_bytes_per_s *= 1.5; g.l2_bytes_per_clk_per_sm *= 1.5; }},
      {"-50% launch overhead", [](GpuSpec& g) { g.launch_overhead_us *= 0.5; }},
  };
  if (tp > 1)
    changes.push_back({"+50% interconnect", [](GpuSpec& g) {
                         g.nvlink_bytes_per_s *= 1.5;
                         g.pcie_bytes_per_s *= 1.5;
                       }});
  TpGraphs graphs;  // one TP degree: built once for the base and every change
  const WhatIfRow base = whatif_row(gpu, tp, model, profile, req, predictor, graphs);
  // A change is priced by the analytical model's response, anchored at the real GPU's prediction:
  // kernel(changed) = kernel(real) x analytical(changed) / analytical(real). The learned correction was fitted on
  // real GPUs; asked about a changed one its trees extrapolate a feature value no GPU had (a +20% SM clock made a
  // learned H200 prefill 8% slower), so only the physics answers what the change does.
  // Not GpuSpec::anchor with Predictor::predict_anchored, though the idea is the same: `predictor` may be any
  // KernelPredictor (asked about the real GPU only), and the Predictor's path gives other numbers: it clamps to the
  // changed GPU's ceiling, and under --clock sustained / auto it applies the changed GPU's sustained-load factor
  // where this scales the real GPU's (llama-3-70b on an H200, batch 32, 2048 + 256 tokens, --clock sustained: TPOT
  // under +50% DRAM bandwidth is -17.5% here, -7.9% there).
  // Every change asks for the real GPU's kernels again: each is predicted (and analysed) once.
  // The changes are independent: with --threads and a pure (thread-safe) predictor they are shared among threads,
  // the real GPU's values behind a lock (each is computed once; a value does not depend on which thread asked).
  const bool parallel = req.threads > 1 && predictor.batched();
  std::mutex mu;
  std::unordered_map<std::string, std::pair<double, double>> on_real;  // spec text -> (prediction, analytical)
  const KernelPredictor anchored = [&](const GpuSpec& g, const KernelSpec& s) {
    std::string key = s.to_string();
    double real = 0, a_real = 0;
    {
      std::lock_guard<std::mutex> lock(mu);  // uncontended on one thread
      auto it = on_real.find(key);
      if (it == on_real.end()) {
        const double a = analyze(gpu, s).latency_us;
        it = on_real.emplace(std::move(key), std::make_pair(predictor ? predictor(gpu, s) : a, a)).first;
      }
      std::tie(real, a_real) = it->second;
    }
    const double a_changed = analyze(g, s).latency_us;
    return a_real > 0 && a_changed > 0 ? real * a_changed / a_real : real;
  };
  std::vector<SensitivityRow> rows(changes.size());
  for_each_index(changes.size(), parallel ? req.threads : 1, [&](size_t i) {
    GpuSpec g = gpu;
    changes[i].apply(g);
    const WhatIfRow r = whatif_row(g, tp, model, profile, req, anchored, graphs);  // graphs: built by base
    rows[i] = {gpu.name, changes[i].name, 100.0 * (r.ttft_us - base.ttft_us) / base.ttft_us,
               100.0 * (r.tpot_us - base.tpot_us) / base.tpot_us};
  });
  return rows;
}

}  // namespace loom
