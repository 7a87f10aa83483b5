// The sweep plan: which cases loom-bench runs, per family, for a given partition size (no GPU needed).
#pragma once
#include "common.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bench {

enum class Kind { gemm_cublaslt, gemm_algos, gemm_loom, moe, rms_norm, layer_norm, softmax, elementwise, rotary,
                  attn_prefill, attn_decode };

/// One planned case. Fields a family does not use stay 0.
struct Case {
  Kind kind;
  std::string family;  ///< csv `family` column
  std::string group;   ///< --families selector it belongs to (gemm_cublaslt, moe, memory, ...)
  std::string spec;    ///< loom spec, with config= when known at plan time
  std::string impl;    ///< cublaslt, cublaslt_algo (expands to cublaslt_algo<i> at run time), loom
  DType dtype = DType::bf16;
  int64_t m = 0, n = 0, k = 0;                          // gemm; rows/cols for memory families (m,n)
  int64_t experts = 0, topk = 0, stage = 0;             // moe (m = tokens, n = hidden, k = inter; stage 13 or 2)
  int64_t batch = 0, heads = 0, kv_heads = 0, seq = 0, head_dim = 0, causal = 0;  // attention
  int op = 0;       ///< elementwise: 0 add, 1 mul, 2 silu, 3 gelu, 4 silu_mul
  int config = -1;  ///< index into kGemmCfgs / kMoeCfgs / kAttnCfgs
  double est_us = 0;  ///< roofline estimate on this partition, for budgeting (not a prediction)
  int expands = 1;    ///< cases this entry becomes at run time (upper bound for cublaslt_algo)
};

struct PlanOptions {
  int sms = 132;
  bool full_chip = true;  ///< the tune group (exhaustive config grid on random shapes) runs on the full chip only
  bool quick = false;
  std::set<std::string> families;  ///< empty = all; names: gemm (= gemm_cublaslt,gemm_algos,gemm_loom),
                                   ///< moe, memory (= rms_norm,...,rotary), attention, or any single group
  uint64_t tune_seed = 2026;  ///< seed of the tune group's random shapes (--tune-seed: a fresh held-out set)
  int max_algos = 32;              ///< requestedAlgoCount for the exhaustive cuBLASLt cases
  double max_case_us = 8000;       ///< cases whose estimate exceeds this on the partition are left out
};

/// The planned cases, in run order. Throws std::invalid_argument for an unknown family name.
std::vector<Case> plan_cases(const PlanOptions& o);

/// Cases from a plan file (one loom spec per line, `gemm ... dtype=bf16 config=NAME` or `moe ... config=NAME`;
/// `#` comments): exactly the points `loom tune --plan` asks for. Throws std::invalid_argument naming the line.
std::vector<Case> plan_from_file(const std::string& path, const PlanOptions& o);

/// Known --families names.
const std::vector<std::string>& family_names();

}  // namespace bench
