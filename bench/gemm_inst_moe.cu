// Explicit instantiations of loom's fused-MoE configs 0-7.
#include "gemm_tiled.cuh"
namespace bench {
LOOM_INST_MOE(0) LOOM_INST_MOE(1) LOOM_INST_MOE(2) LOOM_INST_MOE(3)
LOOM_INST_MOE(4) LOOM_INST_MOE(5) LOOM_INST_MOE(6) LOOM_INST_MOE(7)
}  // namespace bench
