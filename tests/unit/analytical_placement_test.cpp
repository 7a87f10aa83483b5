// The calendar-queue CTA placement (busiest_sm_nonuniform: a bitset of slots per one-tick bucket, each bucket's
// slots popped in one pass) against the (time, sm) min-heap simulation it replaced: identical busiest-SM CTAs and
// iterations on causal-attention-like patterns and random ones, with 1-32 resident CTAs per SM.
#include <gtest/gtest.h>

#include <queue>
#include <random>

#include "analytical/demand.h"

namespace {

// The previous implementation, verbatim in behaviour: the reference.
std::pair<double, double> heap_reference(const loom::Demand& d, int sms, int ctas_per_sm) {
  const auto& pat = d.iters_pattern;
  using Slot = std::pair<double, int>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> slots;
  for (int r = 0; r < ctas_per_sm; ++r)
    for (int sm = 0; sm < sms; ++sm) slots.push({0.0, sm});
  std::vector<double> sm_iters(sms, 0.0), sm_ctas(sms, 0.0);
  for (int64_t i = 0; i < d.ctas; ++i) {
    auto [t, sm] = slots.top();
    slots.pop();
    const double it = double(pat[i % pat.size()]);
    sm_iters[sm] += it, sm_ctas[sm] += 1;
    slots.push({t + it + 1.0, sm});
  }
  int best = 0;
  for (int sm = 1; sm < sms; ++sm)
    if (sm_iters[sm] + sm_ctas[sm] > sm_iters[best] + sm_ctas[best]) best = sm;
  return {sm_ctas[best], sm_iters[best]};
}

TEST(CtaPlacement, CalendarQueueEqualsHeapSimulation) {
  int cases = 0;
  // Twice over the same grids: the second pass is answered by the memo of recent grids and must agree too.
  for (int pass = 0; pass < 2; ++pass) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 3000; ++trial) {
      loom::Demand d;
      const int64_t m_blocks = 1 + rng() % 64;
      const bool causal = trial % 3 != 0;
      for (int64_t i = 0; i < m_blocks; ++i)  // causal: longest first; otherwise arbitrary (including zeros)
        d.iters_pattern.push_back(causal ? m_blocks - i + int64_t(rng() % 2) : int64_t(rng() % 40));
      d.ctas = m_blocks * (1 + rng() % 64);
      if (d.ctas > 4096) d.ctas = 4096;
      const int sms = 1 + rng() % 140, cps = trial % 10 == 0 ? 1 + rng() % 32 : 1 + rng() % 4;  // up to 70 words
      double total = 0;
      const auto got = loom::busiest_sm_nonuniform(d, sms, cps, total);
      const auto want = heap_reference(d, sms, cps);
      ASSERT_EQ(got.first, want.first) << "trial " << trial;
      ASSERT_EQ(got.second, want.second) << "trial " << trial;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 6000);
}

}  // namespace
