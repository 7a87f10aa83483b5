// Wave model, step 4: the dual tables of one GPU and family, as fitted and as saved in models/tune/<gpu>-<family>.json:
// table 1 (macro config, wave bucket) -> bilinear coefficients; table 2 (macro, wave bucket, L anchor) -> micro config.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "wave/bilinear.h"
#include "wave/mapping.h"

namespace loom::wave {

struct BucketEntry {  ///< one row of table 1
  int bucket = 0;
  int64_t min_waves = 0, max_waves = 0;  ///< wave counts the samples actually had
  BilinearFit fit;
};

struct MicroEntry {  ///< one row of table 2
  int bucket = 0;
  int anchor = 0;      ///< L anchor index: L ~ 2^anchor
  std::string config;  ///< full config name (macro + micro)
  int samples = 0;     ///< sampled points behind the choice
};

struct MacroTable {
  std::string macro;
  int bm = 0, bn = 0, bk = 0;
  int ctas_per_sm = 0;               ///< largest among its micro configs (defines the macro's wave count)
  std::vector<std::string> configs;  ///< its configs (micro variants), loom-bench order
  std::vector<BucketEntry> fits;     ///< sampled buckets only, ascending
  std::vector<MicroEntry> micros;    ///< sampled (bucket, anchor) cells only
};

/// The per-config ridge model (config_model.h), saved with the tables when the target uses it.
constexpr int kConfigFeatures = 7;
using ConfigCoef = std::array<double, kConfigFeatures>;
inline constexpr const char* kConfigFeatureNames[kConfigFeatures] = {"W*L", "W", "G*L/slots", "1", "bytes/1e8", "L",
                                                                     "G*L/slots*(BM/M-1)"};
/// moe's last feature (config_model.h): the upper-bound grid's programs that do no work, per slot. Tables fitted
/// before it have a 0 there (the row-repeat column is 0 for moe), so they decide as before.
inline constexpr const char* kMoeLastFeatureName = "empty programs/slots";
/// What the per-config model's bytes column (feature 4) counts (config_model.h, shape_bytes):
/// weights: the weight elements the shape must read (gemm N*K, moe experts touched x N*K; config-independent, the first
/// form); operands: every operand once, A + B + C bytes (config-independent); tiles: the bytes the config's CTAs load,
/// A re-read once per N tile and B once per M tile (masked rows not fetched), plus C.
enum class BytesFeature { weights = 0, operands = 1, tiles = 2 };
struct ConfigModel {
  double lambda = 0;
  BytesFeature bytes = BytesFeature::weights;
  bool nonneg = false;           ///< fitted with every coefficient >= 0 (provenance; decisions do not read it)
  bool macro_prior = false;  ///< fitted shrunk towards its macro's pooled fit (provenance; decisions do not read it)
  double work_floor_ctas = 0;    ///< feature 2 is max(G, this) * L / slots (config_model.h); 0: G * L / slots
  std::vector<ConfigCoef> coef;  ///< per config, TuneTables::configs order; empty = no model
};

struct TuneTables {
  int version = 1;
  std::string gpu, family;
  int sms = 0;
  std::vector<TuneConfig> configs;
  std::vector<MacroTable> macros;
  std::string default_config;         ///< the family's fixed default (validation baseline)
  // Provenance of the fit.
  int64_t pool_shapes = 0;            ///< shapes with every config measured
  int64_t sampled_shapes = 0;         ///< of those, the ones whose measurements the fit used
  int64_t samples = 0;                ///< (shape, config) measurements used
  int64_t exhaustive_points = 0;      ///< pool_shapes x configs
  std::vector<std::string> sampled;   ///< specs of the sampled shapes
  ConfigModel config_model;           ///< decisions use it when present (moe-triton targets)
};

/// The committed tables' path: <data_dir()>/models/tune/<gpu>-<family>.json; InputError("--gpu") for a YAML path.
std::string tables_path(const std::string& gpu, const std::string& family);
nlohmann::ordered_json tables_to_json(const TuneTables& t);
/// Parses tables JSON; throws InputError(where, ...) naming the bad field.
TuneTables tables_from_json(const nlohmann::json& j, const std::string& where);
void save_tables(const TuneTables& t, const std::string& path);
/// Loads tables from a file; a missing file is an InputError naming the `loom tune --fit` command that makes it.
TuneTables load_tables(const std::string& path, const std::string& gpu = "", const std::string& family = "");

}  // namespace loom::wave
