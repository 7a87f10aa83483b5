// The case runner: NVTX case/rep ranges, warm-up, L2 flush, CUDA-event timing, statistics; and the
// `*.cases.csv` writer (traces/FORMAT.md section 2).
#pragma once
#include "common.h"
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace bench {

struct Timing {
  int reps = 0;
  double median_us = 0, p10_us = 0, p90_us = 0;
};

/// L2 flush by overwriting (true: the corpus before Nov 22 2026) or by reading (false, the default).
void set_flush_write(bool write);
/// Allocates the L2-flush buffer (> 2x L2) and the events; call once after the context is current.
void timing_init(const Ctx& ctx);

/// Runs one case: pushes `loom.case=<case_id>`, 2 warm-up launches, then `reps` timed launches each inside
/// `loom.rep` (an L2 flush `loom_l2_flush` runs before each rep, outside the range, when `flush_l2`).
/// Throws CudaFailure (after popping its ranges) if a launch fails.
Timing time_case(int case_id, const std::function<void()>& launch, bool flush_l2, int reps, const Ctx& ctx);

/// Writes the case list; flushes to disk every `flush_every` rows so a killed run keeps its rows.
class CaseWriter {
 public:
  CaseWriter(const std::string& path, const std::vector<std::pair<std::string, std::string>>& meta);
  ~CaseWriter();
  void row(int case_id, const std::string& family, const std::string& spec, const std::string& impl,
           const Timing& t);
  int rows() const { return rows_; }
 private:
  FILE* f_ = nullptr;
  int rows_ = 0;
};

/// Median / percentile (linear interpolation between order statistics), q in [0,1].
double percentile(std::vector<double> v, double q);

}  // namespace bench
