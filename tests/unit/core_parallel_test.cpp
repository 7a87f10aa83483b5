// for_each_index: every index once on any thread count, and the lowest failing index's exception.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/parallel.h"

namespace loom {
namespace {

TEST(ForEachIndex, EveryIndexOnceAndTheLowestErrorWins) {
  for (int threads : {0, 1, 2, 5, 300}) {
    SCOPED_TRACE(threads);
    std::vector<std::atomic<int>> seen(1000);
    for_each_index(seen.size(), threads, [&](size_t i) { ++seen[i]; });
    for (const auto& s : seen) ASSERT_EQ(s.load(), 1);
    std::atomic<int> ran{0};
    try {
      for_each_index(100, threads, [&](size_t i) {
        ++ran;
        if (i == 97 || i == 41 || i == 60) throw std::runtime_error(std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "41");
    }
    EXPECT_EQ(ran.load(), 100);  // the others still ran
    for_each_index(0, threads, [&](size_t) { FAIL(); });
  }
}

}  // namespace
}  // namespace loom
