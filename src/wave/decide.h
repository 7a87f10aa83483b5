// Wave model, step 5: microsecond config selection. The tables are compiled into dense arrays (one cell per macro x
// wave bucket x L anchor, gaps filled once); a decision evaluates every macro's bilinear model and takes the micro
// config at the nearest L anchor. The exported C header (export.h) carries the same arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wave/lanes.h"
#include "wave/tables.h"

namespace loom::wave {

/// How a wave bucket without samples borrows a sampled one (nearest in log waves):
/// ratio: T(G, L) = T_src(G * r, L) / r with r = src mean waves / query waves (time scales with the wave count);
/// linear: T_src(G, L), the source bilinear model evaluated outside its range.
enum class Extrapolation { ratio, linear };
Extrapolation parse_extrapolation(const std::string& s, const std::string& where);

/// Dense form of TuneTables.
struct CompiledTables {
  struct Cell {  ///< one (macro, wave bucket)
    double a = 0, b = 0, c = 0, d = 0, floor_us = 0;
    double ref_waves = 0;  ///< 0: the bucket's own fit; > 0: borrowed, the source's mean waves
  };
  struct Macro {
    std::string name;  ///< macro config, e.g. "128x128x32"
    int bm = 0, bn = 0, bk = 0;
    int64_t slots = 0;           ///< sms x ctas_per_sm
    std::vector<Cell> cells;     ///< per wave bucket
    std::vector<int> micro;      ///< per (bucket * kLAnchors + anchor): config index
  };
  std::string gpu, family;
  int sms = 0;
  int buckets = 0;
  bool moe = false;
  Extrapolation mode = Extrapolation::ratio;
  std::vector<std::string> configs;
  std::vector<Macro> macros;  ///< only macros with at least one fitted bucket
  struct Config {  ///< the per-config model of one config (TuneTables::config_model), when present
    int bm = 0, bn = 0, bk = 0;
    uint8_t im = 0, in = 0, ik = 0;  ///< indices into tile_m / tile_n / tile_k
    uint8_t mn = 0;                  ///< index into pair_m / pair_n
    int64_t slots = 0;
    double inv_slots = 0;
    ConfigCoef w{};
  };
  BytesFeature bytes = BytesFeature::weights;  ///< what feature 4 counts (TuneTables::config_model.bytes)
  double elem_bytes = 2;                       ///< operand element size of the family (fp8 1, bf16 2)
  double work_floor_ctas = 0;                  ///< TuneTables::config_model.work_floor_ctas
  std::vector<Config> per_config;  ///< empty: decisions use the macro tables
  std::vector<int> tile_m, tile_n, tile_k;  ///< distinct BM, BN, BK of per_config (G and L computed once per tile)
  std::vector<uint8_t> pair_m, pair_n;      ///< distinct (im, in) pairs of per_config (G computed once per pair)
  /// The same model as float lanes grouped by tile, for the decision loop (lanes.h; pruned configs have no lane).
  Lanes lanes;
  std::vector<uint8_t> bucket_of_wave;  ///< dense lookup for waves < size(); larger waves use the last bucket
};

/// Compiles tables; throws InputError if no macro has a fit.
CompiledTables compile_tables(const TuneTables& t, Extrapolation mode = Extrapolation::ratio);

struct Choice {
  int config = -1;           ///< index into CompiledTables::configs
  double predicted_us = 0;
  int64_t ctas = 0, loop_iters = 0, waves = 0;
  int bucket = 0, anchor = 0;
  bool borrowed = false;     ///< the chosen macro's bucket had no samples (extrapolated)
};

/// Predicted latency of config i (index into t.configs) by the per-config model (t.per_config must be non-empty).
double predict_config(const CompiledTables& t, size_t i, const TuneShape& s);
/// Picks a config for a shape of the tables' family (no allocation, no exceptions): the per-config model's argmin
/// when the tables have one, else the macro tables' choice.
Choice decide(const CompiledTables& t, const TuneShape& s);
/// The per-config decision computed the plain way: every unpruned config's float latency in config order, strict
/// argmin (the first unpruned config if every latency is NaN). The oracle decide() is tested against
/// (tests/unit/wave_decide_test.cpp), and its fallback for that NaN case; -1 without a per-config model.
int decide_reference(const CompiledTables& t, const TuneShape& s);
/// Predicted latency of one macro (index into t.macros) for a shape; fills G, L, waves, bucket.
double predict_macro(const CompiledTables& t, size_t macro, const TuneShape& s, Choice* info = nullptr);

}  // namespace loom::wave
