// The per-config model's decision loop (decide.h): every config's predicted latency in float lanes, and the argmin.
// Configs sharing a tile (same BM, BN, BK: the same G, L and tile bytes for any shape) form a group; a vector holds
// the k-th config of 8 groups, so a decision computes each group's G, L and bytes once, as whole vectors, and loads
// nothing per config but its coefficients. Built once per compiled table set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wave/tables.h"

namespace loom::wave {

struct Lanes {
  static constexpr size_t kLaneWidth = 8;       ///< floats per step (one AVX2 register; two SSE2 ones)
  static constexpr int32_t kNoConfig = 0xFFFF;  ///< a padding lane's config (above every real index)
  struct Group {                                ///< configs of one tile, in config index order
    uint8_t mn = 0;  ///< index into CompiledTables::pair_m / pair_n: the tile's (BM, BN)
    uint8_t ik = 0;  ///< index into CompiledTables::tile_k
    int bm = 0;
    std::vector<int32_t> configs;
  };
  /// Lays the groups out: group q = 8 v + j sits at position j of block v; its k-th config at lane
  /// (v * slots + k) * 8 + j. Lanes without a config never win (intercept +inf, config kNoConfig).
  /// inv_slots and coef: per config index.
  void build(const std::vector<Group>& groups, const std::vector<double>& inv_slots,
             const std::vector<ConfigCoef>& coef);
  size_t blocks = 0;  ///< vectors of groups
  size_t slots = 0;   ///< the most configs a group has
  size_t real = 0;    ///< lanes that are configs
  std::vector<uint8_t> mn, ik;  ///< per group (padded to blocks * 8)
  std::vector<float> bm;        ///< per group: BM (row repeats)
  std::vector<int32_t> config;  ///< per lane: config index
  std::vector<float> inv_slots, w0, w1, w2, w3, w4, w5, w6;  ///< per lane
};

/// What one decision feeds the lanes: per (BM, BN) pair the CTAs G and (tile bytes) feature 4, per BK the K-loop
/// iterations L, and the shape-wide terms.
struct LaneInputs {
  const float* g_pair;      ///< per pair: M tiles x N tiles
  const float* bytes_pair;  ///< per pair: feature 4 (used when pair_bytes)
  const float* empty_pair;  ///< per pair: moe's programs without work (used when empty)
  const float* l_tile;      ///< per BK index: L
  float bytes = 0;          ///< feature 4 when it does not depend on the tile
  float inv_m = 0;          ///< 1 / M when rows (some tile taller than M), else 0
  float floor = 0;          ///< work floor (CTAs)
  bool pair_bytes = false, rows = false, empty = false;
};

/// The config with the lowest predicted latency (ties: the lowest config index), -1 when there is no lane. Each lane's
/// latency is the float expression decide_reference (decide.h) evaluates config by config, term for term, so choices
/// do not depend on the lane layout or on the instruction set.
int lane_argmin(const Lanes& lanes, const LaneInputs& in);

}  // namespace loom::wave
