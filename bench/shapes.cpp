// Sweep grids (shapes.h). Shapes are LLM inference shapes; sources named next to each list. The time estimate
// is a coarse roofline used only to leave out cases too slow for a partition and to report the planned GPU time.
#include "shapes.h"
#include "configs.h"
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bench {
namespace {

using I = int64_t;
struct NK { I n, k; };

// Token counts: powers of two (decode batch .. long prefill) plus ragged values that miss every tile size.
const std::vector<I> kM = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,
                           77, 333, 1000, 3000};
// (N, K) of linear layers, y[M,N] = x[M,K] W[N,K]^T, from the models' config.json:
const std::vector<NK> kNK = {
    {6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336},    // Llama-3-8B / Mistral-7B: qkv, o, gate_up, down
    {1280, 8192}, {8192, 1024}, {7168, 8192}, {8192, 3584},      // Llama-3-70B at tensor-parallel 8
    {4608, 3584}, {3584, 3584}, {37888, 3584}, {3584, 18944},    // Qwen2.5-7B
    {15360, 5120}, {5120, 5120}, {27648, 5120}, {5120, 13824},   // Llama-2-13B
    {5120, 2048}, {2048, 4096},                                  // Qwen3-30B-A3B attention (32 q / 4 kv heads)
    {3072, 2048}, {16384, 2048}, {2048, 8192},                   // Llama-3.2-1B
    {128256, 4096},                                              // Llama-3 lm_head
};
const std::vector<NK> kNKSmall = {{6144, 4096}, {4096, 4096}, {28672, 4096}, {4096, 14336}};

// Coarse H100/H200 ceilings for budgeting only (datasheet dense rates derated to what libraries reach;
// GPU-NOTES.md: ~790 TFLOP/s bf16 measured on random data). Bandwidth: ~4 TB/s on the whole chip, falling
// about linearly below 80 SMs (loom-bench quick run on H200: rms_norm 4096x4096 took 29 us on 132 SMs, 66 on 32).
double peak_tflops(DType d) {
  switch (d) {
    case DType::fp8: return 1400;
    case DType::bf16: case DType::fp16: return 700;
    case DType::tf32: return 350;
    case DType::fp32: return 50;
  }
  return 1;
}
double roofline_us(double flop, double bytes, double peak_tf, int sms) {
  double c = flop / (peak_tf * 1e12 * sms / 132.0) * 1e6;
  double m = bytes / (4.0e12 * std::min(1.0, sms / 80.0)) * 1e6;
  return std::max(c, m) + 4.0;
}
std::string S(I v) { return std::to_string(v); }
// Fraction of the bf16 rate loom's mma.sync tile kernel reaches, by tile area (H200 quick run: 128x128 tiles
// ~295 TFLOP/s at 4096^3, 64x64 ~165; MoE with 16-row tiles ~60).
double tile_eff(const TileCfg& c) { return std::min(0.42, 0.42 * std::sqrt(c.bm * c.bn / (128.0 * 128.0))); }

struct Planner {
  const PlanOptions& o;
  std::vector<Case> out;
  bool on(const std::string& g) const {
    if (o.families.empty()) return true;
    static const std::map<std::string, std::string> parent = {
        {"gemm_cublaslt", "gemm"}, {"gemm_algos", "gemm"}, {"gemm_loom", "gemm"},
        {"rms_norm", "memory"}, {"layer_norm", "memory"}, {"softmax", "memory"}, {"elementwise", "memory"},
        {"rotary", "memory"}, {"attention_prefill", "attention"}, {"attention_decode", "attention"}};
    auto p = parent.find(g);
    return o.families.count(g) || (p != parent.end() && o.families.count(p->second));
  }
  void add(Case c) {
    if (c.est_us > o.max_case_us) return;
    out.push_back(std::move(c));
  }

  void gemm_lib(DType d, const std::vector<I>& ms, const std::vector<NK>& nks, bool algos) {
    for (auto nk : nks)
      for (I m : ms) {
        Case c{algos ? Kind::gemm_algos : Kind::gemm_cublaslt};
        c.family = "gemm";
        c.group = algos ? "gemm_algos" : "gemm_cublaslt";
        c.impl = algos ? "cublaslt_algo" : "cublaslt";
        c.dtype = d;
        c.m = m, c.n = nk.n, c.k = nk.k;
        c.spec = "gemm m=" + S(m) + " n=" + S(nk.n) + " k=" + S(nk.k) + " dtype=" + dtype_name(d);
        double bytes = (double)(m * nk.k + nk.n * nk.k) * dtype_bytes(d) + (double)m * nk.n * 2;
        c.est_us = roofline_us(2.0 * m * nk.n * nk.k, bytes, peak_tflops(d), o.sms);
        c.expands = algos ? std::min(o.max_algos, 24) : 1;  // typical count on sm_90 (upper bound in --list)
        add(c);
      }
  }

  void gemm_loom(const std::vector<I>& ms, const std::vector<NK>& nks, const std::vector<int>& cfgs,
                 const std::string& group = "gemm_loom") {
    for (auto nk : nks)
      for (I m : ms)
        for (int ci : cfgs) {
          Case c{Kind::gemm_loom};
          c.family = "gemm", c.group = group, c.impl = "loom";
          c.m = m, c.n = nk.n, c.k = nk.k, c.config = ci;
          c.spec = "gemm m=" + S(m) + " n=" + S(nk.n) + " k=" + S(nk.k) + " dtype=bf16 config=" + kGemmCfgs[ci].name();
          double bytes = 2.0 * (m * nk.k + nk.n * nk.k + m * nk.n);
          c.est_us = roofline_us(2.0 * m * nk.n * nk.k, bytes, 700 * tile_eff(kGemmCfgs[ci]), o.sms);
          add(c);
        }
  }

  struct Moe { I e, topk, hidden, inter; };
  void moe(const std::vector<I>& tokens, const std::vector<int>& cfgs,
           std::vector<Moe> models = {{8, 2, 4096, 14336}, {128, 8, 2048, 768}}, std::vector<int> stages = {13, 2},
           const std::string& group = "moe") {
    // Mixtral-8x7B (8 experts, top-2, 4096, 14336); Qwen3-30B-A3B (128 experts, top-8, 2048, 768).
    for (Moe mo : models)
      for (int stage : stages)
        for (I t : tokens)
          for (int ci : cfgs) {
            Case c{Kind::moe};
            c.family = "moe", c.group = group, c.impl = "loom";
            c.m = t, c.experts = mo.e, c.topk = mo.topk, c.n = mo.hidden, c.k = mo.inter, c.stage = stage;
            c.config = ci;
            c.spec = "moe tokens=" + S(t) + " experts=" + S(mo.e) + " topk=" + S(mo.topk) + " hidden=" + S(mo.hidden) +
                     " inter=" + S(mo.inter) + " dtype=bf16 stage=" + (stage == 13 ? "w13" : "w2") +
                     " config=" + kMoeCfgs[ci].name();
            I rows = t * mo.topk, kk = stage == 13 ? mo.hidden : mo.inter, nn = stage == 13 ? 2 * mo.inter : mo.hidden;
            I active = std::min(mo.e, rows);
            double bytes = 2.0 * (rows * kk + active * nn * kk + rows * nn);
            c.est_us = roofline_us(2.0 * rows * nn * kk, bytes, 700 * tile_eff(kMoeCfgs[ci]), o.sms);
            add(c);
          }
  }

  void rowwise(Kind kind, const std::string& fam, const std::vector<I>& rows, const std::vector<I>& cols,
               const std::vector<DType>& dts, int op = 0, const std::string& opname = "") {
    for (DType d : dts)
      for (I cl : cols)
        for (I r : rows) {
          Case c{kind};
          c.family = fam, c.group = fam, c.impl = "loom", c.dtype = d, c.m = r, c.n = cl, c.op = op;
          c.spec = fam + (opname.empty() ? "" : " op=" + opname) + " rows=" + S(r) + " cols=" + S(cl) +
                   " dtype=" + dtype_name(d);
          // passes over a [rows, cols] tensor: norms read twice + write; softmax reads 3x + writes;
          // add/mul/silu_mul read 2 + write 1; silu/gelu read 1 + write 1
          double io = kind == Kind::softmax ? 4.0 : kind != Kind::elementwise ? 3.0 : (op == 2 || op == 3) ? 2.0 : 3.0;
          c.est_us = roofline_us(0, io * r * cl * dtype_bytes(d), 1, o.sms);
          add(c);
        }
  }

  void rotary(const std::vector<I>& tokens) {
    struct H { I heads, hd; };
    for (H h : {H{32, 128}, H{8, 128}, H{28, 128}, H{64, 128}, H{32, 64}, H{16, 256}})
      for (I t : tokens) {
        Case c{Kind::rotary};
        c.family = "rotary", c.group = "rotary", c.impl = "loom", c.m = t, c.heads = h.heads, c.head_dim = h.hd;
        c.spec = "rotary tokens=" + S(t) + " heads=" + S(h.heads) + " head_dim=" + S(h.hd) + " dtype=bf16";
        c.est_us = roofline_us(0, 2.0 * 2 * t * h.heads * h.hd, 1, o.sms);
        add(c);
      }
  }

  struct Heads { I h, kvh, hd; };
  void attention(const std::vector<I>& batches, const std::vector<I>& seqs, const std::vector<Heads>& hs,
                 const std::vector<int>& cfgs, bool decode) {
    for (Heads h : hs)
      for (I b : batches)
        for (I s : seqs)
          for (int causal : decode ? std::vector<int>{0} : std::vector<int>{0, 1})
            for (int ci : decode ? std::vector<int>{-1} : cfgs) {
              Case c{decode ? Kind::attn_decode : Kind::attn_prefill};
              c.family = decode ? "attention_decode" : "attention_prefill";
              c.group = c.family, c.impl = "loom";
              c.batch = b, c.heads = h.h, c.kv_heads = h.kvh, c.seq = s, c.head_dim = h.hd, c.causal = causal;
              c.config = ci;
              if (decode) {
                c.spec = "attention_decode batch=" + S(b) + " heads=" + S(h.h) + " kv_heads=" + S(h.kvh) +
                         " seq_kv=" + S(s) + " head_dim=" + S(h.hd) + " dtype=bf16";
                // each query head's block reads its KV head (GQA groups re-read it, partly from L2)
                c.est_us = roofline_us(4.0 * b * h.h * s * h.hd, 2.0 * 2 * b * h.h * s * h.hd, 700, o.sms);
              } else {
                if (b * s > 32768) continue;
                c.spec = "attention_prefill batch=" + S(b) + " heads=" + S(h.h) + " kv_heads=" + S(h.kvh) +
                         " seq=" + S(s) + " head_dim=" + S(h.hd) + " causal=" + S(causal) +
                         " dtype=bf16 config=" + kAttnCfgs[ci].name();
                double flop = 4.0 * b * h.h * s * s * h.hd * (causal ? 0.5 : 1.0);
                // 0.065: the WMMA kernel ran at ~47 TFLOP/s (seq 2048, 32 heads) on an H200
                c.est_us = roofline_us(flop, 2.0 * b * s * (2 * h.h + 2 * h.kvh) * h.hd, 700 * 0.065, o.sms);
              }
              add(c);
            }
  }
};

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> v = {
      "gemm", "gemm_cublaslt", "gemm_algos", "gemm_loom", "moe", "memory", "rms_norm", "layer_norm", "softmax",
      "elementwise", "rotary", "attention", "attention_prefill", "attention_decode", "tune"};
  return v;
}

// The tuning ground truth: every config of loom's GEMM and MoE kernels on pseudo-random shapes (fixed seed, so
// every GPU measures the same shapes). `loom tune` fits its bilinear model on a sparse subset of these points and
// validates its choices on the shapes it never sampled.
void tune_grid(Planner& p) {
  uint64_t state = p.o.tune_seed;
  auto next = [&]() { state = state * 6364136223846793005ull + 1442695040888963407ull; return state >> 33; };
  auto log_uniform = [&](double lo, double hi) { return std::exp(std::log(lo) + (next() % 10000) / 1e4 * std::log(hi / lo)); };
  for (int i = 0; i < 240; ++i) {
    I m = std::max<I>(1, (I)log_uniform(16, 8192));
    I n = 64 * std::max<I>(1, (I)(log_uniform(1024, 16384) / 64));
    I k = 64 * std::max<I>(1, (I)(log_uniform(512, 8192) / 64));
    p.gemm_loom({m}, {{n, k}}, iota(kNumGemmCfgs), "tune");
  }
  const std::vector<Planner::Moe> models = {{8, 2, 4096, 14336}, {128, 8, 2048, 768}, {64, 6, 2048, 1408}, {16, 4, 3072, 1536}};
  for (int i = 0; i < 120; ++i) {
    I tokens = std::max<I>(1, (I)log_uniform(1, 4096));
    p.moe({tokens}, iota(kNumMoeCfgs), {models[next() % models.size()]}, {next() % 2 ? 13 : 2}, "tune");
  }
}

std::vector<Case> plan_from_file(const std::string& path, const PlanOptions& o) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--plan: cannot open " + path);
  Planner p{o, {}};
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string family, kv;
    ss >> family;
    std::map<std::string, std::string> kvs;
    while (ss >> kv) {
      auto eq = kv.find('=');
      if (eq != std::string::npos) kvs[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    auto where = path + ":" + std::to_string(lineno);
    auto num = [&](const char* k) -> I {
      if (!kvs.count(k)) throw std::invalid_argument(where + ": missing " + k);
      return std::stoll(kvs[k]);
    };
    auto cfg_index = [&](const TileCfg* cfgs, int n) {
      for (int i = 0; i < n; ++i)
        if (cfgs[i].name() == kvs["config"]) return i;
      throw std::invalid_argument(where + ": config '" + kvs["config"] + "' is not one of loom-bench's kernels");
    };
    if (family == "gemm" && !kvs.count("config")) {  // no config=: the library's (cuBLASLt heuristic) kernel
      if (kvs.count("dtype") && kvs["dtype"] != "bf16") throw std::invalid_argument(where + ": plans run bf16 only");
      p.gemm_lib(DType::bf16, {num("m")}, {{num("n"), num("k")}}, false);
      continue;
    }
    if (kvs.count("dtype") && kvs["dtype"] != "bf16") throw std::invalid_argument(where + ": loom's kernels are bf16 only");
    if (family == "gemm") {
      p.gemm_loom({num("m")}, {{num("n"), num("k")}}, {cfg_index(kGemmCfgs, kNumGemmCfgs)}, "plan");
    } else if (family == "moe") {
      int stage = kvs["stage"] == "w2" ? 2 : 13;
      p.moe({num("tokens")}, {cfg_index(kMoeCfgs, kNumMoeCfgs)},
            {{num("experts"), num("topk"), num("hidden"), num("inter")}}, {stage}, "plan");
    } else {
      throw std::invalid_argument(where + ": only gemm and moe plans are supported, not '" + family + "'");
    }
  }
  return p.out;
}

std::vector<Case> plan_cases(const PlanOptions& o) {
  for (auto& f : o.families)
    if (std::find(family_names().begin(), family_names().end(), f) == family_names().end())
      throw std::invalid_argument("--families: unknown family '" + f + "'; run --list to see the names");
  Planner p{o, {}};
  const std::vector<I> rows_all = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  const std::vector<Planner::Heads> heads_all = {{32, 8, 128}, {32, 32, 128}, {64, 8, 128}, {28, 4, 128}, {32, 8, 64}};
  if (o.quick) {
    const std::vector<I> ms = {1, 128, 333, 4096};
    if (p.on("gemm_cublaslt")) {
      p.gemm_lib(DType::bf16, ms, {{6144, 4096}, {4096, 14336}}, false);
      p.gemm_lib(DType::fp8, {16, 4096}, {{6144, 4096}}, false);
      p.gemm_lib(DType::tf32, {256}, {{4096, 4096}}, false);
      p.gemm_lib(DType::fp32, {256}, {{4096, 4096}}, false);
      p.gemm_lib(DType::fp16, {256}, {{4096, 4096}}, false);
    }
    if (p.on("gemm_algos")) p.gemm_lib(DType::bf16, {64}, {{4096, 4096}}, true);
    if (p.on("gemm_loom")) p.gemm_loom({1, 333, 4096}, {{4096, 4096}}, {0, 7, 11, 13});
    if (p.on("moe")) p.moe({16, 1024}, {0, 5});
    if (p.on("rms_norm")) p.rowwise(Kind::rms_norm, "rms_norm", {1, 4096}, {4096}, {DType::bf16});
    if (p.on("layer_norm")) p.rowwise(Kind::layer_norm, "layer_norm", {1, 4096}, {4096}, {DType::bf16});
    if (p.on("softmax")) p.rowwise(Kind::softmax, "softmax", {1, 4096}, {4096, 128256}, {DType::fp32});
    const char* ops[] = {"add", "mul", "silu", "gelu", "silu_mul"};
    if (p.on("elementwise"))
      for (int op = 0; op < 5; ++op) p.rowwise(Kind::elementwise, "elementwise", {4096}, {4096}, {DType::bf16}, op, ops[op]);
    if (p.on("rotary")) p.rotary({1, 4096});
    if (p.on("attention_prefill")) p.attention({1}, {512, 2048}, {{32, 8, 128}}, {0, 1}, false);
    if (p.on("attention_decode")) p.attention({1, 64}, {1024, 8192}, {{32, 8, 128}}, {}, true);
    return p.out;
  }
  if (p.on("gemm_cublaslt")) {
    p.gemm_lib(DType::bf16, kM, kNK, false);
    p.gemm_lib(DType::fp16, kM, kNK, false);
    p.gemm_lib(DType::fp8, kM, kNK, false);
    p.gemm_lib(DType::tf32, kM, kNKSmall, false);
    p.gemm_lib(DType::fp32, {1, 16, 64, 256, 1024, 4096, 77, 1000}, kNKSmall, false);
  }
  const std::vector<I> hid = {2048, 3584, 4096, 5120, 8192};
  if (p.on("rms_norm")) p.rowwise(Kind::rms_norm, "rms_norm", rows_all, hid, {DType::bf16, DType::fp32});
  if (p.on("layer_norm")) p.rowwise(Kind::layer_norm, "layer_norm", rows_all, hid, {DType::bf16, DType::fp32});
  if (p.on("softmax"))
    p.rowwise(Kind::softmax, "softmax", rows_all, {512, 1024, 2048, 4096, 8192, 32000, 128256}, {DType::bf16, DType::fp32});
  if (p.on("elementwise")) {
    const char* ops[] = {"add", "mul", "silu", "gelu", "silu_mul"};
    for (int op = 0; op < 5; ++op)
      p.rowwise(Kind::elementwise, "elementwise", rows_all, {4096, 8192, 14336, 28672}, {DType::bf16}, op, ops[op]);
  }
  if (p.on("rotary")) p.rotary(rows_all);
  if (p.on("moe")) p.moe({1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, iota(kNumMoeCfgs));
  if (p.on("attention_prefill"))
    p.attention({1, 2, 4, 8}, {128, 256, 512, 1024, 2048, 4096, 8192}, heads_all, iota(kNumAttnCfgs), false);
  if (p.on("attention_decode"))
    p.attention({1, 2, 4, 8, 16, 32, 64, 128, 256}, {128, 512, 1024, 2048, 4096, 8192, 16384, 32768},
                {{32, 8, 128}, {32, 32, 128}, {64, 8, 128}, {32, 4, 128}}, {}, true);
  if (p.on("tune") && o.full_chip) tune_grid(p);
  if (p.on("gemm_algos")) {
    p.gemm_lib(DType::bf16, {1, 16, 64, 256, 1024, 4096, 77}, {{6144, 4096}, {4096, 14336}, {28672, 4096}, {5120, 2048}}, true);
    p.gemm_lib(DType::fp8, {16, 1024, 4096}, {{6144, 4096}, {4096, 14336}}, true);
  }
  if (p.on("gemm_loom"))
    p.gemm_loom({1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 333},
                {{4096, 4096}, {6144, 4096}, {28672, 4096}, {4096, 14336}, {2048, 4096}, {16384, 2048}},
                iota(kNumGemmCfgs));
  return p.out;
}

}  // namespace bench
