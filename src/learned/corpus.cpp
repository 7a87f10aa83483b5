// Reads the trace corpus into Measurements for training and validation.
#include "learned/corpus.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "learned/model.h"
#include "trace/gpu_names.h"
#include "trace/trace.h"

namespace loom {

bool is_tune_sweep_tool(const std::string& tool) {
  return tool.rfind("moe_sweep.py", 0) == 0 || tool.rfind("gemm_sweep.py", 0) == 0;
}

namespace {
const std::string kTooCoarse = "median below " + std::to_string(static_cast<int>(kMinResolutionMultiple)) +
                               "x the source's timing resolution (#resolution_us)";
}  // namespace

MeasurementSet load_measurements(const std::string& traces_dir) {
  if (!std::filesystem::exists(traces_dir)) throw InputError(traces_dir, "no such directory; pass --traces DIR");
  MeasurementSet set;
  GpuNameTable names = GpuNameTable::load_default();
  std::string hashes;
  for (const Corpus& c : read_corpus_dir(traces_dir)) {
    // Measured collectives are fitted by `loom trace fit-collectives` (models/collectives.json), not by the
    // efficiency model: their corpora stay out of its training set and its corpus hash.
    if (!c.rows.empty() && std::all_of(c.rows.begin(), c.rows.end(), [](const CorpusRow& r) {
          return r.family == "all_reduce" || r.family == "all_gather" || r.family == "reduce_scatter" ||
                 r.family == "send_recv";
        }))
      continue;
    // Tuning sweeps of the Triton fused-MoE kernel and the Triton GEMM (every config on every shape, their baselines
    // and the cuBLAS rows measured beside them) are the tuner's data (`loom tune --family moe-triton|gemm-triton`),
    // not the efficiency model's.
    if (auto tool = c.meta.find("tool"); tool != c.meta.end() && is_tune_sweep_tool(tool->second)) continue;
    set.files.push_back(c.path);
    // Hash the canonical text, not the gzip bytes: recompressing a file must not count as a corpus change. The
    // canonical text is schema version 1 (names inline), so storing a file as version 2 does not count either.
    hashes += fnv1a_hex(format_corpus(c, 1)) + "\n";
    std::string key = !c.gpu_key.empty() ? c.gpu_key : names.key_for(c.gpu).value_or("");
    if (key.empty()) {
      set.skipped["GPU '" + c.gpu + "' not in traces/gpu_names.tsv"] += static_cast<int>(c.rows.size());
      continue;
    }
    for (const CorpusRow& r : c.rows) {
      if (r.family.rfind("e2e", 0) == 0) continue;  // whole-model runs are validated by `loom validate --e2e`
      // A source that publishes rounded times (`#resolution_us`, e.g. Vidur's whole microseconds) cannot teach or
      // judge a kernel much shorter than its rounding step: below kMinResolutionMultiple steps the rounding alone
      // moves a row by more than 2.5%, more than the model's own error on such kernels.
      if (c.resolution_us > 0 && r.median_us < kMinResolutionMultiple * c.resolution_us) {
        ++set.skipped[kTooCoarse];
        continue;
      }
      Measurement m;
      m.gpu_key = key;
      m.sms = static_cast<int>(c.sms);
      m.family = r.family;
      m.spec = r.spec;
      // loom-bench wrote fp8 GEMMs as dtype=fp8_e4m3 (its own type name); the vocabulary's name is fp8.
      if (auto p = m.spec.find("dtype=fp8_e4m3"); p != std::string::npos) m.spec.replace(p, 14, "dtype=fp8");
      // A corpus measured without an L2 flush (public profiles: `#l2=warm`; loom's --warm sweeps: `#flush=none`)
      // measured warm kernels: say so in the spec, so the model learns the cache state as an input.
      const auto l2 = c.meta.find("l2"), flush = c.meta.find("flush");
      const bool warm =
          (l2 != c.meta.end() && l2->second == "warm") || (flush != c.meta.end() && flush->second == "none");
      if (warm && m.spec.find(" l2=") == std::string::npos) m.spec += " l2=warm";
      m.impl = r.impl;
      // A spec that names its implementation (impl=fused, impl=paged: kernels written in Triton) wins over the
      // trace's library column, so the row trains that implementation's forest.
      for (const char* named : {" impl=fused", " impl=paged"})
        if (m.spec.find(named) != std::string::npos) m.impl = std::string(named).substr(6);
      m.median_us = r.median_us;
      m.spread_pct = r.spread_pct;
      m.source = c.path + ":case " + std::to_string(r.case_id);
      if (auto it = c.meta.find("dataset"); it != c.meta.end()) m.dataset = it->second;
      if (auto it = c.meta.find("dataset_split"); it != c.meta.end()) m.dataset_split = it->second;
      set.rows.push_back(std::move(m));
    }
  }
  if (set.files.empty()) throw InputError(traces_dir, "no *.corpus.csv.gz files below it; see traces/README.md");
  set.corpus_hash = fnv1a_hex(hashes);
  return set;
}

}  // namespace loom
