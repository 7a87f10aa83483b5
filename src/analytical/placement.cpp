// busiest_sm_nonuniform(): where the CTAs of a non-uniform grid (causal attention) land under the block
// scheduler's greedy dispatch, simulated exactly, with an exact memo of recent grids.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analytical/demand.h"

namespace loom {
namespace {

/// Above this many CTAs with non-uniform work the busiest SM is estimated instead of simulated.
constexpr int64_t kMaxSimulatedCtas = 4096;  // keeps analyze() of causal attention ~0.1 ms

/// Grids remembered per thread before the memo starts over.
constexpr size_t kMemoEntries = 4096;

/// The dispatch loop of busiest_sm_nonuniform (below): CTA i, of pat[i % pat_n] iterations, to the lowest free slot
/// of the earliest bucket; adds its iterations and one CTA to its slot's sums. Integer work only, so a clone for
/// x86-64-v3 (tzcnt, blsr) chosen at load time gives the same sums as the baseline code.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void place(
    const int64_t* __restrict pat, size_t pat_n, int64_t n, size_t ring_size, size_t words, uint64_t* __restrict bits,
    uint32_t* __restrict fill, int64_t* __restrict slot_iters, int64_t* __restrict slot_ctas) {
  const int64_t* p = pat;
  const int64_t* const pat_end = pat + pat_n;
  size_t now = 0;  // the clock, as a ring index
  // The CTA taking the lowest slot of x (word w of bucket `now`), pushed to the bucket it frees its slot at.
  auto take = [&](uint64_t x, size_t w) {
    const size_t slot = w * 64 + size_t(__builtin_ctzll(x));
    const int64_t it = *p;
    p = p + 1 == pat_end ? pat : p + 1;
    slot_iters[slot] += it, slot_ctas[slot] += 1;
    size_t next = now + static_cast<size_t>(it) + 1;
    if (next >= ring_size) next -= ring_size;
    bits[next * words + w] |= x & (~x + 1);  // the slot's bit
    ++fill[next];
  };
  for (int64_t left = n; left > 0;) {  // CTAs still to place
    while (fill[now] == 0) now = now + 1 == ring_size ? 0 : now + 1;
    uint64_t* bucket = &bits[now * words];
    if (int64_t(fill[now]) <= left) {  // the whole bucket
      left -= fill[now];
      fill[now] = 0;
      for (size_t w = 0; w < words; ++w) {
        for (uint64_t x = bucket[w]; x; x &= x - 1) take(x, w);
        bucket[w] = 0;
      }
      continue;
    }
    for (size_t w = 0; left > 0; ++w) {  // the grid runs out inside this bucket: its lowest `left` slots
      uint64_t x = bucket[w];
      for (; x && left > 0; x &= x - 1, --left, --fill[now]) take(x, w);
      bucket[w] = x;
    }
  }
}

}  // namespace

/// Busiest SM of a non-uniform grid: CTAs dispatched in launch order to the earliest free slot (the hardware
/// block scheduler's greedy behaviour; ties go to the lowest SM); returns (CTAs, loop iterations) that SM ran.
/// Exact event simulation in O(CTAs + time) with a calendar queue instead of a heap: every time is an integer (a
/// CTA holds its slot for its iterations + 1) and a slot freed at t is taken again after t + 1 .. t + max_iters + 1,
/// so a ring of max_iters + 2 one-tick buckets holds every pending slot, and taking a bucket's slots in SM order
/// when the clock reaches it gives the same order a (time, sm) min-heap pops (tests/unit/analytical_placement_test.cpp
/// checks it, fresh and from the memo). A bucket is a bitset of slots (sms x ctas_per_sm), popped in one pass.
std::pair<double, double> busiest_sm_nonuniform(const Demand& d, int sms, int ctas_per_sm, double& total_iters) {
  const auto& pat = d.iters_pattern;
  const int64_t n = d.ctas;
  total_iters = 0;
  int64_t max_it = 0;
  for (int64_t it : pat) max_it = std::max(max_it, it);
  const double pat_sum = [&] { double t = 0; for (int64_t it : pat) t += double(it); return t; }();
  total_iters = pat_sum * (double(n) / pat.size());
  if (n > kMaxSimulatedCtas) {  // list-scheduling bound: the mean load plus about half the longest CTA
    return {std::ceil(double(n) / sms), total_iters / std::min<int64_t>(n, sms) + 0.5 * max_it};
  }
  // Exact memo of recent grids: analyze() rebuilds the chosen config with its notes (the same grid again), and a
  // batch of causal-attention rows repeats (pattern, CTAs) often (the pattern depends on the block counts only).
  // Keyed by a hash, checked on the whole input, so a hit returns exactly what the simulation would.
  struct Memo {
    std::vector<int64_t> pattern;
    int64_t n = -1;
    int sms = 0, cps = 0;
    std::pair<double, double> result;
  };
  thread_local std::unordered_map<uint64_t, Memo> memo;
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; h ^= h >> 29; };
  mix(uint64_t(n)), mix(uint64_t(sms)), mix(uint64_t(ctas_per_sm));
  for (int64_t it : pat) mix(uint64_t(it));
  if (auto m = memo.find(h); m != memo.end() && m->second.n == n && m->second.sms == sms &&
                             m->second.cps == ctas_per_sm && m->second.pattern == pat)
    return m->second.result;
  // Slots as bits: slot j = (sm j / cps, its (j % cps)-th place). The heap orders equal times by SM, and within an
  // SM its slots freed at one time are interchangeable, so popping a bucket's slots in slot order gives each SM
  // exactly the CTAs the heap gives it. A bucket's slots are popped in one pass over its bits: every slot it hands
  // out is pushed to a later bucket (1 .. max_iters + 1 ticks on, always another bucket of the ring). Buffers are
  // reused and left all-zero after each call.
  const size_t ring_size = static_cast<size_t>(std::max<int64_t>(max_it, 0)) + 2;
  const size_t slots = size_t(sms) * size_t(ctas_per_sm);
  const size_t words = (slots + 63) / 64;
  thread_local std::vector<uint64_t> bits;  // ring_size x words
  thread_local std::vector<uint32_t> fill;  // slots per bucket
  thread_local std::vector<int64_t> slot_iters, slot_ctas;
  if (bits.size() < ring_size * words) bits.resize(ring_size * words, 0);
  if (fill.size() < ring_size) fill.resize(ring_size, 0);
  // Integer sums: the iterations are integers, so these equal the double sums exactly (well below 2^53).
  slot_iters.assign(slots, 0);
  slot_ctas.assign(slots, 0);
  for (size_t j = 0; j < slots; ++j) bits[j / 64] |= uint64_t(1) << (j % 64);
  fill[0] = uint32_t(slots);
  place(pat.data(), pat.size(), n, ring_size, words, bits.data(), fill.data(), slot_iters.data(), slot_ctas.data());
  for (size_t b = 0; b < ring_size; ++b) {  // leave the buffers all-zero for the next call
    if (fill[b] == 0) continue;
    fill[b] = 0;
    std::fill_n(&bits[b * words], words, 0);
  }
  int64_t best_iters = 0, best_ctas = 0;  // the first SM with the most iterations + CTAs
  for (int sm = 0; sm < sms; ++sm) {
    int64_t its = 0, ctas = 0;
    for (size_t j = size_t(sm) * size_t(ctas_per_sm), e = j + size_t(ctas_per_sm); j < e; ++j)
      its += slot_iters[j], ctas += slot_ctas[j];
    if (sm == 0 || its + ctas > best_iters + best_ctas) best_iters = its, best_ctas = ctas;
  }
  if (memo.size() >= kMemoEntries) memo.clear();  // bounded: ~kMemoEntries x the pattern's length x 8 bytes
  Memo& e = memo[h];
  e.pattern = pat;
  e.n = n, e.sms = sms, e.cps = ctas_per_sm;
  e.result = {double(best_ctas), double(best_iters)};
  return e.result;
}

}  // namespace loom
