// Wave model mapping: loom-bench configs and shapes -> (G, L, waves), macro/micro names, wave buckets, L anchors.
#include "wave/mapping.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "analytical/occupancy.h"
#include "core/error.h"
#include "kernels/config_space.h"

namespace loom::wave {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t get_int(const KernelSpec& spec, const std::string& key) {
  auto it = spec.params.find(key);
  if (it == spec.params.end())
    throw InputError(spec.where, "missing " + key + "= for " + spec.family + "; e.g. " +
                                     (spec.family == "gemm" ? "\"gemm m=4096 n=4096 k=4096 dtype=bf16\""
                                                            : "\"moe tokens=64 experts=8 topk=2 hidden=4096 "
                                                              "inter=14336 dtype=bf16 stage=w13\""));
  try {
    size_t used = 0;
    long long v = std::stoll(it->second, &used);
    if (used != it->second.size() || v <= 0) throw std::invalid_argument("bad");
    return v;
  } catch (const std::exception&) {
    throw InputError(spec.where, key + "=" + it->second + " is not a positive integer");
  }
}

}  // namespace

bool is_tune_family(const std::string& family) {
  return family == "gemm" || family == "moe" || family == "moe-triton" || family == "moe-triton-fp8" ||
         family == "gemm-triton" || family == "gemm-triton-fp8";
}

void check_tune_family(const std::string& family, const std::string& where) {
  if (!is_tune_family(family))
    throw InputError(where, "'" + family +
                                "' cannot be tuned; `loom tune` supports gemm and moe (loom-bench's kernels), "
                                "moe-triton and moe-triton-fp8 (the Triton fused-MoE kernel), gemm-triton and "
                                "gemm-triton-fp8 (the Triton GEMM)");
}

std::string base_family(const std::string& target) {
  if (target.rfind("moe", 0) == 0) return "moe";
  return target.rfind("gemm", 0) == 0 ? "gemm" : target;
}
std::string target_impl(const std::string& target) {
  return target.find("-triton") != std::string::npos ? "triton" : "loom";
}
std::string target_dtype(const std::string& target) {
  return target.size() > 4 && target.compare(target.size() - 4, 4, "-fp8") == 0 ? "fp8" : "bf16";
}
std::string target_of(const TuneShape& s) {
  if (s.impl != "triton") return s.family;
  return s.family + "-triton" + (s.dtype == "fp8" ? "-fp8" : "");
}

int64_t bench_smem_bytes(int bm, int bn, int bk, int stages) {
  return int64_t(stages) * (bm + bn) * (bk + 8) * 2;
}

TuneConfig parse_tune_config(const std::string& family, const std::string& name, const std::string& where) {
  TuneConfig c;
  c.name = name;
  int used = 0;
  const bool ok =
      std::sscanf(name.c_str(), "%dx%dx%d_s%d_w%d%n", &c.bm, &c.bn, &c.bk, &c.stages, &c.warps, &used) == 5 &&
      c.bm > 0 && c.bn > 0 && c.bk > 0 && c.stages > 0 && c.warps > 0;
  std::string rest = ok ? name.substr(size_t(used)) : name;
  int tail = 0;
  if (ok && !rest.empty() &&
      !(std::sscanf(rest.c_str(), "_g%d%n", &c.group, &tail) == 1 && size_t(tail) == rest.size() && c.group > 0))
    c.group = -1;
  if (!ok || c.group < 0)
    throw InputError(where, "config '" + name + "' is not of the form BMxBNxBK_sS_wW or BMxBNxBK_sS_wW_gG "
                                                "(e.g. 128x128x32_s3_w4, 64x128x64_s3_w4_g16)");
  c.macro = std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk);
  c.micro =
      "s" + std::to_string(c.stages) + "_w" + std::to_string(c.warps) + (c.group ? "_g" + std::to_string(c.group) : "");
  if (!c.group) try {  // The kernels/ YAML is the project's naming authority when it knows the config.
    ConfigSplit s = split_config(base_family(family), name);
    if (!s.macro.empty()) c.macro = s.macro, c.micro = s.micro;
  } catch (const InputError&) {
    // Not in kernels/<family>.yaml: loom-bench's own config; the name-derived split above stands.
  }
  // Triton's shared memory (its pipelining buffers) is not loom-bench's; load_pool replaces this with CUPTI's value.
  c.smem_bytes = c.group ? int64_t(c.stages) * (c.bm + c.bn) * c.bk * 2 : bench_smem_bytes(c.bm, c.bn, c.bk, c.stages);
  return c;
}

void fit_occupancy(TuneConfig& c, const GpuSpec& gpu) {
  const int regs = c.regs_per_thread > 0 ? c.regs_per_thread : 128;
  c.ctas_per_sm = std::max(1, occupancy(gpu, c.warps * 32, regs, c.smem_bytes).ctas_per_sm);
}

TuneShape parse_tune_shape(const KernelSpec& spec) {
  if (spec.family != "gemm" && spec.family != "moe")
    throw InputError(spec.where, "family '" + spec.family + "' cannot be tuned; `loom tune --kernel` takes gemm or moe "
                                 "specs (add impl=triton for the Triton GEMM and fused-MoE kernels)");
  TuneShape s;
  s.family = spec.family;
  if (auto im = spec.params.find("impl"); im != spec.params.end()) {
    if (im->second != "loom" && im->second != "triton")
      throw InputError(spec.where, "impl=" + im->second + " cannot be tuned; use impl=loom (loom-bench's kernels) or "
                                   "impl=triton (the Triton GEMM and fused-MoE kernels)");
    s.impl = im->second;
  }
  if (auto dt = spec.params.find("dtype"); dt != spec.params.end()) {
    if (dt->second == "fp8" && s.impl == "triton") s.dtype = "fp8";
    else if (dt->second != "bf16")
      throw InputError(spec.where, "dtype=" + dt->second + " cannot be tuned here: loom-bench's kernels are bf16 only; "
                                   "the Triton kernels (impl=triton) take bf16 or fp8");
  }
  if (s.family == "gemm") {
    s.m = get_int(spec, "m"), s.n = get_int(spec, "n"), s.k = get_int(spec, "k");
    return s;
  }
  s.tokens = get_int(spec, "tokens"), s.experts = get_int(spec, "experts"), s.topk = get_int(spec, "topk");
  s.hidden = get_int(spec, "hidden"), s.inter = get_int(spec, "inter");
  if (s.topk > s.experts) throw InputError(spec.where, "topk > experts");
  auto st = spec.params.find("stage");
  if (st == spec.params.end() || st->second == "w13") s.stage = 13;
  else if (st->second == "w2") s.stage = 2;
  else throw InputError(spec.where, "stage=" + st->second + " is not w13 or w2");
  return s;
}

std::string tune_spec(const TuneShape& s, const std::string& config) {
  std::string out;
  if (s.family == "gemm")
    out = "gemm m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) + " dtype=" +
          s.dtype;
  else
    out = "moe tokens=" + std::to_string(s.tokens) + " experts=" + std::to_string(s.experts) +
          " topk=" + std::to_string(s.topk) + " hidden=" + std::to_string(s.hidden) +
          " inter=" + std::to_string(s.inter) + " dtype=" + s.dtype + " stage=" + (s.stage == 2 ? "w2" : "w13");
  if (!config.empty()) out += " config=" + config;
  return out;
}

TiledGemm tiled_gemm(const TuneShape& s, bool moe) {
  TiledGemm g;
  g.moe = moe;
  if (moe) {
    g.n = s.stage == 2 ? s.hidden : 2 * s.inter, g.k = s.stage == 2 ? s.inter : s.hidden;
    g.rows = s.tokens * s.topk, g.experts = s.experts, g.q = g.rows / s.experts, g.r = g.rows % s.experts;
  } else {
    g.rows = s.m, g.n = s.n, g.k = s.k;
  }
  return g;
}

GridMap map_grid(const TuneShape& s, int bm, int bn, int bk) {
  const TiledGemm t = tiled_gemm(s, s.family != "gemm");
  GridMap g;
  g.ctas = t.m_tiles(bm) * tile_count(t.n, bn);
  g.loop_iters = tile_count(t.k, bk);
  return g;
}

GridMap map_shape(const TuneShape& s, const TuneConfig& c, int sms) {
  GridMap g = map_grid(s, c.bm, c.bn, c.bk);
  const int64_t slots = int64_t(std::max(1, sms)) * std::max(1, c.ctas_per_sm);
  g.waves = std::max<int64_t>(1, ceil_div(g.ctas, slots));
  return g;
}

const std::vector<int64_t>& wave_bucket_edges() {
  static const std::vector<int64_t> edges = {1,  2,  3,  4,  5,   6,   7,   8,   10,  13,  17,  22,
                                             29, 38, 50, 66, 88, 117, 156, 208, 277, 369, 492, 656};
  return edges;
}

int wave_bucket(int64_t waves) {
  const auto& e = wave_bucket_edges();
  auto it = std::upper_bound(e.begin(), e.end(), std::max<int64_t>(1, waves));
  return static_cast<int>(it - e.begin()) - 1;
}

int l_anchor(int64_t loop_iters) {
  const uint64_t l = static_cast<uint64_t>(std::max<int64_t>(1, loop_iters));
  int f = 63 - std::countl_zero(l);               // floor(log2 L)
  if (f < 31 && l * l >= (uint64_t(1) << (2 * f + 1))) ++f;  // L >= 2^f * sqrt(2): round up
  return std::min(f, kLAnchors - 1);
}

}  // namespace loom::wave
