// Parses the scheduler parameters of a serving profile strictly: every key known, every number in range.
#include "e2e/profile_scheduler.h"

#include <cmath>

#include "core/error.h"
#include "core/strict_yaml.h"

namespace loom {

namespace {

std::string at(const std::string& source, const YAML::Node& n) {
  return source + ":" + std::to_string(n.Mark().line + 1);
}

double number(const std::string& source, const std::string& key, const YAML::Node& n, double lo, double hi,
              bool integral) {
  refuse_quoted(n, at(source, n), "scheduler." + key, integral ? "an integer" : "a number");
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(at(source, n), "scheduler." + key + " must be a number");
  }
  if (!std::isfinite(v) || v < lo || v > hi || (integral && v != std::floor(v)))
    throw InputError(at(source, n), "scheduler." + key + " = " + (n.IsScalar() ? n.Scalar() : "a list or map") +
                                        " must be " + (integral ? "an integer" : "a number") + " in [" + num_text(lo) +
                                        ", " + num_text(hi) + "]");
  return v;
}

bool boolean(const std::string& source, const std::string& key, const YAML::Node& n) {
  refuse_quoted(n, at(source, n), "scheduler." + key, "true or false");
  const std::string v = n.IsScalar() ? n.Scalar() : "";
  if (v == "true") return true;
  if (v == "false") return false;
  throw InputError(at(source, n), "scheduler." + key + " is '" + v + "'; use true or false");
}

}  // namespace

void parse_scheduler(const YAML::Node& node, const std::string& source, SchedulerParams& s) {
  if (!node.IsMap()) throw InputError(at(source, node), "'scheduler' must be a mapping of key: value");
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) throw InputError(at(source, kv.first), "scheduler keys must be plain names");
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "policy") {
      s.policy = v.IsScalar() ? v.Scalar() : "";
      if (s.policy != "mixed" && s.policy != "prefill_first")
        throw InputError(at(source, v), "scheduler.policy is '" + s.policy + "'; use mixed or prefill_first");
    } else if (key == "max_num_seqs") {
      s.max_num_seqs = static_cast<int64_t>(number(source, key, v, 1, 1 << 20, true));
    } else if (key == "max_num_batched_tokens") {
      s.max_num_batched_tokens = static_cast<int64_t>(number(source, key, v, 1, 1 << 24, true));
    } else if (key == "chunked_prefill") {
      s.chunked_prefill = boolean(source, key, v);
    } else if (key == "block_size") {
      s.block_size = static_cast<int64_t>(number(source, key, v, 1, 4096, true));
    } else if (key == "prefix_caching") {
      s.prefix_caching = boolean(source, key, v);
    } else if (key == "step_overhead_us") {
      s.step_overhead_us = number(source, key, v, 0, 1e6, false);
    } else if (key == "new_shape_overhead_us") {
      s.new_shape_overhead_us = number(source, key, v, 0, 1e7, false);
    } else if (key == "new_shape_small_tokens") {
      s.new_shape_small_tokens = static_cast<int64_t>(number(source, key, v, 0, 1 << 24, true));
    } else if (key == "new_shape_small_overhead_us") {
      s.new_shape_small_overhead_us = number(source, key, v, 0, 1e7, false);
    } else if (key == "cuda_graph_sizes") {
      if (!v.IsSequence()) throw InputError(at(source, v), "scheduler.cuda_graph_sizes must be a list of batch sizes");
      // An empty list would silently mean vLLM's default sizes (the value when the key is absent), not "no graphs".
      if (v.size() == 0)
        throw InputError(at(source, v), "scheduler.cuda_graph_sizes is empty; list the captured batch sizes, or leave "
                                        "the key out for vLLM's defaults (decode_mode: eager for no graphs)");
      s.cuda_graph_sizes.clear();
      for (const auto& x : v) {
        const auto b = static_cast<int64_t>(number(source, key, x, 1, 1 << 16, true));
        if (!s.cuda_graph_sizes.empty() && b <= s.cuda_graph_sizes.back())
          throw InputError(at(source, x), "scheduler.cuda_graph_sizes must be strictly increasing");
        s.cuda_graph_sizes.push_back(b);
      }
    } else {
      throw InputError(at(source, kv.first), "unknown key 'scheduler." + key +
                                                 "'; expected one of: policy, max_num_seqs, max_num_batched_tokens, "
                                                 "chunked_prefill, block_size, prefix_caching, cuda_graph_sizes, "
                                                 "step_overhead_us, new_shape_overhead_us, new_shape_small_tokens, "
                                                 "new_shape_small_overhead_us");
    }
  }
}

}  // namespace loom
