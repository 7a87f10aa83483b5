// Fused-MoE config files in the serving engines' own format, from the wave tables of the Triton fused-MoE kernel.
// vLLM (model_executor/layers/fused_moe/configs/) and SGLang (srt/layers/moe/fused_moe_triton/configs/triton_*/) load
// `E=<experts>,N=<inter per GPU>,device_name=<CUDA name, spaces as _>[,dtype=fp8_w8a8].json`: an object whose keys are
// batch sizes M (tokens, as decimal strings) and whose values are the kernel's launch knobs {BLOCK_SIZE_M,
// BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages}; at run time the engine takes the entry whose key
// is nearest to its M, and uses it for both GEMMs of the layer (w13 and w2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "wave/decide.h"

namespace loom::wave {

/// One MoE layer as one GPU runs it (inter = the model's expert intermediate size / TP).
struct MoeLayerShape {
  int64_t experts = 0, topk = 0, hidden = 0, inter = 0;
};

/// vLLM's default tuning batch sizes (benchmarks/kernels/benchmark_moe.py): 1 ... 4096.
const std::vector<int64_t>& engine_batch_sizes();

/// The engines' file name; dtype "bf16" -> no selector, "fp8" -> ",dtype=fp8_w8a8".
std::string moe_config_file_name(const MoeLayerShape& l, const std::string& device_name, const std::string& dtype);

struct EngineChoice {
  int64_t m = 0;
  int config = -1;                 ///< index into CompiledTables::configs
  double w13_us = 0, w2_us = 0;    ///< predicted, for the chosen config's macro
  bool extrapolated = false;       ///< a wave bucket without samples, or M above the measured range
};

/// Per batch size, the config minimising predicted w13 + w2 time: with a per-config model (config_model.h), every
/// config's two predictions summed; else every macro's two bilinear predictions summed, then the micro config
/// (stages, warps, GROUP_SIZE_M) of the w13 cell (the larger GEMM: N = 2*inter).
/// `tables` must be a moe-triton target. No allocation per decision beyond the result vector.
std::vector<EngineChoice> choose_engine_configs(const CompiledTables& tables, const MoeLayerShape& l,
                                                const std::vector<int64_t>& batch_sizes, int64_t max_measured_m);

/// The file's JSON: {"<M>": {"BLOCK_SIZE_M": .., "BLOCK_SIZE_N": .., "BLOCK_SIZE_K": .., "GROUP_SIZE_M": ..,
/// "num_warps": .., "num_stages": ..}, ...} in ascending M, nothing else (older engine loaders read every key as M).
nlohmann::ordered_json engine_config_json(const CompiledTables& tables, const std::vector<EngineChoice>& choices);

}  // namespace loom::wave
