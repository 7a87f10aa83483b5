// Step workloads (prefill, decode, mixed ragged batches) and their tensor-parallel shard sizes.
#include <algorithm>

#include "core/error.h"
#include "e2e/op_graph.h"

namespace loom {

int64_t Workload::tokens() const {
  int64_t t = 0;
  for (auto n : new_tokens) t += n;
  return t;
}

int64_t Workload::kv_tokens() const {
  int64_t t = tokens();
  for (auto c : context) t += c;
  return t;
}

namespace {

constexpr int64_t kMaxBatch = 1'000'000;

std::vector<int64_t> per_request(const std::vector<int64_t>& v, int64_t batch, const std::string& flag,
                                 int64_t min_value) {
  if (batch < 1) throw InputError("--batch", "batch must be >= 1");
  if (batch > kMaxBatch)  // the CLI caps --batch; library callers (Python, C) get the same bound, not std::bad_alloc
    throw InputError("--batch", "batch " + std::to_string(batch) + " is above loom's limit of " +
                                    std::to_string(kMaxBatch) + " requests a step");
  if (v.empty()) return std::vector<int64_t>(static_cast<size_t>(batch), min_value == 0 ? 0 : 1);
  if (v.size() != 1 && static_cast<int64_t>(v.size()) != batch)
    throw InputError(flag, "gives " + std::to_string(v.size()) + " lengths for batch " + std::to_string(batch) +
                               "; give one length or one per request");
  for (auto x : v)
    if (x < min_value)
      throw InputError(flag, "length " + std::to_string(x) + " must be >= " + std::to_string(min_value));
  return v.size() == 1 ? std::vector<int64_t>(static_cast<size_t>(batch), v[0]) : v;
}

void check_tp(int tp) {
  if (tp < 1 || tp > 8) throw InputError("--tp", "tensor-parallel degree " + std::to_string(tp) + " is outside 1-8");
}

}  // namespace

Workload prefill_workload(int64_t batch, const std::vector<int64_t>& seq, const std::vector<int64_t>& prefix, int tp) {
  check_tp(tp);
  if (seq.empty()) throw InputError("--seq", "prefill needs the input length(s)");
  Workload w;
  w.phase = Phase::prefill;
  w.tp = tp;
  w.new_tokens = per_request(seq, batch, "--seq", 1);
  w.context = per_request(prefix, batch, "--context", 0);
  return w;
}

Workload decode_workload(int64_t batch, const std::vector<int64_t>& context, int tp) {
  check_tp(tp);
  if (context.empty()) throw InputError("--context", "decode needs the context length(s)");
  Workload w;
  w.phase = Phase::decode;
  w.tp = tp;
  w.context = per_request(context, batch, "--context", 0);  // checks batch first
  w.new_tokens = std::vector<int64_t>(static_cast<size_t>(batch), 1);
  return w;
}

Workload mixed_workload(const std::vector<int64_t>& new_tokens, const std::vector<int64_t>& context, int tp) {
  check_tp(tp);
  if (new_tokens.empty() || new_tokens.size() != context.size())
    throw InputError("--batch", "a mixed step needs one new-token count and one context per request");
  for (size_t i = 0; i < new_tokens.size(); ++i)
    if (new_tokens[i] < 1 || context[i] < 0)
      throw InputError("--seq", "a request computes >= 1 new token over >= 0 cached");
  Workload w;
  w.phase = Phase::mixed;
  w.tp = tp;
  w.new_tokens = new_tokens;
  w.context = context;
  return w;
}

Shards shard(const ModelConfig& m, int tp) {
  check_tp(tp);
  auto need = [&](int64_t value, const std::string& what) {
    if (value % tp != 0)
      throw InputError("--tp", what + " (" + std::to_string(value) + ") is not divisible by tp=" +
                                   std::to_string(tp) + "; choose a tp that divides it");
    return value / tp;
  };
  Shards s;
  s.q_heads = need(m.heads, "num_attention_heads");
  if (m.kv_heads >= tp) {
    s.kv_heads = need(m.kv_heads, "num_key_value_heads");
  } else {
    if (tp % m.kv_heads != 0)
      throw InputError("--tp", "tp=" + std::to_string(tp) + " is not a multiple of num_key_value_heads (" +
                                   std::to_string(m.kv_heads) + "); KV heads cannot be replicated evenly");
    s.kv_heads = 1;  // vLLM replicates KV heads when there are fewer than tp
  }
  s.intermediate = need(m.intermediate, "intermediate_size");
  if (m.is_moe()) s.moe_intermediate = need(m.moe_intermediate, "moe_intermediate_size");
  if (m.shared_expert_intermediate > 0)
    s.shared_intermediate = need(m.shared_expert_intermediate, "shared_expert_intermediate_size");
  s.vocab = (m.vocab + tp - 1) / tp;  // VocabParallelEmbedding pads the vocabulary to a multiple of tp
  return s;
}

}  // namespace loom
