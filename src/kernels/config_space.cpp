// Config names, per-config resources and validity on a GPU (the default candidate lists: config_candidates.cpp).
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

bool is_decode(const ConfigTable& t) { return t.family == "attention_decode"; }

}  // namespace

const TileEntry* find_tile(const ConfigTable& t, int bm, int bn, int bk, int warps) {
  for (const auto& e : t.tiles)
    if (e.bm == bm && e.bn == bn && e.bk == bk && e.warps == warps) return &e;
  return nullptr;
}

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
      c.tmem_cols = tmem ? tcgen05_slices(c.bm) * c.bn : 0;
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
      c.tmem_cols = tmem ? tcgen05_slices(c.bm) * static_cast<int>(c.bn + s.head_dim) : 0;
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

}  // namespace loom
