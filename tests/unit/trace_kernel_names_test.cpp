// classify_kernel on the real kernel names listed in tests/data/kernel_names.tsv (data-driven: add lines there).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace/kernel_names.h"

namespace loom {
namespace {

struct NameCase {
  int line = 0;
  std::string name, family, config, op;
  bool check_op = false;
};

std::vector<NameCase> load_cases() {
  std::ifstream in(std::string(LOOM_TEST_DATA) + "/kernel_names.tsv");
  std::vector<NameCase> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, '\t')) f.push_back(x);
    NameCase c;
    c.line = n;
    if (f.size() >= 3) {
      c.name = f[0], c.family = f[1], c.config = f[2] == "-" ? "" : f[2];
      if (f.size() >= 4) c.op = f[3], c.check_op = true;
    }
    out.push_back(c);
  }
  return out;
}

TEST(TraceKernelNames, TableOfRealNames) {
  auto cases = load_cases();
  ASSERT_GE(cases.size(), 30u) << "tests/data/kernel_names.tsv missing or short";
  for (const auto& c : cases) {
    ASSERT_FALSE(c.name.empty()) << "kernel_names.tsv:" << c.line << ": expected name<TAB>family<TAB>config";
    KernelName k = classify_kernel(c.name);
    EXPECT_EQ(k.family, c.family) << "kernel_names.tsv:" << c.line << ": " << c.name;
    EXPECT_EQ(k.config, c.config) << "kernel_names.tsv:" << c.line << ": " << c.name;
    if (c.check_op) EXPECT_EQ(k.op, c.op) << "kernel_names.tsv:" << c.line << ": " << c.name;
  }
}

TEST(TraceKernelNames, NvjetFieldsFromGpuNotes) {
  KernelName k = classify_kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(k.tile_m, 256);
  EXPECT_EQ(k.tile_n, 128);
  EXPECT_EQ(k.tile_k, 64);
  EXPECT_EQ(k.stages, 4);
  EXPECT_EQ(k.cluster_m, 1);
  EXPECT_EQ(k.cluster_n, 2);
  EXPECT_TRUE(k.cooperative);
  EXPECT_EQ(k.library, "cublas");
}

TEST(TraceKernelNames, DemangleAndPassThrough) {
  EXPECT_EQ(demangle("_Z13loom_l2_flushPim"), "loom_l2_flush(int*, unsigned long)");
  EXPECT_EQ(demangle("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(demangle("_Zgarbage"), "_Zgarbage");
}

TEST(TraceKernelNames, GarbageNeverThrows) {
  const std::string weird[] = {"", "_", "_Z", "x", "nvjet_", "nvjet_99999999x1_", "loom_", "loom_gemm<", "sdpa_1x",
                               std::string(5000, '<'), "flash_fwd_kernel<Flash_fwd_kernel_traits<"};
  for (const auto& w : weird) {
    KernelName k = classify_kernel(w);
    EXPECT_FALSE(k.family.empty());
  }
  EXPECT_EQ(classify_kernel("").family, "unknown");
}

}  // namespace
}  // namespace loom
