// Loads serving profiles (models/profiles/*.yaml) with a strict schema: unknown keys and bad values are errors.
#include "e2e/profile.h"

#include "e2e/profile_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/file_io.h"
#include "core/strict_yaml.h"
#include "core/suggest.h"
#include "hw/catalog.h"
#include "kernels/shape.h"

namespace loom {

namespace {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string where(const std::string& source, const YAML::Node& n) {
  return source + ":" + std::to_string(n.Mark().line + 1);
}

/// The text of a scalar value; a list, map or empty value is an error naming the key.
std::string text(const std::string& source, const std::string& key, const YAML::Node& n) {
  if (!n.IsScalar()) throw InputError(where(source, n), "'" + key + "' takes a single value, not a list or map");
  return n.Scalar();
}

std::string choice(const std::string& source, const std::string& key, const YAML::Node& n,
                   const std::vector<std::string>& choices) {
  const std::string v = text(source, key, n);
  if (std::find(choices.begin(), choices.end(), v) == choices.end())
    throw InputError(where(source, n), "'" + key + "' is '" + v + "'; use one of: " + join(choices));
  return v;
}

/// true or false, written bare ("true" in quotes is text).
bool boolean(const std::string& source, const std::string& key, const YAML::Node& n) {
  refuse_quoted(n, where(source, n), key, "true or false");
  return choice(source, key, n, {"true", "false"}) == "true";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

double number(const std::string& source, const std::string& key, const YAML::Node& n, double lo, double hi) {
  refuse_quoted(n, where(source, n), key, "a number");
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(where(source, n), "'" + key + "' must be a number");
  }
  if (!std::isfinite(v) || v < lo || v > hi)  // .nan / .inf parse as doubles; NaN fails every comparison
    throw InputError(where(source, n), "'" + key + "' = " + n.Scalar() + "; give a finite number in [" + num(lo) +
                                           ", " + num(hi) + "]");
  return v;
}

/// A count (ops, bytes): a whole number in [lo, hi]; 2.5 launches was silently cut to 2.
double count(const std::string& source, const std::string& key, const YAML::Node& n, double lo, double hi) {
  const double v = number(source, key, n, lo, hi);
  if (v != std::floor(v))
    throw InputError(where(source, n), "'" + key + "' = " + n.Scalar() + " is a count; give a whole number in [" +
                                           num(lo) + ", " + num(hi) + "]");
  return v;
}

std::vector<std::string> op_list(const std::string& source, const std::string& key, const YAML::Node& n) {
  if (!n.IsSequence()) throw InputError(where(source, n), "'" + key + "' must be a list of elementwise ops");
  std::vector<std::string> ops;
  for (const auto& x : n) {
    const std::string v = x.IsScalar() ? x.Scalar() : "";
    const size_t colon = v.find(':');
    const std::string op = v.substr(0, colon), dtype = colon == std::string::npos ? "" : v.substr(colon + 1);
    if (std::find(kElementwiseOps.begin(), kElementwiseOps.end(), op) == kElementwiseOps.end())
      throw InputError(where(source, x), "'" + key + "' has '" + v + "'; ops: " + join(kElementwiseOps) +
                                             " (optionally op:dtype, e.g. mean:fp32)");
    if (colon != std::string::npos && dtype != "fp32" && dtype != "bf16" && dtype != "fp16")
      throw InputError(where(source, x), "'" + key + "' has '" + v + "'; the dtype after ':' is fp32, bf16 or fp16");
    ops.push_back(v);
  }
  return ops;
}

}  // namespace

ServingProfile parse_profile(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_one_yaml(yaml_text, source);  // one document, no key given twice
  if (!root.IsMap()) throw InputError(source + ":1", "a serving profile is a YAML mapping of key: value");
  ServingProfile p;
  p.source_file = source;
  p.name = fs::path(source).stem().string();
  static const std::vector<std::string> keys = {
      "name", "description", "qkv", "gate_up", "batch_padding", "rotary", "rotary_ops", "attention", "kv_cache", "norm",
      "norm_ops", "norm_row_ops", "step_small_ops", "static_cache_gqa", "static_cache_step_ops",
      "static_cache_layer_ops", "activation", "moe", "lm_head", "sampler", "decode_mode", "prefill_mode",
      "graph_gap_us", "host_overhead_us", "collective_host_us", "new_kv_length_host_us",
      "new_kv_length_host_fixed_share", "eager_input_host_us", "graph_input_host_us", "host_cpu_speed", "memory_utilization", "megakernel_schedule", "scheduler",
      "fused_kernels", "decode_attention", "custom_all_reduce_max_bytes", "prefill_attention"};
  const std::vector<std::string> modes = {"eager", "graph", "megakernel"};
  std::string share_at;  // where new_kv_length_host_fixed_share (a share of new_kv_length_host_us) was given
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) throw InputError(where(source, kv.first), "keys must be plain names");
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "name") p.name = text(source, key, v);
    else if (key == "description") p.description = text(source, key, v);
    else if (key == "qkv") p.qkv = choice(source, key, v, {"fused", "separate"});
    else if (key == "gate_up") p.gate_up = choice(source, key, v, {"fused", "separate"});
    else if (key == "batch_padding") p.batch_padding = boolean(source, key, v);
    else if (key == "rotary") p.rotary = choice(source, key, v, {"kernel", "elementwise"});
    else if (key == "rotary_ops") p.rotary_ops = op_list(source, key, v);
    else if (key == "attention") p.attention = choice(source, key, v, {"flash", "eager"});
    else if (key == "kv_cache") p.kv_cache = choice(source, key, v, {"none", "cat", "static", "paged"});
    else if (key == "custom_all_reduce_max_bytes")
      p.custom_all_reduce_max_bytes = static_cast<int64_t>(count(source, key, v, 0, 1e10));
    else if (key == "prefill_attention") p.prefill_attention = choice(source, key, v, {"varlen", "per_request"});
    else if (key == "decode_attention") p.decode_attention = choice(source, key, v, {"flash", "paged"});
    else if (key == "norm") p.norm = choice(source, key, v, {"fused_residual", "kernel", "elementwise"});
    else if (key == "norm_ops") p.norm_ops = op_list(source, key, v);
    else if (key == "norm_row_ops") p.norm_row_ops = static_cast<int>(count(source, key, v, 0, 64));
    else if (key == "step_small_ops") p.step_small_ops = static_cast<int>(count(source, key, v, 0, 1000));
    else if (key == "static_cache_gqa") p.static_cache_gqa = choice(source, key, v, {"repeat", "native"});
    else if (key == "static_cache_step_ops") p.static_cache_step_ops = static_cast<int>(count(source, key, v, 0, 1000));
    else if (key == "static_cache_layer_ops") p.static_cache_layer_ops = static_cast<int>(count(source, key, v, 0, 64));
    else if (key == "activation") p.activation = choice(source, key, v, {"fused", "separate"});
    else if (key == "moe") p.moe = choice(source, key, v, {"fused", "per_expert"});
    else if (key == "lm_head") p.lm_head = choice(source, key, v, {"last_token", "full_sequence"});
    else if (key == "sampler") p.sampler = choice(source, key, v, {"softmax", "argmax", "none"});
    else if (key == "decode_mode") p.decode_mode = choice(source, key, v, modes);
    else if (key == "prefill_mode") p.prefill_mode = choice(source, key, v, modes);
    else if (key == "graph_gap_us") p.graph_gap_us = number(source, key, v, 0, 1000);
    else if (key == "host_overhead_us") p.host_overhead_us = number(source, key, v, 0, 100000);
    else if (key == "collective_host_us") p.collective_host_us = number(source, key, v, 0, 1e6);
    else if (key == "new_kv_length_host_us") p.new_kv_length_host_us = number(source, key, v, 0, 1e7);
    else if (key == "new_kv_length_host_fixed_share") {
      p.new_kv_length_host_fixed_share = number(source, key, v, 0, 0.95);
      share_at = where(source, kv.first);
    }
    else if (key == "eager_input_host_us") p.eager_input_host_us = number(source, key, v, 0, 1e7);
    else if (key == "graph_input_host_us") p.graph_input_host_us = number(source, key, v, 0, 1e7);
    else if (key == "host_cpu_speed") p.host_cpu_speed = number(source, key, v, 0.05, 20);
    else if (key == "memory_utilization") p.memory_utilization = number(source, key, v, 0.05, 1.0);
    else if (key == "scheduler") parse_scheduler(v, source, p.scheduler);
    else if (key == "fused_kernels") p.fused_kernels = boolean(source, key, v);
    else if (key == "megakernel_schedule")
      p.megakernel_schedule = choice(source, key, v, {"static", "dynamic", "auto"});
    else throw InputError(where(source, kv.first), "unknown key '" + key + "'; expected one of: " + join(keys));
  }
  // The share says how much of new_kv_length_host_us does not follow the host's speed; without that cost it was
  // silently unused (round 15).
  if (!share_at.empty() && p.new_kv_length_host_us <= 0)
    throw InputError(share_at,
                     "new_kv_length_host_fixed_share is a share of new_kv_length_host_us, which this profile does not "
                     "set (or sets to 0); give new_kv_length_host_us or drop the share");
  if (p.rotary == "elementwise" && p.rotary_ops.empty())
    throw InputError(source, "rotary: elementwise needs a non-empty 'rotary_ops' list");
  if (p.norm == "elementwise" && p.norm_ops.empty())
    throw InputError(source, "norm: elementwise needs a non-empty 'norm_ops' list");
  if (p.scheduler.cuda_graph_sizes.empty()) {  // vLLM's default capture sizes: 1, 2, 4, then every 8 up to 512
    p.scheduler.cuda_graph_sizes = {1, 2, 4};
    for (int64_t b = 8; b <= 512; b += 8) p.scheduler.cuda_graph_sizes.push_back(b);
  }
  return p;
}

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(data_dir()) / "models" / "profiles", ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ServingProfile load_profile(const std::string& name_or_path) {
  fs::path path = name_or_path;
  if (name_or_path.find('/') == std::string::npos && path.extension() != ".yaml") {
    path = fs::path(data_dir()) / "models" / "profiles" / (name_or_path + ".yaml");
    if (!fs::exists(path))
      throw InputError("--profile", "unknown serving profile '" + name_or_path + "'" +
                                        did_you_mean(name_or_path, profile_names()) +
                                        "; known: " + join(profile_names()));
  }
  return parse_profile(read_input_file(path.string(), "cannot open serving profile; check the path"), path.string());
}

}  // namespace loom
