// One serving replica: a continuous-batching scheduler over a paged KV cache feeding a pipeline of stages.
// Internal to the serving module (engine.cpp drives replicas in time order).
#pragma once

#include <deque>
#include <unordered_set>
#include <limits>
#include <vector>

#include "serving/engine.h"
#include "serving/step_cost.h"

namespace loom::serving {

/// A request's progress. Invariant: it is prefilling while kv < target; decoding keeps kv == target.
struct Seq {
  int64_t target = 0;     ///< tokens to hold in the KV cache before the next sample (prompt + generated)
  int64_t kv = 0;         ///< tokens whose K/V are cached
  int64_t generated = 0;
  int64_t blocks = 0;
  int64_t chunk = 0;      ///< tokens scheduled in the iteration in flight
  bool in_flight = false;
  double last_token_s = 0;
};

struct ReplicaSetup {
  int index = 0;
  int pp = 1;
  int64_t kv_blocks = 0;
  double transfer_us_per_token = 0;  ///< stage-to-stage activation transfer
  double transfer_latency_us = 0;
  double abort_ttft_s = 0, abort_tpot_s = 0;  ///< count requests beyond these (0 = do not count)
};

class Replica {
 public:
  Replica(const ReplicaSetup& setup, const SchedulerParams& params, StepCost& cost, const std::vector<Request>& reqs,
          std::vector<Seq>& seqs, SimResult& out, bool record_all_stages);
  /// A request routed here at `now`.
  void add(int64_t id, double now);
  int64_t outstanding() const { return outstanding_; }
  /// Time of this replica's next event (an iteration completing or starting); +inf when idle.
  double next_event() const;
  /// Processes the event at `now` (== next_event()).
  void step(double now);
  int64_t finished() const { return finished_; }

 private:
  struct Flight {
    double done_s = 0;
    std::vector<int64_t> ids;
  };
  bool reserve(int64_t id, int64_t tokens);
  void preempt(int64_t id);
  bool schedule(std::vector<int64_t>& ids, BatchShape& b);
  bool schedule_running(std::vector<int64_t>& ids, BatchShape& b, int64_t& budget, bool decodes, bool prefills);
  void admit_waiting(std::vector<int64_t>& ids, BatchShape& b, int64_t& budget);
  void add_to_batch(int64_t id, int64_t chunk, std::vector<int64_t>& ids, BatchShape& b, int64_t& budget);
  void start(double now);
  void complete(const Flight& f);

  ReplicaSetup setup_;
  const SchedulerParams& params_;
  StepCost& cost_;
  const std::vector<Request>& reqs_;
  std::vector<Seq>& seqs_;
  SimResult& out_;
  bool record_all_;
  std::deque<int64_t> waiting_;
  std::vector<int64_t> running_;
  std::deque<Flight> flights_;
  std::vector<double> stage_free_;
  int64_t free_blocks_ = 0, outstanding_ = 0, finished_ = 0;
  double clock_ = 0;
  bool blocked_ = false;  ///< nothing schedulable until a completion or an arrival
  std::unordered_set<int64_t> seen_eager_tokens_;  ///< token counts of the eager steps run so far
};

}  // namespace loom::serving
