// for_each_index: run independent tasks 0..n-1 on up to N threads, the calling thread one of them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace loom {

/// Calls task(i) once for every i in [0, n), on min(threads, n) threads (the caller's included; threads <= 1: in
/// order, on this thread). Threads take the next index as they finish one, so uneven tasks balance. Every task
/// runs even when another throws; then the exception of the lowest index that threw is rethrown, the one a serial
/// loop would have met first. Tasks must write disjoint results (or lock).
template <class Task>
void for_each_index(size_t n, int threads, Task&& task) {
  std::vector<std::exception_ptr> errs(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) try {
        task(i);
      } catch (...) {
        errs[i] = std::current_exception();
      }
  };
  const size_t nt = std::min(static_cast<size_t>(std::max(threads, 1)), n);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < nt; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  for (const auto& e : errs)
    if (e) std::rethrow_exception(e);
}

}  // namespace loom
