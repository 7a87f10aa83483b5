// compulsory_dram_bytes (the e2e cost cache's L2-inheritance input) against analyze(): the same number for random
// shapes of every family it shortcuts, and of one it does not, on every catalogue GPU; the same refusals.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "analytical/analysis.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"

namespace loom {
namespace {

TEST(CompulsoryBytes, SameAsTheFullAnalysis) {
  const Catalog c = Catalog::load();
  std::mt19937_64 rng(7);
  auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  const char* dtypes[] = {"bf16", "fp16", "fp32"};
  int compared = 0, refused = 0;
  for (const auto& name : c.names()) {
    const GpuSpec gpu = c.get(name);
    for (int i = 0; i < 60; ++i) {
      const std::string dt = dtypes[rng() % 3];
      const int64_t rows = pick({1, 3, 8, 64, 1000, 4096, 32768}), cols = pick({64, 100, 4096, 5120, 8192, 151936});
      std::string spec;
      switch (i % 7) {
        case 0: spec = "rms_norm rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) + " residual=" +
                       std::to_string(rng() % 2); break;
        case 1: spec = "layer_norm rows=" + std::to_string(rows) + " cols=" + std::to_string(cols); break;
        case 2: spec = "softmax rows=" + std::to_string(rows) + " cols=" + std::to_string(cols); break;
        case 3:
        case 4: spec = "elementwise op=" + kElementwiseOps[rng() % kElementwiseOps.size()] + " rows=" +
                       std::to_string(rows) + " cols=" + std::to_string(cols); break;
        case 5: spec = "rotary tokens=" + std::to_string(rows) + " heads=" + std::to_string(pick({8, 32, 40})) +
                       " head_dim=" + std::to_string(pick({64, 128})); break;
        default: spec = "gemm m=" + std::to_string(rows) + " n=" + std::to_string(cols) + " k=4096"; break;
      }
      const KernelSpec k = parse_kernel_spec(spec + " dtype=" + dt);
      SCOPED_TRACE(name + ": " + k.to_string());
      std::string full_error, short_error;
      double full = -1, quick = -1;
      try {
        full = analyze(gpu, k, false).min_dram_bytes;
      } catch (const InputError& e) {
        full_error = e.what();
      }
      try {
        quick = compulsory_dram_bytes(gpu, k);
      } catch (const InputError& e) {
        short_error = e.what();
      }
      EXPECT_EQ(full_error, short_error);
      EXPECT_EQ(full, quick);  // exactly
      (full_error.empty() ? compared : refused) += 1;
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(refused, 10);  // to_fp32 / to_bf16 with the wrong dtype, bf16 where a GPU has none, ...
}

}  // namespace
}  // namespace loom
