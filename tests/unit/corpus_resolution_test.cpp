// `#resolution_us`: a public source's timing resolution (FORMAT.md section 3). The reader checks it at its line;
// training and validation skip the rows shorter than kMinResolutionMultiple steps and count them as skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/error.h"
#include "input_error_util.h"
#include "learned/corpus.h"
#include "trace/trace.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

const std::string kHeader =
    "case_id,family,spec,impl,kernels,grid,block,regs,smem_bytes,reps,median_us,p10_us,p90_us,spread_pct,"
    "event_median_us\n";

std::string row(int id, const std::string& us) {
  return std::to_string(id) + ",elementwise,elementwise op=add rows=" + std::to_string(1024 * id) +
         " cols=4096 dtype=fp16,torch,,1:1:1,128:1:1,32,0,1," + us + "," + us + "," + us + ",0,\n";
}

std::string corpus(const std::string& resolution_line) {
  return "#loom-corpus 2\n#gpu=vidur:h100-sxm\n#gpu_key=h100-sxm\n#l2=warm\n" + resolution_line + "#sms=132\n" +
         kHeader + row(1, "4") + row(2, "19") + row(3, "20") + row(4, "125");
}

TEST(CorpusResolution, ReadAndCheckedAtItsLine) {
  EXPECT_EQ(parse_corpus(corpus(""), "c.csv").resolution_us, 0.0);
  EXPECT_EQ(parse_corpus(corpus("#resolution_us=1\n"), "c.csv").resolution_us, 1.0);
  EXPECT_EQ(parse_corpus(corpus("#resolution_us=0.5\n"), "c.csv").resolution_us, 0.5);
  for (const char* bad : {"0", "-1", "nan", "inf", "1e7", "", "one", "0x10", "1 us"})
    expect_error([&] { parse_corpus(corpus("#resolution_us=" + std::string(bad) + "\n"), "c.csv"); }, "c.csv:5",
                 "#resolution_us=" + std::string(bad) + ": the timing resolution must be a number of microseconds");
  expect_error([] { parse_corpus(corpus("#resolution_us=1\n#resolution_us=1\n"), "c.csv"); }, "c.csv:6",
               "metadata '#resolution_us=' is given twice (first at c.csv:5)");
}

TEST(CorpusResolution, TrainingSkipsRowsBelowTwentySteps) {
  const fs::path dir = fs::temp_directory_path() / ("loom-resolution-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto load = [&](const std::string& text) {
    std::ofstream(dir / "x.corpus.csv") << text;
    return load_measurements(dir.string());
  };
  const MeasurementSet fine = load(corpus(""));
  EXPECT_EQ(fine.rows.size(), 4u);
  EXPECT_TRUE(fine.skipped.empty());
  const MeasurementSet coarse = load(corpus("#resolution_us=1\n"));
  ASSERT_EQ(coarse.rows.size(), 2u);  // 4 and 19 us are below 20 x 1 us; 20 and 125 stay
  EXPECT_EQ(coarse.rows[0].median_us, 20.0);
  EXPECT_EQ(coarse.rows[1].median_us, 125.0);
  ASSERT_EQ(coarse.skipped.size(), 1u);
  EXPECT_EQ(coarse.skipped.begin()->second, 2);
  EXPECT_IN(coarse.skipped.begin()->first, "#resolution_us");
  EXPECT_NE(fine.corpus_hash, coarse.corpus_hash);  // the metadata is part of the corpus
  fs::remove_all(dir);
}

}  // namespace
}  // namespace loom
