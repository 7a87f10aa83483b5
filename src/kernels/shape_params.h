// Parsing a KernelSpec's parameters (strings) into typed values for parse_shape (kernels/shape.cpp): the family's
// key list, the unknown-key and impl=/l2= checks, sizes, flags, dtypes and choices, each with its one-line error.
// Internal to src/kernels.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/dtype.h"
#include "core/error.h"
#include "kernels/kernel_spec.h"

namespace loom::shape_detail {

/// A size parameter's value: a plain decimal integer in [1, kMaxElements].
int64_t size_value(const std::string& where, std::string_view key_view, const std::string& v);

/// A family's keys: at most 8 of its own plus config, impl and l2 (string literals: no allocation per row).
class KeyList {
 public:
  KeyList(std::initializer_list<std::string_view> keys) {
    for (std::string_view k : keys) push_back(k);
  }
  void push_back(std::string_view k) {
    if (n_ == std::size(keys_)) throw std::logic_error("KeyList: too many keys");
    keys_[n_++] = k;
  }
  const std::string_view* begin() const { return keys_; }
  const std::string_view* end() const { return keys_ + n_; }

 private:
  std::string_view keys_[12];
  size_t n_ = 0;
};

template <class List>
std::string join(const List& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

/// Reads one family's keys from a KernelSpec: rejects unknown keys up front, then parses on demand.
class Params {
 public:
  Params(const KernelSpec& spec, KeyList keys);

  /// The key's value, or null: a scan of the few parameters, by length first (no key string is built).
  const std::string* find(std::string_view key) const {
    for (const auto& [k, v] : spec_.params)
      if (k.size() == key.size() && std::string_view(k) == key) return &v;
    return nullptr;
  }

  bool has(std::string_view key) const { return find(key) != nullptr; }

  const std::string& raw(std::string_view key) const {
    if (const std::string* v = find(key)) return *v;
    throw InputError(spec_.where, spec_.family + " needs " + std::string(key) + "=; e.g. '" + example() + "'");
  }

  /// A required positive integer no larger than kMaxElements.
  int64_t size(std::string_view key) const { return parse_size(key, raw(key)); }
  int64_t size_or(std::string_view key, int64_t fallback) const {
    const std::string* v = find(key);
    return v ? parse_size(key, *v) : fallback;
  }

  /// A 0/1 key (is_flag_key names every one).
  bool flag(std::string_view key) const {
    const std::string& v = raw(key);
    if (v != "0" && v != "1") throw InputError(spec_.where, std::string(key) + "=" + v + " must be 0 or 1");
    return v == "1";
  }

  Dtype dtype(std::initializer_list<Dtype> allowed) const;

  template <class Options = std::initializer_list<std::string_view>>  // the default for a braced list of literals
  std::string choice(std::string_view key, const Options& options, std::string_view fallback) const {
    const std::string* found = find(key);
    if (!found) {
      if (fallback.empty()) raw(key);  // throws "needs key="
      return std::string(fallback);
    }
    const std::string& v = *found;
    for (const auto& o : options)
      if (o == v) return v;
    throw InputError(spec_.where, std::string(key) + "=" + v + " is not valid for " + spec_.family + "; use one of: " +
                                      join(options));
  }

  std::optional<std::string> config() const {
    const std::string* v = find("config");
    if (!v) return std::nullopt;
    return *v;
  }

 private:
  int64_t parse_size(std::string_view key, const std::string& v) const { return size_value(spec_.where, key, v); }

  std::string example() const;

  const KernelSpec& spec_;
};

}  // namespace loom::shape_detail
