// The default candidate configs of a kernel shape on a GPU: the family's list filtered by config_fits (memoised per
// GPU limits and architecture), the sizes-derived rows/flat configs, and vLLM's CUTLASS fp8 dispatch.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/config_space.h"

namespace loom {
namespace {

/// Smallest entry of `options` >= want (or the largest one).
int snap_up(const std::vector<int>& options, int64_t want) {
  int up = 0, largest = 0;  // one pass, no sorted copy
  bool found = false;
  for (size_t i = 0; i < options.size(); ++i) {
    const int o = options[i];
    if (i == 0 || o > largest) largest = o;
    if (o >= want && (!found || o < up)) up = o, found = true;
  }
  return found ? up : largest;
}

}  // namespace

namespace {

/// vLLM's CUTLASS 3.x w8a8 fp8 GEMM on sm90 picks its kernel by M alone
/// (csrc/quantization/cutlass_w8a8/c3x/scaled_mm_sm90_fp8_dispatch.cuh: M rounded up to a power of two, at least
/// 64; <= 64: 64x64x128 tiles in 1x8 clusters, <= 128: 64x128x128, else 128x128x128 in 2x1 clusters), with
/// CUTLASS's automatic stage count (as many operand stages as fit beside the epilogue).
std::vector<TileConfig> cutlass_fp8_configs(const KernelShape& s, const GpuSpec& gpu, const ConfigTable& table) {
  const int bm = s.m <= 64 ? 64 : s.m <= 128 ? 64 : 128, bn = s.m <= 64 ? 64 : 128, warps = bm == 128 ? 8 : 4;
  for (int stages = 7; stages >= 2; --stages) {
    TileConfig c = parse_config(table, s.family,
                                std::to_string(bm) + "x" + std::to_string(bn) + "x128_s" + std::to_string(stages) +
                                    "_w" + std::to_string(warps),
                                s.where);
    if (config_fits(c, table, s, gpu, nullptr)) return {c};
  }
  return {};
}

/// Everything config_fits reads while candidate_configs probes a tile or attention family's candidate list,
/// besides the list and its table: GPU limits and architecture, dtype, the K extent of split-K checks, head_dim and
/// seq_kv. A split check fails only at small sizes (split_k > ceil(k / bk) iff k <= (split_k - 1) * bk; splits >
/// ceil(seq_kv / bn) iff seq_kv <= (splits - 1) * bn), so k and seq_kv count only up to the list's largest such
/// bound: above it every size gives the same answers.
struct CandidateKey {
  const ConfigTable* table = nullptr;
  const std::vector<TileConfig>* list = nullptr;
  std::string arch;
  bool tcgen05 = false;  // config_fits resolves wgmma tiles to tcgen05 by compute capability, not by arch
  int max_threads_per_block = 0, max_regs_per_thread = 0;
  int64_t smem_per_block_bytes = 0;
  Dtype dtype = Dtype::fp32;
  Family family = Family::gemm;
  int64_t k = 0, head_dim = 0, seq_kv = 0;
  bool operator==(const CandidateKey&) const = default;
};

CandidateKey candidate_key(const ConfigTable& table, const std::vector<TileConfig>& list, const KernelShape& s,
                           const GpuSpec& gpu) {
  CandidateKey key;
  key.table = &table, key.list = &list, key.arch = config_arch(gpu), key.tcgen05 = tcgen05_gpu(gpu);
  key.max_threads_per_block = gpu.max_threads_per_block, key.max_regs_per_thread = gpu.max_regs_per_thread;
  key.smem_per_block_bytes = gpu.smem_per_block_bytes;
  key.dtype = s.dtype, key.family = s.family;
  int64_t k_cap = 1, seq_cap = 1;
  for (const TileConfig& c : list) {
    k_cap = std::max<int64_t>(k_cap, int64_t(c.split_k - 1) * c.bk + 1);
    if (c.splits > 0) seq_cap = std::max<int64_t>(seq_cap, int64_t(c.splits - 1) * c.bn + 1);
  }
  const int64_t k = s.family == Family::moe ? (s.moe_w2 ? s.inter : s.hidden) : s.k;
  key.k = std::min(k, k_cap), key.seq_kv = std::min(s.seq_kv, seq_cap), key.head_dim = s.head_dim;
  return key;
}

}  // namespace

std::vector<TileConfig> candidate_configs(const KernelShape& s, const GpuSpec& gpu) {
  return candidate_configs_view(s, gpu);
}

const std::vector<TileConfig>& candidate_configs_view(const KernelShape& s, const GpuSpec& gpu) {
  thread_local std::vector<TileConfig> scratch;  // the list of a path without a memo
  const ConfigTable& table = config_table(s.family);
  if (s.family == Family::gemm && s.impl == "cutlass") return scratch = cutlass_fp8_configs(s, gpu, table);
  std::vector<TileConfig> out;
  auto add = [&](TileConfig c) {  // named only when it fits (config_fits does not read the name)
    if (!config_fits(c, table, s, gpu, nullptr)) return;
    c.name = config_name(table, c);
    out.push_back(std::move(c));
  };
  if (table.naming == "tile" || table.naming == "attention") {
    // A GEMM that cuBLAS was traced running off the Hopper fast path (misaligned K/N) is chosen among the tiles
    // of the path it falls back to: Ampere mma.sync / WMMA tiles, or Turing-shaped two-stage tiles.
    std::string arch = config_arch(gpu);
    if (s.family == Family::gemm && s.path && (arch == "hopper" || arch == "blackwell")) {
      if (s.path->path == "mma_sync" || s.path->path == "wmma") arch = "ampere";
      else if (s.path->path == "sm75") arch = "turing";
    }
    auto it = table.parsed_candidates.find(arch);
    if (it == table.parsed_candidates.end()) return scratch = valid_configs(s, gpu);
    // The same probes on the same inputs give the same list: a thread's recent lists are kept by everything the
    // probes read (CandidateKey), compared in full.
    const CandidateKey key = candidate_key(table, it->second, s, gpu);
    thread_local std::vector<std::pair<CandidateKey, std::vector<TileConfig>>> memo;
    for (const auto& [k, list] : memo)
      if (k == key) return list;
    out.reserve(it->second.size());
    thread_local std::vector<int> st;  // reused: no allocation per candidate
    const bool tile = std::string_view(table.naming) == "tile";
    for (const TileConfig& c : it->second) {
      if (tile) {  // lower the stage count until the operand ring fits
        const std::vector<int>& all = table.stages.at(find_tile(table, c.bm, c.bn, c.bk, c.warps)->mma);
        st.assign(all.begin(), all.end());
        std::sort(st.rbegin(), st.rend());
        for (int stages : st) {
          if (stages > c.stages) continue;
          TileConfig t = c;
          t.stages = stages;
          if (config_fits(t, table, s, gpu, nullptr)) {
            // named when kept (config_fits does not read the name); parsed names are already config_name()'s
            if (stages != c.stages) t.name = config_name(table, t);
            out.push_back(std::move(t));
            break;
          }
        }
      } else {  // c.name is already config_name(table, c) (parse_config)
        TileConfig t = c;
        if (config_fits(t, table, s, gpu, nullptr)) out.push_back(std::move(t));
      }
    }
    if (memo.size() >= 256) memo.clear();  // distinct keys are few (architecture, dtype, head_dim, capped sizes)
    memo.emplace_back(key, std::move(out));
    return memo.back().second;
  }
  // Row, elementwise and collective kernels: the launch the library computes from the shape.
  TileConfig c;
  auto warps_for = [&](int64_t threads) { return snap_up(table.warps, (threads + 31) / 32); };
  switch (s.family) {
    case Family::rms_norm:  // vLLM csrc/layernorm_kernels.cu: grid(num_tokens), block(min(hidden_size, 1024))
      c.warps = warps_for(std::min<int64_t>(s.cols, 1024));
      break;
    case Family::layer_norm:  // PyTorch layer_norm_kernel.cu: one CTA per row, kCUDANumThreads = 256
      c.warps = 8;
      break;
    case Family::softmax: {  // PyTorch SoftMax.cu: warp-per-row persistent softmax for dim <= 1024 (4 warps/CTA,
      // WARP_BATCH 2 rows per warp when next_pow2(dim) <= 128); else one CTA per row, threads ~ dim / ILP.
      if (s.cols <= 1024) {
        c.warps = 4;
        c.rows_per_cta = s.cols <= 128 ? 8 : 4;
      } else {
        int64_t ilp = static_cast<int64_t>(16 / dtype_bytes(s.dtype));
        c.warps = warps_for(std::min<int64_t>((s.cols + ilp - 1) / ilp, 1024));
      }
      break;
    }
    case Family::rotary:  // vLLM pos_encoding_kernels.cu: grid(num_tokens), block(min(num_heads * rot_dim / 2, 512))
      c.warps = warps_for(std::min<int64_t>(s.heads * s.head_dim / 2, 512));
      break;
    case Family::elementwise:
      if (s.op == "silu_mul") {  // vLLM activation_kernels.cu: grid(num_tokens), block(min(d, 1024)), loop over d
        c.warps = warps_for(std::min<int64_t>(s.cols, 1024));
        c.elems_per_thread = snap_up(table.elems_per_thread, (s.cols + 32 * c.warps - 1) / (32 * c.warps));
      } else if (is_row_reduction(s.op)) {  // PyTorch Reduce.cuh reduce_kernel<512, 1>: 512 threads per CTA
        c.warps = 16, c.elems_per_thread = 4;
      } else {  // PyTorch Loops.cuh: num_threads() = 128, thread_work_size() = 4
        c.warps = 4, c.elems_per_thread = 4;
      }
      break;
    default:
      c.name = table.fixed.front();
      break;
  }
  add(c);
  return scratch = std::move(out);
}

}  // namespace loom
