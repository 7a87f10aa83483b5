// Helpers shared by the CLI commands: choosing GPUs from --gpu/--set, and JSON views of an Analysis.
#pragma once

#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analytical/analysis.h"
#include "analytical/sustained_load.h"
#include "cli/args.h"
#include "e2e/kernel_predictor.h"
#include "hw/catalog.h"
#include "learned/predictor.h"

namespace loom::cli {

/// Every --set value, after checking that no key is given twice with different values in one scope ("key=v" for
/// all GPUs, "GPU:key=v" for one): the first would be silently overridden. A general --set followed by one for a
/// single GPU is an override of it, not a repeat.
std::vector<std::string> set_overrides(const Args& args);

/// catalog.get(name, overrides), with an unknown name reported against `flag` (the catalogue names --gpu; the name
/// may come from --from, --gpus or `gpus show`).
GpuSpec gpu_named(const Catalog& catalog, const std::string& name, const std::vector<std::string>& overrides,
                  const std::string& flag);

/// The GPUs of a --gpu/--gpus value other than "all": a comma list of keys or YAML paths, where a value that names an
/// existing file is that one file even when its name holds a comma. Throws InputError(flag) for an empty item or an
/// "all" inside a list.
std::vector<std::string> gpu_list(const std::string& which, const std::string& flag);

/// GPUs named by --gpu (a key, a YAML path, "all", or a comma list), each with every --set override applied.
std::vector<GpuSpec> select_gpus(const Catalog& catalog, const Args& args);
/// The --set overrides of GPU `gpu` among `names` (the GPUs of `flag`): every unscoped --set, and `GPU:key=value`
/// where GPU is `gpu`. Throws InputError("--set") for a scope naming a GPU not among `names`.
std::vector<std::string> overrides_for(const std::string& gpu, const std::vector<std::string>& names,
                                       const Args& args, const std::string& flag);
/// The GPUs `names` of `flag` (--gpu, --gpus), each with its overrides (overrides_for); refuses an empty list and
/// one GPU named twice (refuse_duplicate_gpus).
std::vector<GpuSpec> gpus_named(const Catalog& catalog, const std::vector<std::string>& names, const Args& args,
                                const std::string& flag);
/// Throws InputError(flag) when two of `names` are one GPU (the same key twice, or a key and its file, or two
/// spellings of one file), naming both.
void refuse_duplicate_gpus(const Catalog& catalog, const std::vector<std::string>& names, const std::string& flag);

/// JSON of one analysis: latency_us, ceiling_us, bottleneck, config, pipelines[], launch{}, ...
nlohmann::json analysis_json(const Analysis& a);

/// JSON of a prediction: analysis_json plus `latency_us` (the model's), `model`, `analytical_latency_us` and, for
/// learned predictions, `achievable_us`.
nlohmann::json prediction_json(const Prediction& p);

/// The per-kernel predictor end-to-end commands compose: `--kernel-model learned` (default; the learned efficiency
/// model where it covers a family, else analytical) or `analytical`, under --clock (boost | sustained | auto: each
/// kernel's share past the GPU's throttle onset); `sustained_weight` scales the sustained factor (e2e's step-level
/// auto). A pure predictor (as_kernel_predictor: its costs are shared by every step of the command); empty = e2e's
/// analytical default at boost.
KernelPredictor kernel_predictor(const Args& args, std::optional<ClockMode> clock = std::nullopt,
                                 double sustained_weight = 1.0);

/// The serving commands' predictors (simulate, validate --serving, whatif --rate): `kernel` as kernel_predictor, and
/// under `--clock auto` kernel at boost plus `step_sustained`, the fully throttled predictor that each step past the
/// GPU's throttle onset is partly priced with (the step decides, as in `loom e2e`; StepCost::set_step_clock).
struct ServingPredictors {
  KernelPredictor kernel, step_sustained;
};
ServingPredictors serving_predictors(const Args& args);

/// Throws InputError(where, ...) when the kernel's operands (its compulsory DRAM bytes: each input and output
/// once) exceed the GPU's memory: no such kernel can run on one GPU, so a latency for it would be fiction.

using loom::require_fits_memory;  // learned/predictor.h
using loom::require_operands_fit;

/// Writes `text` to stdout.
void emit(const std::string& text);
/// Warnings (e.g. position_warning) as the table formats print them: one "WARNING: ..." line each.
std::string warning_lines(const std::vector<std::string>& warnings);
/// The same warnings on stderr ("loom: warning: ..."), for CSV output, which must stay one table.
void warn_stderr(const std::vector<std::string>& warnings);

}  // namespace loom::cli
