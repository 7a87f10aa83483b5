// Kernel costs for step timelines: the per-call and process-wide caches, the L2-inheritance decision, and pricing
// a table's kernels ahead in one batch (e2e/kernel_costs.h, e2e/timeline.h).
#include "e2e/kernel_costs.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_set>

#include "analytical/analysis.h"
#include "analytical/demand.h"  // kKernelStartupUs: the per-kernel start the megakernel removes
#include "core/error.h"
#include "core/parallel.h"
#include "e2e/timeline.h"
#include "hw/gpu_values.h"
#include "kernels/shape.h"

namespace loom {

namespace {

bool chip_wide(const std::string& pipe) { return pipe == "dram" || pipe == "l2" || pipe == "link"; }

/// An all-reduce the profile gives impl=custom runs NCCL on a node where the engines do not run their custom
/// all-reduce (engines_run_custom_all_reduce): parse_shape prices it as NCCL, its analysis noting why. The kernel
/// list then says what is priced, impl=nccl; the priced spec (and its cost cache key) stays the op's. Null for any
/// other launch.
std::shared_ptr<const OpShape> listed_as_priced(const GpuSpec& gpu, const OpShape& shape) {
  if (shape.parts.size() != 1 || shape.parts.front().family != "all_reduce") return nullptr;
  const KernelSpec& spec = shape.parts.front();
  const auto impl = spec.params.find("impl");
  if (impl == spec.params.end() || impl->second != "custom" || !parse_shape(spec, gpu).engine_nccl) return nullptr;
  auto listed = std::make_shared<OpShape>(shape);
  listed->parts.front().params["impl"] = "nccl";
  listed->text = listed->parts.front().to_string();
  return listed;
}

/// Every GpuSpec field a model may read, as bytes (gpu_hardware_values, with the key, the CUDA-graph gap and the
/// anchor): two GPUs with equal fingerprints predict identically.
std::string gpu_fingerprint(const GpuSpec& g) {
  std::string o = gpu_hardware_values(g, false);
  o.append(reinterpret_cast<const char*>(&g.graph_gap_us), sizeof g.graph_gap_us);
  const size_t n = g.name.size();
  o.append(reinterpret_cast<const char*>(&n), sizeof n);
  o += g.name;
  // An edited GPU is predicted through its catalogue anchor (Predictor::predict_anchored): the same values with
  // another anchor, or none, are other costs.
  o += g.anchor ? '\1' + gpu_fingerprint(*g.anchor) : std::string(1, '\0');
  return o;
}

/// Process-wide costs of pure predictors (the analytical model, as_kernel_predictor): the GEMM config search
/// costs 0.1-0.4 ms per shape, a learned prediction ~15 us, and steps, what-if tables and sweeps ask for the same
/// shapes again and again. A table is shared: clearing the cache while a step holds one only orphans it.
struct SharedCache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<CostTable>> tables;  ///< (predictor, detail, GPU) -> costs
  size_t entries = 0;
};
SharedCache& shared_cache() {
  static SharedCache c;
  return c;
}

/// The process-wide table of `p`'s costs on `gpu` (null for an opaque predictor: its costs are kept for one call).
/// A pure predictor's costs carry the analysis-derived fields (tails) only when the mode needs them (`need_shape`):
/// the two kinds are kept apart. The analytical model always has them.
std::shared_ptr<CostTable> shared_table(const GpuSpec& gpu, const KernelPredictor& p, bool need_shape) {
  if (p && p.cache_id().empty()) return nullptr;
  const std::string key = (p ? p.cache_id() + (need_shape ? "|shape|" : "|latency|") : std::string("analytical|")) +
                          gpu_fingerprint(gpu);
  SharedCache& shared = shared_cache();
  std::lock_guard<std::mutex> lock(shared.mu);
  auto& table = shared.tables[key];
  if (!table) table = std::make_shared<CostTable>();
  return table;
}

/// Keeps `c` under `key` in a shared table, bounding the memory of long sweeps; call with the cache's lock held.
void keep_shared(SharedCache& shared, CostTable& table, const std::string& key, const KernelCost& c) {
  if (shared.entries > 200000) shared.tables.clear(), shared.entries = 0;
  shared.entries += table.emplace(key, c).second ? 1 : 0;
}

/// Inside a step a memory-bound kernel reads what the kernel before it has just written (the norm reads the
/// residual add's output, silu_mul the gate/up GEMM's, rotary the QKV GEMM's): when its compulsory traffic fits in
/// half the L2 those bytes are still there, so it is priced warm (l2=warm, learned from loops that find their
/// inputs in L2). GEMMs (weights) and attention (KV cache) stream from DRAM and stay cold; a spec that says l2=
/// keeps it.
KernelSpec inherited_l2(const GpuSpec& gpu, const KernelSpec& spec) {
  static const char* const kInheriting[] = {"rms_norm", "layer_norm", "elementwise", "rotary", "softmax"};
  bool inherits = false;
  for (const char* f : kInheriting) inherits |= spec.family == f;
  if (!inherits || spec.params.count("l2") || gpu.l2_bytes <= 0) return spec;
  const double bytes = compulsory_dram_bytes(gpu, spec);
  if (bytes > 0.5 * double(gpu.l2_bytes) || bytes < (64 << 10)) return spec;
  KernelSpec warm = spec;
  warm.params["l2"] = "warm";
  return warm;
}

/// The cost cache's key of a launch's part: a one-part launch's text is its part's canonical text.
std::string part_key(const OpShape& shape, const KernelSpec& part) {
  return shape.parts.size() == 1 ? shape.text : part.to_string();
}

}  // namespace

CostCache::CostCache(const GpuSpec& gpu, const KernelPredictor& p, bool need_shape, bool listing)
    : gpu_(gpu), p_(p), shape_(need_shape), listing_(listing), shared_(shared_table(gpu, p, need_shape)) {}

const OpCost& CostCache::get(const OpShape& shape) {
  if (const size_t i = shapes_.find(&shape); i != PtrIndex::npos) return ops_[i];
  OpCost oc;
  for (const auto& part : shape.parts) {
    const KernelCost& c = get(part, part_key(shape, part));
    oc.gpu_us += c.latency_us;
    oc.fixed_us += c.fixed_overhead_us;
    oc.last = &c;
  }
  if (listing_) oc.listed = listed_as_priced(gpu_, shape);
  bool added = false;
  shapes_.find_or_add(&shape, added);  // index ops_.size()
  ops_.push_back(std::move(oc));
  return ops_.back();
}

const KernelCost& CostCache::get(const KernelSpec& given, std::string key) {
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  if (shared_) {
    SharedCache& shared = shared_cache();
    std::lock_guard<std::mutex> lock(shared.mu);
    auto s = shared_->find(key);
    if (s != shared_->end()) return cache_.emplace(std::move(key), s->second).first->second;
  }
  const KernelCost c = compute(inherited_l2(gpu_, given));
  if (shared_) {
    SharedCache& shared = shared_cache();
    std::lock_guard<std::mutex> lock(shared.mu);
    keep_shared(shared, *shared_, key, c);
  }
  return cache_.emplace(std::move(key), c).first->second;
}

KernelCost CostCache::compute(const KernelSpec& spec) const {
  KernelCost c;
  if (!p_ || shape_) {
    const Analysis a = analyze(gpu_, spec);
    c.latency_us = p_ ? p_(gpu_, spec) : a.latency_us;
    // Inside a megakernel a kernel's start (launch-to-first-instruction, teardown) disappears; its operand
    // pipeline fill does not (tiles still fill their pipelines), so only the startup part is removed.
    c.fixed_overhead_us = std::min(a.fixed_overhead_us, kKernelStartupUs);
    const double body_us = std::max(c.latency_us - c.fixed_overhead_us, 1e-9);
    const double waves = static_cast<double>(std::max<int64_t>(1, a.launch.waves));
    c.tail_us = body_us / waves;
    const double fill = a.launch.last_wave_fill > 0 ? std::clamp(a.launch.last_wave_fill, 0.0, 1.0) : 1.0;
    c.tail_idle = chip_wide(a.bottleneck) ? 1.0 - std::clamp(a.ceiling_us / body_us, 0.0, 1.0) : 1.0 - fill;
  } else {
    c.latency_us = p_(gpu_, spec);
  }
  return c;
}

void clear_kernel_cost_cache() {
  SharedCache& c = shared_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.tables.clear();
  c.entries = 0;
}

void price_ahead(const std::vector<StepToPrice>& steps, const KernelPredictor& predictor, int threads) {
  if (!predictor.batched() || predictor.cache_id().empty()) return;
  // The kernels no table holds yet, each once: (its GPU's table, key, the spec as the step prices it).
  std::vector<const GpuSpec*> gpus;
  std::vector<KernelSpec> specs;
  std::vector<std::pair<CostTable*, std::string>> where;
  std::vector<std::shared_ptr<CostTable>> tables;  // held until the costs are kept
  std::unordered_map<const CostTable*, std::unordered_set<std::string>> asked;
  for (const StepToPrice& step : steps) {
    if (step.mode == ExecMode::megakernel || !step.ops) continue;  // its costs need the analyses' tails too
    std::shared_ptr<CostTable> table = shared_table(*step.gpu, predictor, false);
    tables.push_back(table);
    std::unordered_set<const OpShape*> shapes;
    auto& mine = asked[table.get()];
    for (const Op& op : *step.ops) {
      if (!shapes.insert(op.shape.get()).second) continue;
      for (const KernelSpec& part : op.shape->parts) {
        std::string key = part_key(*op.shape, part);
        if (mine.count(key)) continue;
        {
          std::lock_guard<std::mutex> lock(shared_cache().mu);
          if (table->count(key)) continue;
        }
        mine.insert(key);
        gpus.push_back(step.gpu);
        specs.push_back(part);
        where.emplace_back(table.get(), std::move(key));
      }
    }
  }
  if (specs.empty()) return;
  // Each as the step prices it (inherited_l2 analyses the memory-bound ones), spread over the threads.
  for_each_index(specs.size(), threads, [&](size_t i) { specs[i] = inherited_l2(*gpus[i], specs[i]); });
  std::vector<double> out;
  std::vector<uint8_t> priced(specs.size(), 0);
  try {
    // A kernel some GPU cannot run (P100/V100/T4: no bf16) is left to its step, which reports it where it would
    // have; every other row is priced here (the same value the step would compute: the predictor is pure).
    std::vector<uint8_t> failed;
    predictor.batch(gpus, specs, out, threads, &failed);
    for (size_t i = 0; i < specs.size(); ++i) priced[i] = failed.size() == specs.size() ? !failed[i] : 1;
  } catch (const InputError&) {
    // A batch form that throws instead: price each GPU's rows on their own and leave a failing GPU's to its steps.
    out.assign(specs.size(), 0);
    std::map<const GpuSpec*, std::vector<size_t>> by_gpu;
    for (size_t i = 0; i < specs.size(); ++i) by_gpu[gpus[i]].push_back(i);
    for (const auto& [gpu, rows] : by_gpu) {
      std::vector<const GpuSpec*> g(rows.size(), gpu);
      std::vector<KernelSpec> s;
      for (size_t i : rows) s.push_back(specs[i]);
      std::vector<double> o;
      try {
        predictor.batch(g, s, o, threads);
      } catch (const InputError&) {
        continue;
      }
      for (size_t j = 0; j < rows.size(); ++j) out[rows[j]] = o[j], priced[rows[j]] = 1;
    }
  }
  SharedCache& shared = shared_cache();
  std::lock_guard<std::mutex> lock(shared.mu);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!priced[i]) continue;
    KernelCost c;
    c.latency_us = out[i];
    keep_shared(shared, *where[i].first, where[i].second, c);
  }
}

}  // namespace loom
