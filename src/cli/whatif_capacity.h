// `loom whatif --rate R | --requests FILE --slo ...`: capacity planning across GPU kinds (src/serving/capacity.h).
#pragma once

#include <vector>

#include "cli/args.h"
#include "e2e/e2e.h"

namespace loom::cli {

/// Per GPU and tp (--tp list, default every one of 1,2,4,8 the model divides by): the highest rate one replica
/// serves within the SLO (default ttft=2s,tpot=50ms), replicas and GPUs for the target rate, $/h and $/M tokens.
int whatif_capacity(const Args& args, const std::vector<GpuSpec>& gpus, const ModelConfig& model,
                    const ServingProfile& profile, const KernelPredictor& predictor);

}  // namespace loom::cli
