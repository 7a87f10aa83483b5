// Wave model, step 3: the measured pool (every (shape, config) of loom-bench's tuning sweep on a full chip), the
// choice of sparse anchors from it, and building the dual tables from the sampled shapes only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hw/gpu_spec.h"
#include "trace/trace.h"
#include "wave/tables.h"

namespace loom::wave {

/// Measured latency of every config on every complete shape of one GPU (full chip) and family.
struct Pool {
  std::string gpu, family;
  int sms = 0;
  std::vector<TuneConfig> configs;          ///< loom-bench order (corpus order), with regs and ctas_per_sm filled
  std::vector<TuneShape> shapes;            ///< shapes with every config measured
  std::vector<std::string> keys;            ///< tune_spec(shape)
  std::vector<std::vector<double>> us;      ///< [shape][config] median_us (mean of repeated measurements)
  int64_t incomplete_shapes = 0;            ///< shapes with some configs missing (left out)
  int64_t rows = 0;                         ///< corpus rows read
};

/// Builds the pool from corpora: rows with impl "loom", the family, a config= in the spec, on the corpus of `gpu_key`
/// with the most SMs. Throws InputError(traces, ...) when there is none.
Pool load_pool(const std::vector<Corpus>& corpora, const GpuSpec& gpu, const std::string& gpu_key,
               const std::string& family, const std::string& traces_where);

/// Macro configs of a config list: name -> indices of its configs, in first-appearance order.
std::vector<std::pair<std::string, std::vector<int>>> group_macros(const std::vector<TuneConfig>& configs);

struct AnchorOptions {
  double fraction = 0.25;   ///< at most this share of the pool's shapes is sampled
  int per_bucket = 4;       ///< wanted sampled shapes per (macro, wave bucket)
};

/// Greedy anchor choice from the pool: repeatedly takes the shape that fills the most (macro, wave bucket) slots
/// still short of per_bucket and the most empty (macro, bucket, L anchor) cells; stops when nothing is gained or at
/// the budget. Deterministic (ties broken by a hash of the shape's spec). Returns sampled[shape].
std::vector<bool> select_anchors(const Pool& pool, const AnchorOptions& opt);

/// Fits table 1 and table 2 from the pool's sampled shapes only. `progress(done, total)` is called per macro.
TuneTables build_tables(const Pool& pool, const std::vector<bool>& sampled, const std::string& default_config,
                        const std::function<void(size_t, size_t)>& progress = {});

/// The family's fixed default config (validation baseline): gemm 128x128x32_s3_w4 (a cuBLAS-era classic tile),
/// moe 64x64x64_s3_w4 (vLLM's default BLOCK_SIZE_M=64, BLOCK_SIZE_N=64 fused-MoE tile in loom-bench's space).
std::string default_config(const std::string& family);

}  // namespace loom::wave
