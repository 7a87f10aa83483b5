// Explicit instantiations of loom's dense GEMM configs 0-7 (split across files so nvcc runs in parallel).
#include "gemm_tiled.cuh"
namespace bench {
LOOM_INST_DENSE(0) LOOM_INST_DENSE(1) LOOM_INST_DENSE(2) LOOM_INST_DENSE(3)
LOOM_INST_DENSE(4) LOOM_INST_DENSE(5) LOOM_INST_DENSE(6) LOOM_INST_DENSE(7)
}  // namespace bench
