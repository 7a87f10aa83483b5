// PredictMemo: see learned/predict_memo.h.
#include "learned/predict_memo.h"

#include <algorithm>
#include <cstring>

#include "hw/gpu_values.h"

namespace loom {

std::string PredictMemo::gpu_key(const GpuSpec& g) {
  std::string o = gpu_hardware_values(g, false);
  auto num = [&o](auto v) { o.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto text = [&o, &num](const std::string& v) { num(v.size()), o += v; };
  text(g.name), text(g.full_name), text(g.source_file);
  num(g.key_sources.size());
  for (const auto& [k, v] : g.key_sources) text(k), text(v);
  return o;
}

uint32_t PredictMemo::gpu_id(const GpuSpec& g) {
  std::string key = gpu_key(g);
  {
    std::shared_lock lock(mu_);
    if (auto it = gpus_.find(key); it != gpus_.end()) return it->second;
  }
  std::unique_lock lock(mu_);
  return gpus_.try_emplace(std::move(key), uint32_t(gpus_.size())).first->second;
}

uint64_t PredictMemo::row_hash(uint32_t gpu, uint8_t asks, const KernelSpec& spec) {
  // Eight bytes at a time, inline (the strings are short: a library hash or memcpy call per string cost more than
  // the rest). The hash only finds an entry (every input is compared before one is used), so it covers the family,
  // the parameter count and the values in key order, not the keys: specs of one family that differ only in their
  // key names are rare, and they would only share a slot.
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t(gpu) << 2 | uint64_t(asks)) ^ (spec.params.size() << 40);
  auto step = [&h](uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  };
  auto mix = [&step](const std::string& v) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
    size_t left = v.size();
    for (; left >= 8; p += 8, left -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      step(w);
    }
    uint64_t w = uint64_t(v.size()) << 56;  // the tail, with the length in its top byte
    for (size_t b = 0; b < left; ++b) w |= uint64_t(p[b]) << (8 * b);
    step(w);
  };
  mix(spec.family);
  for (const auto& kv : spec.params) mix(kv.second);
  return h;
}

const PredictMemo::Entry* PredictMemo::lookup(const Map& m, uint64_t h, uint32_t gpu, uint8_t asks,
                                              const KernelSpec& spec) {
  auto it = m.find(h);
  if (it == m.end()) return nullptr;
  const Entry& e = it->second;  // the hash only finds the entry: every input is compared
  return e.gpu == gpu && e.asks == asks && e.family == spec.family && e.params == spec.params ? &e
                                                                                                           : nullptr;
}

bool PredictMemo::find(uint64_t h, uint32_t gpu, uint8_t asks, const KernelSpec& spec, Prediction& out) const {
  std::shared_lock lock(mu_);
  if (present_.empty() || !(present_[present_bit(h) / 64] >> (present_bit(h) % 64) & 1)) return false;
  for (const Map& m : gens_)
    if (const Entry* e = lookup(m, h, gpu, asks, spec)) {
      out = e->prediction;
      return true;
    }
  return false;
}

void PredictMemo::keep(size_t n, const uint64_t* hash, const uint32_t* gpu, uint8_t asks, const KernelSpec* specs,
                       const Prediction* preds, const uint8_t* fresh) {
  constexpr size_t kOffered = size_t(1) << 16;
  std::unique_lock lock(mu_);
  if (offered_.empty()) offered_.assign(kOffered, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!fresh[i]) continue;
    uint64_t& seen = offered_[hash[i] & (kOffered - 1)];
    if (seen != hash[i]) {  // the first time (as far as the table remembers): only noted
      seen = hash[i];
      continue;
    }
    seen = 0;
    insert(hash[i], gpu[i], asks, specs[i], preds[i]);
  }
}

void Predictor::clear_memo() const { memo_->clear(); }

void PredictMemo::clear() {
  std::unique_lock lock(mu_);
  gens_.clear();
  present_.clear();
  offered_.clear();
}

void PredictMemo::insert(uint64_t h, uint32_t gpu, uint8_t asks, const KernelSpec& spec, const Prediction& p) {
  if (gens_.empty()) gens_.resize(2), present_.assign((size_t(1) << kPresentLog2) / 64, 0);
  if (gens_[0].size() >= kEntries) {  // the newer generation is full: it becomes the older one
    std::swap(gens_[0], gens_[1]);
    gens_[0].clear();
    std::fill(present_.begin(), present_.end(), 0);  // the dropped generation's bits go; the kept one's are set again
    for (const auto& kv : gens_[1]) present_[present_bit(kv.first) / 64] |= uint64_t(1) << (present_bit(kv.first) % 64);
  }
  present_[present_bit(h) / 64] |= uint64_t(1) << (present_bit(h) % 64);
  Entry& e = gens_[0][h];  // a colliding entry of other inputs is replaced
  e.gpu = gpu, e.asks = asks;
  e.family = spec.family;
  e.params = spec.params;
  e.prediction = p;
}

}  // namespace loom
