// PtrIndex: a small open-addressing map from pointers to dense indices 0, 1, 2, ... in order of first sight. A
// step's hundreds of launches share a few dozen op shapes; looking each launch's shape up here costs a multiply and
// a probe or two, where std::unordered_map pays a division and a node chase (issue 14: a 70B decode step's own
// compute).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom {

class PtrIndex {
 public:
  /// The index of `p`: its existing one, or the next free index (size() before the call) with `added` set.
  size_t find_or_add(const void* p, bool& added) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    size_t i = slot(p);
    while (keys_[i] != nullptr) {
      if (keys_[i] == p) {
        added = false;
        return values_[i];
      }
      i = (i + 1) & (keys_.size() - 1);
    }
    keys_[i] = p;
    values_[i] = size_;
    added = true;
    return size_++;
  }
  size_t size() const { return size_; }
  static constexpr size_t npos = ~size_t(0);
  /// The index of `p`, or npos.
  size_t find(const void* p) const {
    if (keys_.empty()) return npos;
    for (size_t i = slot(p); keys_[i] != nullptr; i = (i + 1) & (keys_.size() - 1))
      if (keys_[i] == p) return values_[i];
    return npos;
  }

 private:
  size_t slot(const void* p) const {
    // Fibonacci hashing of the address (its low bits are alignment): the top log2(capacity) bits of the product.
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(p) * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
  }
  void grow() {
    std::vector<const void*> keys = std::move(keys_);
    std::vector<size_t> values = std::move(values_);
    bits_ = keys.empty() ? 6 : bits_ + 1;
    keys_.assign(size_t(1) << bits_, nullptr);
    values_.assign(size_t(1) << bits_, 0);
    for (size_t j = 0; j < keys.size(); ++j) {
      if (keys[j] == nullptr) continue;
      size_t i = slot(keys[j]);
      while (keys_[i] != nullptr) i = (i + 1) & (keys_.size() - 1);
      keys_[i] = keys[j];
      values_[i] = values[j];
    }
  }
  std::vector<const void*> keys_;
  std::vector<size_t> values_;
  size_t size_ = 0;
  unsigned bits_ = 0;
};

}  // namespace loom
