// Explicit instantiations of loom's dense GEMM configs 8-15.
#include "gemm_tiled.cuh"
namespace bench {
LOOM_INST_DENSE(8) LOOM_INST_DENSE(9) LOOM_INST_DENSE(10) LOOM_INST_DENSE(11)
LOOM_INST_DENSE(12) LOOM_INST_DENSE(13) LOOM_INST_DENSE(14) LOOM_INST_DENSE(15)
}  // namespace bench
