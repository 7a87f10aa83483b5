// KernelSpec parsing and canonical printing (syntax only; families validate their own keys in params.cpp).
#include "kernels/kernel_spec.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace loom {
namespace {

/// Documentation order of each family's keys, used by to_string(); unknown keys sort after, alphabetically.
const std::vector<std::string>& key_order(const std::string& family) {
  static const std::map<std::string, std::vector<std::string>> orders = {
      {"gemm", {"m", "n", "k", "batch", "dtype"}},
      {"moe", {"tokens", "experts", "topk", "hidden", "inter", "dtype", "stage"}},
      {"attention_prefill", {"batch", "heads", "kv_heads", "seq", "seq_kv", "head_dim", "causal", "dtype"}},
      {"attention_decode", {"batch", "heads", "kv_heads", "seq_kv", "head_dim", "dtype"}},
      {"rms_norm", {"rows", "cols", "dtype"}},
      {"layer_norm", {"rows", "cols", "dtype"}},
      {"softmax", {"rows", "cols", "dtype"}},
      {"elementwise", {"op", "rows", "cols", "dtype"}},
      {"rotary", {"tokens", "heads", "head_dim", "dtype"}},
      {"all_reduce", {"bytes", "gpus"}},
      {"all_gather", {"bytes", "gpus"}},
      {"reduce_scatter", {"bytes", "gpus"}},
      {"send_recv", {"bytes"}},
  };
  static const std::vector<std::string> none;
  auto it = orders.find(family);
  return it == orders.end() ? none : it->second;
}

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 60)) out += (c >= 32 && c < 127) ? c : '?';
  if (s.size() > 60) out += "...";
  return out;
}

}  // namespace

std::string KernelSpec::to_string() const {
  std::string out;
  size_t len = family.size();
  for (const auto& [k, v] : params) len += k.size() + v.size() + 2;
  out.reserve(len);
  out += family;
  auto put = [&](const std::string& k, const std::string& v) {
    out += ' ';
    out += k;
    out += '=';
    out += v;
  };
  // The family's keys in documentation order (each listed once, "config" never, at most 8), then the rest in map
  // order with config last: one pass over the map puts each key in its slot.
  const std::vector<std::string>& order = key_order(family);
  const std::pair<const std::string, std::string>* slot[8] = {};
  const std::pair<const std::string, std::string>* config = nullptr;
  for (const auto& kv : params) {
    const std::string_view k = kv.first;
    size_t j = 0;
    while (j < order.size() && j < std::size(slot) && k != order[j]) ++j;
    if (j < order.size() && j < std::size(slot)) slot[j] = &kv;
    else if (k == "config") config = &kv;
  }
  for (const auto* kv : slot)
    if (kv) put(kv->first, kv->second);
  for (const auto& kv : params) {
    if (&kv == config || std::find(std::begin(slot), std::end(slot), &kv) != std::end(slot)) continue;
    put(kv.first, kv.second);
  }
  if (config) put(config->first, config->second);
  return out;
}

bool is_flag_key(std::string_view key) { return key == "causal" || key == "residual" || key == "mask"; }

KernelSpec parse_kernel_spec(std::string_view text, std::string where) {
  KernelSpec spec;
  spec.where = where;
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  if (tokens.empty())
    throw InputError(where, "empty kernel spec; expected e.g. 'gemm m=4096 n=4096 k=4096 dtype=bf16'");
  std::string_view fam = tokens[0];
  if (fam.find('=') != std::string_view::npos)
    throw InputError(where, "kernel spec must start with a family name, got '" + printable(fam) +
                                "'; e.g. 'gemm m=4096 n=4096 k=4096 dtype=bf16'");
  for (char c : fam)
    if (!is_name_char(c))
      throw InputError(where, "bad family name '" + printable(fam) + "'; use lower-case letters, digits and '_'");
  spec.family = std::string(fam);
  for (size_t t = 1; t < tokens.size(); ++t) {
    std::string_view tok = tokens[t];
    size_t eq = tok.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == tok.size())
      throw InputError(where, "expected key=value, got '" + printable(tok) + "'");
    std::string_view key = tok.substr(0, eq);
    for (char c : key)
      if (!is_name_char(c))
        throw InputError(where, "bad key '" + printable(key) + "'; keys use lower-case letters, digits and '_'");
    std::string value(tok.substr(eq + 1));
    if (value.find('=') != std::string::npos)
      throw InputError(where, "bad value in '" + printable(tok) + "'; a value may not contain '='");
    if (!spec.params.emplace(std::string(key), value).second)
      throw InputError(where, "duplicate key '" + std::string(key) + "'; give each key once");
  }
  return spec;
}

}  // namespace loom
