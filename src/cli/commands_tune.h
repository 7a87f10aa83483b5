// Entry point of `loom tune` (wave-aware bilinear model and microsecond config selection; src/wave/).
#pragma once

#include <string>
#include <vector>

namespace loom::cli {

/// `loom tune --gpu G --kernel SPEC` | --plan | --fit | --validate | --export (see `loom --help`).
int cmd_tune(const std::vector<std::string>& argv);

class Args;
/// `loom tune --gpu G --model M --export-moe-configs DIR [--tp 1,2,4,8] [--dtype bf16|fp8] [--tables PATH]`:
/// the Triton fused-MoE configs of model M's MoE layers in the engines' file format (cmd_tune_engine.cpp).
int run_export_moe_configs(const Args& args);
/// `loom tune --family gemm-cublaslt --gpu G (--fit | --validate) --traces DIR|FILE` and `--export --out DIR`:
/// cuBLASLt algorithm selection (cmd_tune_cublaslt.cpp).
int run_tune_cublaslt(const Args& args);

}  // namespace loom::cli
