// Which GEMM code path cuBLAS launches for a shape, learned from the kernel names in traced sweeps
// (kernels/gemm_paths.json, written by `loom trace paths`): misaligned K/N fall back from the Hopper wgmma kernels
// to Ampere mma.sync, WMMA or Turing-shaped align-1 kernels, small M to split-K or GEMV.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/dtype.h"

namespace loom {

struct GemmPathChoice {
  std::string path;          ///< wgmma | mma_sync | wmma | sm75 | simt | gemv
  double share = 0;          ///< fraction of the traced shapes under this key that ran this path
  double split_k_share = 0;  ///< fraction of them that launched split-K (+ reduce)
  int n = 0;                 ///< traced shapes under this key
  std::string kernel;        ///< the most common main kernel (for messages)
  std::string key;           ///< the table key that matched
};

/// Largest power-of-two byte alignment shared by K and N rows (what cuBLAS's vectorised loads need), <= 16.
int gemm_align_bytes(int64_t k, int64_t n, Dtype dt);
/// Table key: "<arch>|<dtype>|a<align bytes>|<b for batched, s single>|<M bucket>".
std::string gemm_path_key(const std::string& arch, Dtype dt, int align_bytes, bool batched, int64_t m);
/// M buckets of the table: 1, 2-8, 9-32, 33-128, 129-512, 513+.
std::string gemm_m_bucket(int64_t m);

/// The learned path for a key, falling back to the nearest M bucket with data; nullopt when the table has nothing
/// for this architecture, dtype, alignment and batching. Loads data_dir()/kernels/gemm_paths.json once; a missing
/// file means no table (every GEMM takes the default fast path); a malformed one throws InputError.
/// The table from kernels/gemm_paths.json's text, read strictly (`path` names the file in messages): a key given
/// twice, an unknown key, a table key or path loom never looks up, a count or share out of range is refused with
/// the file and the entry's key.
std::map<std::string, GemmPathChoice> parse_gemm_path_table(const std::string& text, const std::string& path);

std::optional<GemmPathChoice> lookup_gemm_path(const std::string& arch, Dtype dt, int align_bytes, bool batched,
                                               int64_t m);

}  // namespace loom
