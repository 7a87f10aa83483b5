// PredictMemo: an exact memo of Predictor::predict_many's results across calls (issue 14). A row's prediction
// (before the clock mode) depends only on the GPU's values, the family, the parameters and whether the achievable
// quantile and the text are asked for; batches from serving simulators and sweeps repeat shapes across blocks and
// calls, so predict_many looks each row up here before analysing it and keeps what it computed. Internal to
// src/learned.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"
#include "learned/predictor.h"

namespace loom {

class PredictMemo {
 public:
  /// Entries kept per generation; two generations are searched (the older is dropped when the newer fills up), so
  /// a working set of up to this many repeated shapes always hits and memory stays bounded (~2 x this x ~2.5 KB).
  static constexpr size_t kEntries = size_t(1) << 12;

  /// Every GpuSpec field as bytes: two GPUs with equal keys predict identically. (A field added to GpuSpec must be
  /// added here, or a variant differing only in it would be served another GPU's prediction.)
  static std::string gpu_key(const GpuSpec& g);
  /// A small number for the GPU's values (gpu_key), the same for every GPU object with those values.
  uint32_t gpu_id(const GpuSpec& g);

  /// What a call asks for beyond the inputs: bit 0 the achievable quantile, bit 1 the analysis's text (a row
  /// computed without text never serves a call that prints it, nor the other way round).
  static uint8_t asks_of(bool achievable, bool text) { return uint8_t(achievable) | uint8_t(text) << 1; }
  /// Hash to find a row's entry: GPU id, what is asked (asks_of), family, the parameters' count and values (`where`
  /// is not an input; entries are used only after a full compare of the inputs).
  static uint64_t row_hash(uint32_t gpu, uint8_t asks, const KernelSpec& spec);
  /// Copies the remembered prediction of exactly these inputs into `out` and returns true, or returns false.
  bool find(uint64_t h, uint32_t gpu, uint8_t asks, const KernelSpec& spec, Prediction& out) const;
  /// Offers the rows a call computed (fresh[i] != 0) for keeping: a row is kept the second time its inputs are
  /// offered (a table of 2^16 recent hashes remembers the first), so a stream of distinct rows pays one probe a row
  /// instead of a copy of its prediction, and repeated rows are served from their third occurrence on.
  void keep(size_t n, const uint64_t* hash, const uint32_t* gpu, uint8_t asks, const KernelSpec* specs,
            const Prediction* preds, const uint8_t* fresh);
  /// Forgets every row (and every first offer); GPU ids stay.
  void clear();

 private:
  struct Entry {
    uint32_t gpu = 0;
    uint8_t asks = 0;
    std::string family;
    std::map<std::string, std::string> params;
    Prediction prediction;
  };
  using Map = std::unordered_map<uint64_t, Entry>;
  static const Entry* lookup(const Map& m, uint64_t h, uint32_t gpu, uint8_t asks, const KernelSpec& spec);
  void insert(uint64_t h, uint32_t gpu, uint8_t asks, const KernelSpec& spec, const Prediction& p);
  /// A bit per hash slot (kPresentBits, by the hash's top bits) set for every entry of either generation: a row
  /// whose bit is clear (most rows of a stream of distinct ones) is not looked up in the maps, whose buckets and
  /// nodes are cold. Rebuilt from the kept generation when the older one is dropped.
  static constexpr unsigned kPresentLog2 = 17;
  static size_t present_bit(uint64_t h) { return size_t(h >> (64 - kPresentLog2)); }
  std::vector<uint64_t> present_;
  std::vector<uint64_t> offered_;  ///< hashes offered once, by their low 16 bits (0: none)
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, uint32_t> gpus_;  ///< gpu_key -> id (a few per process)
  std::vector<Map> gens_;                          ///< [0] the newer generation, [1] the older
};

}  // namespace loom
