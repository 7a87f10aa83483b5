// gemm_path(): GEMM code paths from cuBLAS / CUTLASS kernel names as traced on Hopper.
#include "trace/gemm_path.h"

#include <gtest/gtest.h>

namespace loom {

TEST(GemmPath, ClassifiesTracedNames) {
  EXPECT_EQ(gemm_path("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT").path, "wgmma");
  auto sk = gemm_path("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_128x256_64x3_tn_align2>("
                      "cutlass_80_tensorop_bf16_s16816gemm_bf16_128x256_64x3_tn_align2::Params);void "
                      "cublasLt::splitKreduce_kernel<32, 16, int, float>(int)");
  EXPECT_EQ(sk.path, "mma_sync");
  EXPECT_TRUE(sk.split_k);
  EXPECT_EQ(sk.kernel, "cutlass_80_tensorop_bf16_s16816gemm_bf16_128x256_64x3_tn_align2");
  EXPECT_EQ(gemm_path("void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_64x64_nn_align1>(x)").path,
            "sm75");
  EXPECT_EQ(gemm_path("cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align4>").path,
            "wmma");
  EXPECT_EQ(gemm_path("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4").path,
            "simt");
  EXPECT_EQ(gemm_path("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 2, 2, true>(x)").path, "gemv");
  EXPECT_EQ(gemm_path("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_splitK_TNT").split_k, true);
  EXPECT_EQ(gemm_path("vectorized_elementwise_kernel<4>").path, "");
}

}  // namespace loom
