// The scheduler of one replica, as vLLM V1 ("mixed") and SGLang ("prefill_first") schedule, with a paged KV
// cache, preemption by recompute and a pipeline of stages.
#include "serving/replica.h"

#include <algorithm>
#include <cmath>

namespace loom::serving {

constexpr double kInf = std::numeric_limits<double>::infinity();

Replica::Replica(const ReplicaSetup& setup, const SchedulerParams& params, StepCost& cost,
                 const std::vector<Request>& reqs, std::vector<Seq>& seqs, SimResult& out, bool record_all_stages)
    : setup_(setup), params_(params), cost_(cost), reqs_(reqs), seqs_(seqs), out_(out), record_all_(record_all_stages),
      stage_free_(static_cast<size_t>(setup.pp), 0.0), free_blocks_(setup.kv_blocks) {}

void Replica::add(int64_t id, double now) {
  const Request& r = reqs_[static_cast<size_t>(id)];
  Seq& s = seqs_[static_cast<size_t>(id)];
  s.target = r.prompt_tokens;
  s.kv = params_.prefix_caching ? r.cached_prefix_tokens : 0;
  out_.requests[static_cast<size_t>(id)].replica = setup_.index;
  out_.requests[static_cast<size_t>(id)].cached_tokens = s.kv;
  waiting_.push_back(id);
  ++outstanding_;
  clock_ = std::max(clock_, now);
  blocked_ = false;
}

double Replica::next_event() const {
  double t = flights_.empty() ? kInf : flights_.front().done_s;
  const bool work = !waiting_.empty() || static_cast<int64_t>(running_.size()) > 0;
  if (!blocked_ && work && static_cast<int>(flights_.size()) < setup_.pp)
    t = std::min(t, std::max(clock_, stage_free_[0]));
  return t;
}

void Replica::step(double now) {
  clock_ = std::max(clock_, now);
  if (!flights_.empty() && flights_.front().done_s <= now) {
    const Flight f = std::move(flights_.front());
    flights_.pop_front();
    complete(f);
    blocked_ = false;
    return;
  }
  start(now);
}

bool Replica::reserve(int64_t id, int64_t tokens) {
  Seq& s = seqs_[static_cast<size_t>(id)];
  const int64_t need = (tokens + params_.block_size - 1) / params_.block_size - s.blocks;
  if (need > free_blocks_) return false;
  if (need > 0) free_blocks_ -= need, s.blocks += need;
  return true;
}

void Replica::preempt(int64_t id) {
  Seq& s = seqs_[static_cast<size_t>(id)];
  const Request& r = reqs_[static_cast<size_t>(id)];
  free_blocks_ += s.blocks;
  s.blocks = 0;
  s.target = r.prompt_tokens + s.generated;  // recompute: prompt and every token generated so far
  s.kv = params_.prefix_caching ? r.cached_prefix_tokens : 0;
  running_.erase(std::find(running_.begin(), running_.end(), id));
  waiting_.push_front(id);
  out_.requests[static_cast<size_t>(id)].preemptions += 1;
  out_.preemptions += 1;
}

void Replica::add_to_batch(int64_t id, int64_t chunk, std::vector<int64_t>& ids, BatchShape& b, int64_t& budget) {
  Seq& s = seqs_[static_cast<size_t>(id)];
  s.chunk = chunk;
  s.in_flight = true;
  ids.push_back(id);
  budget -= chunk;
  if (s.kv >= s.target) {
    b.decodes += 1;
    b.decode_kv += s.kv + 1;
    b.decode_kv_max = std::max(b.decode_kv_max, s.kv + 1);
  } else {
    b.prefills += 1;
    b.prefill_tokens += chunk;
    b.prefill_pairs += static_cast<double>(chunk) * (static_cast<double>(s.kv) + (static_cast<double>(chunk) + 1) / 2);
  }
}

/// Running requests in order (decoding ones when `decodes`, partially prefilled ones when `prefills`); KV
/// shortage preempts from the back of the running list (vLLM V1's lowest priority). Returns true on preemption.
bool Replica::schedule_running(std::vector<int64_t>& ids, BatchShape& b, int64_t& budget, bool decodes, bool prefills) {
  bool preempted = false;
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    const int64_t id = running_[i];
    Seq& s = seqs_[static_cast<size_t>(id)];
    if (s.in_flight) continue;
    const bool decoding = s.kv >= s.target;
    if ((decoding && !decodes) || (!decoding && !prefills)) continue;
    int64_t want = decoding ? 1 : s.target - s.kv;
    if (!decoding && want > budget) {
      if (!params_.chunked_prefill) continue;
      want = budget;
    }
    bool self_preempted = false;
    while (!reserve(id, s.kv + want)) {
      auto victim = std::find_if(running_.rbegin(), running_.rend(),
                                 [&](int64_t v) { return !seqs_[static_cast<size_t>(v)].in_flight; });
      if (victim == running_.rend()) break;
      const int64_t v = *victim;
      preempt(v);
      preempted = true;
      if (v == id) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted || s.kv + want > s.blocks * params_.block_size) continue;
    add_to_batch(id, want, ids, b, budget);
  }
  return preempted;
}

/// Waiting requests, first come first served, while tokens, sequences and KV blocks allow.
void Replica::admit_waiting(std::vector<int64_t>& ids, BatchShape& b, int64_t& budget) {
  while (!waiting_.empty() && budget > 0 && static_cast<int64_t>(running_.size()) < params_.max_num_seqs) {
    const int64_t id = waiting_.front();
    Seq& s = seqs_[static_cast<size_t>(id)];
    int64_t want = s.target - s.kv;
    if (want > budget) {
      if (!params_.chunked_prefill) break;
      want = budget;
    }
    if (!reserve(id, s.kv + want)) break;
    waiting_.pop_front();
    running_.push_back(id);
    add_to_batch(id, want, ids, b, budget);
  }
}

bool Replica::schedule(std::vector<int64_t>& ids, BatchShape& b) {
  int64_t budget = params_.max_num_batched_tokens;
  if (params_.policy == "mixed") {
    const bool preempted = schedule_running(ids, b, budget, true, true);
    if (!preempted) admit_waiting(ids, b, budget);
  } else {  // prefill_first: a prefill batch (continuing chunks, then new requests) whenever one can be formed
    schedule_running(ids, b, budget, false, true);
    admit_waiting(ids, b, budget);
    if (ids.empty()) schedule_running(ids, b, budget, true, false);
  }
  return !ids.empty();
}

void Replica::start(double now) {
  std::vector<int64_t> ids;
  BatchShape b;
  if (!schedule(ids, b)) {
    blocked_ = true;
    return;
  }
  const int64_t graph = cost_.graph_batch(b);
  // An eager step of a token count the process has not run before pays host time (new GEMM shapes' heuristics,
  // kernel specialisations) before its launches: hidden when the GPU bounds the step.
  const double new_shape_us = params_.new_shape_cost_us(b.tokens());
  const bool new_shape = graph == 0 && new_shape_us > 0 && seen_eager_tokens_.insert(b.tokens()).second;
  const double step_us = cost_.step_us(b, new_shape ? new_shape_us : 0);
  const double kv_used = setup_.kv_blocks > 0 ? 1.0 - static_cast<double>(free_blocks_) / setup_.kv_blocks : 0;
  double t = std::max(now, stage_free_[0]);
  for (int st = 0; st < setup_.pp; ++st) {
    if (st > 0) {
      t += (setup_.transfer_latency_us + setup_.transfer_us_per_token * static_cast<double>(b.tokens())) * 1e-6;
      t = std::max(t, stage_free_[static_cast<size_t>(st)]);
    }
    const double dur = (step_us + (st == 0 ? params_.step_overhead_us : 0)) * 1e-6;
    if (st == 0 || record_all_) {
      out_.iterations.push_back({setup_.index, st, t, t + dur, b.decodes, b.prefills, b.tokens(), graph,
                                 static_cast<int64_t>(waiting_.size()), static_cast<int64_t>(running_.size()),
                                 kv_used});
    }
    t += dur;
    stage_free_[static_cast<size_t>(st)] = t;
  }
  out_.steps += 1;
  flights_.push_back({t, std::move(ids)});
}

void Replica::complete(const Flight& f) {
  for (int64_t id : f.ids) {
    Seq& s = seqs_[static_cast<size_t>(id)];
    RequestResult& r = out_.requests[static_cast<size_t>(id)];
    s.in_flight = false;
    const bool decoding = s.kv >= s.target;
    s.kv += s.chunk;
    if (decoding) s.target += s.chunk;
    if (s.kv < s.target) continue;  // a prefill chunk that leaves more to do
    s.generated += 1;
    if (s.generated == 1) {
      r.first_token_s = f.done_s;
      if (setup_.abort_ttft_s > 0 && f.done_s - r.arrival_s > setup_.abort_ttft_s) ++out_.violations;
    } else {
      out_.itl_ms.push_back((f.done_s - s.last_token_s) * 1e3);
    }
    s.last_token_s = f.done_s;
    if (s.generated >= reqs_[static_cast<size_t>(id)].output_tokens) {
      r.finish_s = f.done_s;
      const bool ttft_bad = setup_.abort_ttft_s > 0 && r.first_token_s - r.arrival_s > setup_.abort_ttft_s;
      if (!ttft_bad && setup_.abort_tpot_s > 0 && r.output_tokens > 1 &&
          (r.finish_s - r.first_token_s) / static_cast<double>(r.output_tokens - 1) > setup_.abort_tpot_s)
        ++out_.violations;
      free_blocks_ += s.blocks;
      s.blocks = 0;
      running_.erase(std::find(running_.begin(), running_.end(), id));
      --outstanding_;
      ++finished_;
    }
  }
}

}  // namespace loom::serving
