// cuBLASLt algorithm sweeps (bench/cublaslt/cublaslt_sweep.cu): every config of the cuBLASLt config space timed on
// F.linear bf16 GEMMs, read into a grid [shape][config] for `loom tune --family gemm-cublaslt`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::wave {

/// One cuBLASLt algo configuration (the attributes cublasLtMatmulAlgoConfigSetAttribute takes, plus its geometry).
struct LtConfig {
  std::string name;  ///< "a<algo>_t<BMxBN>_s<stages>_k<splitK>_r<red>_cs<swz>_c<custom>_i<inner>_cl<cluster>"
  int algo = 0, splitk = 1, reduction = 0, cta_swizzle = 0, custom = 0, inner = 0;
  int tile_id = 0, stages_id = 0, cluster_id = 0;  ///< cuBLASLt enum values (cublasLt.h)
  int bm = 0, bn = 0;  ///< tile, in cuBLAS's column-major m (= F.linear's N) and n (= M)
  int bk = 64;         ///< K depth of one stage ("64x3" -> 64; undefined stages -> 64)
  std::string stages, cluster;  ///< "64x3", "64xAUTO"; "1x2x1" or "auto"
};

/// F.linear y[M,N] = x[M,K] W[N,K]^T.
struct LtShape {
  int64_t m = 0, n = 0, k = 0;
  std::string source;  ///< "llama3-8b/qkv/tp2" or "random"
};

struct LtSweep {
  std::string path, gpu_name;
  int sms = 0, cublaslt_version = 0;
  int64_t workspace_bytes = 0;
  std::vector<LtConfig> configs;           ///< first-appearance order
  std::vector<LtShape> shapes;             ///< complete shapes only (every config has a row)
  std::vector<std::vector<double>> us;     ///< [shape][config]; NaN = refused by AlgoCheck or failed to run
  std::vector<double> heur0_us;            ///< the heuristic's own #0 algo, timed as returned; NaN if it failed
  std::vector<int> heur0_config;           ///< index of the config the heuristic ranked #0 (-1: not in the space)
  std::vector<double> heur_query_us;       ///< host time of cublasLtMatmulAlgoGetHeuristic (32 candidates)
  int64_t incomplete_shapes = 0;           ///< shapes with missing config rows (a sweep cut off mid-shape)
};

/// Reads a sweep CSV (plain or gzip). Throws InputError("<path>:<line>", "field '<f>': ...; ...") on a malformed row,
/// a missing column, a config whose attributes change between rows, or a shape listing a config twice.
LtSweep read_lt_sweep(const std::string& path);
/// The same from text in memory (tests); `name` is used in error messages.
LtSweep read_lt_sweep_text(std::string_view text, const std::string& name);

}  // namespace loom::wave
