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

}  // namespace

/// Busiest SM of a non-uniform grid: CTAs dispatched in launch order to the earliest free slot (the hardware
/// block scheduler's greedy behaviour; ties go to the lowest SM); returns (CTAs, loop iterations) that SM ran.
/// Exact event simulation in O(CTAs + time) with a calendar queue instead of a heap: every time is an integer (a
/// CTA holds its slot for its iterations + 1) and a slot freed at t is taken again after t + 1 .. t + max_iters + 1,
/// so a ring of max_iters + 2 one-tick buckets holds every pending slot, and taking a bucket's slots in SM order
/// when the clock reaches it gives the same order a (time, sm) min-heap pops (tests/unit/analytical_placement_test.cpp
/// checks it, fresh and from the memo).
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
  const size_t ring_size = static_cast<size_t>(std::max<int64_t>(max_it, 0)) + 2;
  // Each bucket is a bitset of SMs plus a count per (bucket, SM) (an SM's slots can free at the same tick): popping
  // the lowest set bit gives the sorted order without sorting. Buffers are reused and left all-zero after each call.
  const size_t words = (static_cast<size_t>(sms) + 63) / 64;
  thread_local std::vector<uint64_t> bits;      // ring_size x words
  thread_local std::vector<uint32_t> cnt, size;  // ring_size x sms, ring_size
  thread_local std::vector<int64_t> sm_iters, sm_ctas;
  if (bits.size() < ring_size * words) bits.resize(ring_size * words, 0);
  if (cnt.size() < ring_size * size_t(sms)) cnt.resize(ring_size * size_t(sms), 0);
  if (size.size() < ring_size) size.resize(ring_size, 0);
  auto push = [&](size_t b, int sm) {
    if (cnt[b * sms + sm]++ == 0) bits[b * words + size_t(sm) / 64] |= uint64_t(1) << (sm % 64);
    ++size[b];
  };
  // Integer sums: the iterations are integers, so these equal the double sums exactly (well below 2^53).
  sm_iters.assign(sms, 0);
  sm_ctas.assign(sms, 0);
  for (int sm = 0; sm < sms; ++sm)
    for (int r = 0; r < ctas_per_sm; ++r) push(0, sm);
  size_t now = 0, w = 0;    // clock (ring index) and the first bitset word of its bucket that may be non-zero
  const size_t pat_n = pat.size();
  size_t k = 0;             // i % pat_n without a division
  for (int64_t i = 0; i < n; ++i) {
    while (size[now] == 0) {
      now = now + 1 == ring_size ? 0 : now + 1;
      w = 0;
    }
    uint64_t* bw = &bits[now * words];
    while (bw[w] == 0) ++w;
    const int sm = int(w * 64) + __builtin_ctzll(bw[w]);
    if (--cnt[now * sms + sm] == 0) bw[w] &= bw[w] - 1;
    --size[now];
    const int64_t it = pat[k];
    k = k + 1 == pat_n ? 0 : k + 1;
    sm_iters[sm] += it, sm_ctas[sm] += 1;
    size_t next = now + static_cast<size_t>(it) + 1;
    if (next >= ring_size) next -= ring_size;
    push(next, sm);
  }
  for (size_t b = 0; b < ring_size; ++b) {  // leave the buffers all-zero for the next call
    if (size[b] == 0) continue;
    size[b] = 0;
    for (size_t j = 0; j < words; ++j)
      for (uint64_t x = bits[b * words + j]; x; x &= x - 1) cnt[b * sms + j * 64 + __builtin_ctzll(x)] = 0;
    std::fill_n(&bits[b * words], words, 0);
  }
  int best = 0;
  for (int sm = 1; sm < sms; ++sm)
    if (sm_iters[sm] + sm_ctas[sm] > sm_iters[best] + sm_ctas[best]) best = sm;
  if (memo.size() >= kMemoEntries) memo.clear();  // bounded: ~kMemoEntries x the pattern's length x 8 bytes
  Memo& e = memo[h];
  e.pattern = pat;
  e.n = n, e.sms = sms, e.cps = ctas_per_sm;
  e.result = {double(sm_ctas[best]), double(sm_iters[best])};
  return e.result;
}

}  // namespace loom
