// Tile/launch configuration spaces of the kernel families, loaded from kernels/<family>.yaml: naming, per-config
// resources (threads, registers, shared memory), validity on a GPU, per-architecture default candidates, and the
// macro (tile shape: fixes G and L) / micro (stages, warps) split used by the wave model.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "hw/gpu_spec.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"

namespace loom {

/// One tile shape a family's YAML lists (BM x BN x BK for gemm/moe, BM x BN for attention).
struct TileEntry {
  int bm = 0, bn = 0, bk = 0;
  int warps = 0;
  std::string mma;        ///< wgmma | mma_sync | simt | auto
  int kv_stages = 1;      ///< attention: depth of the K/V smem ring
  std::vector<std::string> archs;
  std::vector<Dtype> dtypes;  ///< input dtypes the tile runs; empty = every dtype its mma allows
};

/// One concrete configuration with the resources it uses for a given shape.
struct TileConfig {
  std::string name;
  int bm = 0, bn = 0, bk = 0;
  int stages = 1, warps = 1, split_k = 1;
  int splits = 0;  ///< attention_decode KV splits (0 = choose by heuristic)
  int kv_stages = 1;
  int rows_per_cta = 1, elems_per_thread = 1;
  std::string mma;  ///< resolved: wgmma | tcgen05 | mma_sync | simt | "" (no MMA)
  int threads = 0;
  int regs_per_thread = 0;
  int64_t smem_bytes = 0;
  int tmem_cols = 0;  ///< tcgen05: tensor-memory columns of the accumulator (0: registers)
};

/// A family's config space as read from kernels/<family>.yaml.
struct ConfigTable {
  std::string family, file;
  std::string naming;  ///< tile | attention | rows | flat | fixed
  int regs_base = 32;
  std::map<std::string, std::vector<int>> stages;  ///< by mma kind
  std::map<std::string, int> max_stages;           ///< by architecture
  std::vector<int> split_k{1};
  std::vector<Dtype> split_k_dtypes;  ///< dtypes whose library GEMMs the heuristic may split; empty = every dtype
  std::vector<TileEntry> tiles;
  std::map<std::string, std::vector<std::string>> candidates;  ///< by architecture
  std::map<std::string, std::vector<TileConfig>> parsed_candidates;  ///< the same, parsed once at load
  std::vector<int> rows_per_cta, warps, elems_per_thread;
  std::vector<std::string> fixed;  ///< naming: fixed
};

/// What the wave model and `loom tune` enumerate.
struct ConfigSpace {
  std::string family;
  std::vector<std::string> configs;     ///< every config valid for the spec on the GPU
  std::vector<std::string> candidates;  ///< the production-default candidates among them (per architecture)
};

struct ConfigSplit {
  std::string macro;  ///< tile shape part (fixes G and L), e.g. "128x256x64" or "128x256x64_sk4"
  std::string micro;  ///< schedule part (stages, warps), e.g. "s4_w8"
};

/// Directory of the config-space YAML files: $LOOM_HOME/kernels if LOOM_HOME is set, else <source dir>/kernels.
std::string kernels_dir();
/// Loads and checks one config-space file. Throws InputError("FILE:LINE", ...) on any bad content.
ConfigTable load_config_table(const std::string& path);
/// The cached table of a family (loaded once from kernels_dir(); thread-safe).
const ConfigTable& config_table(Family f);

/// The architecture whose kernels a GPU runs, for its tiles and candidates: its YAML `architecture`, except that
/// sm_120/121 (RTX PRO / GeForce Blackwell) have warp-level mma.sync tensor cores (no wgmma, no tcgen05) and at most
/// 99 KiB of shared memory per block, so they take Ada's tiles.
const std::string& config_arch(const GpuSpec& gpu);

/// True for the GPUs whose tensor cores take tcgen05.mma (sm_100, sm_101, sm_103: B200, B300): their GEMM and
/// attention tiles listed as wgmma run as tcgen05, the accumulator in tensor memory.
bool tcgen05_gpu(const GpuSpec& gpu);

/// The table's tile entry of that shape and warp count (bk 0 for attention), or nullptr.
const TileEntry* find_tile(const ConfigTable& t, int bm, int bn, int bk, int warps);
/// Canonical name of a config under the table's naming scheme.
std::string config_name(const ConfigTable& table, const TileConfig& c);
/// Parses a config name (syntax and membership in the table). Throws InputError(where, ...) for bad names.
TileConfig parse_config(const ConfigTable& table, Family f, const std::string& name, const std::string& where);
/// Fills threads/regs/smem for `shape` on `gpu`; returns "" if the config can run there, else why not.
std::string fit_config(TileConfig& c, const ConfigTable& table, const KernelShape& shape, const GpuSpec& gpu);
/// The same check as fit_config (the same fields of `c` filled in): true when the config fits; otherwise false,
/// with the reason in *why when `why` is not null (candidate probes pass null and build no message).
bool config_fits(TileConfig& c, const ConfigTable& table, const KernelShape& shape, const GpuSpec& gpu,
                 std::string* why);
/// The pinned config (shape.config), parsed and fitted. Throws InputError if it is unknown or does not fit.
TileConfig pinned_config(const KernelShape& shape, const GpuSpec& gpu);
/// The architecture's default candidates that fit (stage counts lowered until they fit the GPU's smem).
std::vector<TileConfig> candidate_configs(const KernelShape& shape, const GpuSpec& gpu);
/// The same list without a copy: valid until this thread's next candidate_configs(_view) call.
const std::vector<TileConfig>& candidate_configs_view(const KernelShape& shape, const GpuSpec& gpu);
/// Every config of the table that fits shape on gpu (family order).
std::vector<TileConfig> valid_configs(const KernelShape& shape, const GpuSpec& gpu);

/// All valid configs of spec's family for spec on gpu (throws InputError for bad specs).
ConfigSpace config_space(const GpuSpec& gpu, const KernelSpec& spec);
/// Splits a config name into macro and micro parts (see ConfigSplit); throws InputError for unknown families/names.
ConfigSplit split_config(const std::string& family, const std::string& config);

}  // namespace loom
