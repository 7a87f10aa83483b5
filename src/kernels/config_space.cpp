// Config names, per-config resources and validity on a GPU, default candidates, and macro/micro splits.
#include "kernels/config_space.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <regex>
#include <string_view>

#include "core/error.h"
#include "hw/tensor_path.h"

namespace loom {
namespace {

const char* name_format(const std::string& naming) {
  if (naming == "tile") return "BMxBNxBK_s<stages>_w<warps>[_sk<split>], e.g. 128x256x64_s4_w8";
  if (naming == "attention") return "BMxBN_w<warps>[_sp<splits>], e.g. 128x128_w8";
  if (naming == "rows") return "r<rows per CTA>_w<warps>, e.g. r1_w8";
  if (naming == "flat") return "w<warps>_e<elements per thread>, e.g. w4_e4";
  return "one of the names in the family's YAML";
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }
bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& e) { return std::string_view(e) == x; });
}

const TileEntry* find_tile(const ConfigTable& t, int bm, int bn, int bk, int warps) {
  for (const auto& e : t.tiles)
    if (e.bm == bm && e.bn == bn && e.bk == bk && e.warps == warps) return &e;
  return nullptr;
}

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

bool is_decode(const ConfigTable& t) { return t.family == "attention_decode"; }

}  // namespace

std::string config_name(const ConfigTable& table, const TileConfig& c) {
  // Written into one buffer (std::to_chars prints an int as std::to_string does): one allocation at most.
  const std::string_view n = table.naming;
  char buf[96];
  char* p = buf;
  auto text = [&](std::string_view t) { p = std::copy(t.begin(), t.end(), p); };
  auto num = [&](int v) { p = std::to_chars(p, buf + sizeof buf, v).ptr; };
  if (n == "tile") {
    num(c.bm), text("x"), num(c.bn), text("x"), num(c.bk), text("_s"), num(c.stages), text("_w"), num(c.warps);
    if (c.split_k > 1) text("_sk"), num(c.split_k);
  } else if (n == "attention") {
    num(c.bm), text("x"), num(c.bn), text("_w"), num(c.warps);
    if (c.splits > 0) text("_sp"), num(c.splits);
  } else if (n == "rows") {
    text("r"), num(c.rows_per_cta), text("_w"), num(c.warps);
  } else if (n == "flat") {
    text("w"), num(c.warps), text("_e"), num(c.elems_per_thread);
  } else {
    return c.name;
  }
  return std::string(buf, p);
}

TileConfig parse_config(const ConfigTable& table, Family f, const std::string& name, const std::string& where) {
  static const std::regex tile_re(
      R"(([0-9]{1,4})x([0-9]{1,4})x([0-9]{1,4})_s([0-9]{1,2})_w([0-9]{1,2})(_sk([0-9]{1,3}))?)");
  static const std::regex attn_re(R"(([0-9]{1,4})x([0-9]{1,4})_w([0-9]{1,2})(_sp([0-9]{1,3}))?)");
  static const std::regex rows_re(R"(r([0-9]{1,3})_w([0-9]{1,2}))");
  static const std::regex flat_re(R"(w([0-9]{1,2})_e([0-9]{1,3}))");
  const std::string fam = family_name(f);
  auto bad = [&](const std::string& why) {
    return InputError(where, "bad config '" + name.substr(0, 60) + "' for " + fam + ": " + why + "; names look like " +
                                 name_format(table.naming) + " (see kernels/" + fam + ".yaml)");
  };
  TileConfig c;
  std::smatch m;
  const std::string& n = table.naming;
  if (name.size() > 40) throw bad("name too long");  // also keeps std::regex's recursion shallow
  if (n == "tile") {
    if (!std::regex_match(name, m, tile_re)) throw bad("not a tile config name");
    c.bm = std::stoi(m[1]), c.bn = std::stoi(m[2]), c.bk = std::stoi(m[3]);
    c.stages = std::stoi(m[4]), c.warps = std::stoi(m[5]);
    c.split_k = m[7].matched ? std::stoi(m[7]) : 1;
    const TileEntry* e = find_tile(table, c.bm, c.bn, c.bk, c.warps);
    if (!e) throw bad("no tile " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk) +
                      " with " + std::to_string(c.warps) + " warps in the config space");
    c.mma = e->mma;
    if (!contains(table.stages.at(e->mma), c.stages)) throw bad("stage count not in the config space");
    if (!contains(table.split_k, c.split_k) || (m[7].matched && c.split_k == 1))
      throw bad("split-K " + std::to_string(c.split_k) + " not in the config space");
  } else if (n == "attention") {
    if (!std::regex_match(name, m, attn_re)) throw bad("not an attention config name");
    c.bm = std::stoi(m[1]), c.bn = std::stoi(m[2]), c.warps = std::stoi(m[3]);
    c.splits = m[5].matched ? std::stoi(m[5]) : 0;
    if (m[5].matched && !is_decode(table)) throw bad("_sp<splits> applies to attention_decode only");
    if (m[5].matched && (c.splits < 1 || c.splits > 256)) throw bad("splits must be 1..256");
    const TileEntry* e = find_tile(table, c.bm, c.bn, 0, c.warps);
    if (!e) throw bad("no tile " + std::to_string(c.bm) + "x" + std::to_string(c.bn) + " with " +
                      std::to_string(c.warps) + " warps in the config space");
    c.mma = e->mma, c.kv_stages = e->kv_stages;
  } else if (n == "rows") {
    if (!std::regex_match(name, m, rows_re)) throw bad("not a row-kernel config name");
    c.rows_per_cta = std::stoi(m[1]), c.warps = std::stoi(m[2]);
    if (!contains(table.rows_per_cta, c.rows_per_cta) || !contains(table.warps, c.warps))
      throw bad("rows per CTA or warps not in the config space");
  } else if (n == "flat") {
    if (!std::regex_match(name, m, flat_re)) throw bad("not an elementwise config name");
    c.warps = std::stoi(m[1]), c.elems_per_thread = std::stoi(m[2]);
    if (!contains(table.warps, c.warps) || !contains(table.elems_per_thread, c.elems_per_thread))
      throw bad("warps or elements per thread not in the config space");
  } else {
    if (!contains(table.fixed, name)) throw bad("unknown config");
  }
  c.name = n == "fixed" ? name : config_name(table, c);
  return c;
}

namespace {

/// Records why a config does not fit (when asked: a probe of many candidates builds no message) and says false.
template <class Message>
bool refuse(std::string* why, Message&& message) {
  if (why) *why = message();
  return false;
}

}  // namespace

bool tcgen05_gpu(const GpuSpec& gpu) { return tensor_path_of(gpu.compute_capability) == TensorPath::tcgen05; }

const std::string& config_arch(const GpuSpec& gpu) {
  static const std::string ada = "ada";
  return gpu.architecture == "blackwell" && gpu.compute_capability >= 120 ? ada : gpu.architecture;
}

bool config_fits(TileConfig& c, const ConfigTable& table, const KernelShape& s, const GpuSpec& gpu, std::string* why) {
  const std::string& arch = config_arch(gpu);
  // Compared as string_views: the length first, no strlen or out-of-line compare per probe.
  const std::string_view naming = table.naming, arch_v = arch;
  const double in_bytes = dtype_bytes(s.dtype);
  c.threads = 32 * c.warps;
  if (naming == "tile" || naming == "attention") {
    const TileEntry* e = find_tile(table, c.bm, c.bn, c.bk, c.warps);
    if (!e) return refuse(why, [&] { return std::string("tile not in the config space"); });
    if (std::string_view(e->mma) == "tcgen05" && !tcgen05_gpu(gpu))  // said before the architecture list
      return refuse(why, [] { return std::string("tcgen05 tiles need compute capability 10.x (tensor memory)"); });
    if (!contains(e->archs, arch))
      return refuse(why, [&] { return "tile not available on architecture '" + arch + "'"; });
    if (!e->dtypes.empty() && std::find(e->dtypes.begin(), e->dtypes.end(), s.dtype) == e->dtypes.end())
      return refuse(why, [&] { return "tile does not run dtype=" + std::string(dtype_name(s.dtype)); });
    if (std::string_view(e->mma) == "auto")
      c.mma = (arch_v == "hopper" || arch_v == "blackwell") && c.bm % 64 == 0 ? "wgmma" : "mma_sync";
    else
      c.mma = e->mma;
    // sm_100/sm_103 (B200, B300) have no wgmma: their warp-specialised GEMMs and attention kernels (FlashAttention-4,
    // cuDNN, FlashInfer's sm100 path) issue the same tiles as tcgen05.mma, one thread per CTA (or per CTA pair),
    // accumulators in tensor memory (src/analytical/gemm_model.cpp, attention_model.cpp). A tile listed as tcgen05
    // runs only there (refused above).
    if (tcgen05_gpu(gpu) && c.mma == "wgmma") c.mma = "tcgen05";
    if (naming == "tile") {
      if ((std::string_view(c.mma) == "simt") != (s.dtype == Dtype::fp32))
        return refuse(why, [&] {
          return std::string(c.mma == "simt" ? "SIMT (FMA-pipe) tiles run fp32 only"
                                             : "tensor-core tiles do not run dtype=fp32");
        });
      auto ms = table.max_stages.find(arch);
      if (ms != table.max_stages.end() && c.stages > ms->second)
        return refuse(why, [&] {
          return std::to_string(c.stages) + " stages need cp.async (sm_80+); '" + arch + "' allows " +
                 std::to_string(ms->second);
        });
      // fp32 accumulators live in registers, except tcgen05's (tensor memory: 128 lanes x 512 columns of 32 bits a
      // SM, PTX ISA "Tensor Memory"), which must fit there instead.
      const bool tmem = c.mma == "tcgen05";
      c.regs_per_thread = table.regs_base + (tmem ? 0 : static_cast<int>(std::ceil(double(c.bm) * c.bn / c.threads)));
      c.tmem_cols = tmem ? (c.bm + 127) / 128 * c.bn : 0;
      if (c.tmem_cols > kTensorMemoryColumns)
        return refuse(why, [&] {
          return "the fp32 accumulator needs " + std::to_string(c.tmem_cols) +
                 " tensor-memory columns, above the SM's " + std::to_string(kTensorMemoryColumns);
        });
      c.smem_bytes = static_cast<int64_t>(std::ceil(double(c.stages) * (c.bm + c.bn) * c.bk * in_bytes));
      int64_t k = s.family == Family::moe ? (s.moe_w2 ? s.inter : s.hidden) : s.k;
      int64_t k_iters = (k + c.bk - 1) / c.bk;
      if (c.split_k > k_iters)
        return refuse(why, [&] {
          return "split-K " + std::to_string(c.split_k) + " exceeds the " + std::to_string(k_iters) + " k-iterations";
        });
    } else {
      const double d = static_cast<double>(s.head_dim);
      // tcgen05 (FlashAttention-4's layout): S/P and the O accumulator of each 128-row slice live in tensor memory
      // (BN + d columns a slice); softmax threads still load a row chunk of S into registers.
      const bool tmem = c.mma == "tcgen05";
      c.regs_per_thread = table.regs_base + static_cast<int>(std::ceil(((tmem ? 0.0 : c.bm * d) + double(c.bm) * c.bn) /
                                                                        c.threads));
      c.tmem_cols = tmem ? (c.bm + 127) / 128 * static_cast<int>(c.bn + s.head_dim) : 0;
      if (c.tmem_cols > kTensorMemoryColumns)
        return refuse(why, [&] {
          return "S and O need " + std::to_string(c.tmem_cols) + " tensor-memory columns, above the SM's " +
                 std::to_string(kTensorMemoryColumns);
        });
      c.smem_bytes = static_cast<int64_t>(std::ceil((c.bm * d + 2.0 * c.kv_stages * c.bn * d) * in_bytes));
      if (c.splits > 0 && c.splits > (s.seq_kv + c.bn - 1) / c.bn)
        return refuse(
            why, [&] { return "more splits than KV blocks (" + std::to_string((s.seq_kv + c.bn - 1) / c.bn) + ")"; });
    }
  } else if (naming == "rows") {
    c.regs_per_thread = table.regs_base;
    c.smem_bytes = 128 * c.rows_per_cta;
  } else if (naming == "flat") {
    c.regs_per_thread = table.regs_base + std::min(2 * c.elems_per_thread, 16);  // loads beyond 8 are not all live
    c.smem_bytes = 0;
  } else {
    c.threads = 0;
    return true;
  }
  if (c.threads > gpu.max_threads_per_block)
    return refuse(why, [&] {
      return std::to_string(c.threads) + " threads exceed the " + std::to_string(gpu.max_threads_per_block) +
             " per block";
    });
  if (gpu.max_regs_per_thread > 0 && c.regs_per_thread > gpu.max_regs_per_thread)
    return refuse(why, [&] {
      return "needs ~" + std::to_string(c.regs_per_thread) + " registers/thread, above the limit of " +
             std::to_string(gpu.max_regs_per_thread);
    });
  if (c.smem_bytes > gpu.smem_per_block_bytes)
    return refuse(why, [&] {
      return "needs " + std::to_string(c.smem_bytes) + " B shared memory per block, above the " +
             std::to_string(gpu.smem_per_block_bytes) + " B limit";
    });
  return true;
}

std::string fit_config(TileConfig& c, const ConfigTable& table, const KernelShape& s, const GpuSpec& gpu) {
  std::string why;
  config_fits(c, table, s, gpu, &why);
  return why;
}

TileConfig pinned_config(const KernelShape& s, const GpuSpec& gpu) {
  const ConfigTable& table = config_table(s.family);
  TileConfig c = parse_config(table, s.family, *s.config, s.where);
  std::string why = fit_config(c, table, s, gpu);
  if (!why.empty())
    throw InputError(s.where, "config '" + c.name + "' cannot run " + family_name(s.family) + " on gpu '" + gpu.name +
                                  "': " + why + "; pick another (see `kernels/" + family_name(s.family) + ".yaml`)");
  return c;
}

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
