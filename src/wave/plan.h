// Wave model, sparse sampling plan: the (shape, config) points worth measuring for one GPU and family, one loom spec
// per line in the format `loom-bench --plan FILE` runs (bench/shapes.cpp plan_from_file).
#pragma once

#include <string>
#include <vector>

#include "hw/gpu_spec.h"
#include "wave/mapping.h"

namespace loom::wave {

/// loom-bench's configs of a family (bench/configs.h, the kernels it instantiates), occupancy filled for `gpu`;
/// measured registers are taken from `known` (e.g. committed tables) when it has the config, else 128 per thread.
std::vector<TuneConfig> bench_configs(const std::string& family, const GpuSpec& gpu,
                                      const std::vector<TuneConfig>& known = {});

struct PlanStats {
  size_t points = 0;          ///< plan lines
  size_t shapes = 0;          ///< distinct shapes among them
  size_t macro_buckets = 0;   ///< (macro, wave bucket) cells covered
};

/// The plan: per macro config and reachable wave bucket, anchors at the bucket's low and high grid sizes crossed
/// with a short and a long inner loop, plus a centre point (gemm: 5 anchors; moe: 2 grid sizes x 3 MoE models of
/// short/middle/long L), each measured with every micro config of the macro. Shapes stay inside the tuning grid's
/// range (gemm M <= 8192, 1024 <= N <= 16384, 512 <= K <= 8192; moe tokens <= 8192).
std::vector<std::string> make_plan(const std::string& family, const std::vector<TuneConfig>& configs, int sms,
                                   PlanStats* stats = nullptr);

}  // namespace loom::wave
