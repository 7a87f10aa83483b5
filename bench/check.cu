// --check: loom's GEMM configs against cuBLASLt (and cuBLASLt against a host fp64 product), MoE configs
// against a host fp64 reference, attention kernels against a naive fp32 kernel. Pass: rel err < 1e-2 (bf16).
#include "attention.h"
#include "configs.h"
#include "gemm_loom.h"
#include "check_util.h"
#include "runners.h"
#include <cmath>
#include <cstdio>
#include <vector>

namespace bench {
void cublaslt_bf16_ref(const void* X, const void* W, void* Y, int M, int N, int K, cudaStream_t s);
bool check_memory(const Ctx& ctx, bool verbose);

namespace {
using bf16 = __nv_bfloat16;
constexpr double kTol = 1e-2;

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }
bf16* dev_random(const Ctx& c, size_t n, uint64_t seed, float lo = -1.f, float hi = 1.f) {
  auto* p = (bf16*)c.arena->take(n * 2);
  fill_random(p, n, DType::bf16, seed, lo, hi, c.stream);
  return p;
}
bf16* dev_poisoned(const Ctx& c, size_t n) {
  auto* p = (bf16*)c.arena->take(n * 2);
  CK(cudaMemsetAsync(p, 0xFF, n * 2, c.stream));  // 0xFFFF is a bf16 NaN
  return p;
}
bool report(bool verbose, const char* what, const std::string& cfg, const char* shape, double err) {
  bool ok = err < kTol;
  if (verbose || !ok) std::fprintf(stderr, "check %-10s %-18s %-34s rel_err %.2e %s\n", what, cfg.c_str(), shape, err, ok ? "ok" : "FAIL");
  return ok;
}

bool check_gemm(const Ctx& c, std::vector<int>& bad, bool verbose) {
  struct S { int m, n, k; };
  bool all = true;
  // cuBLASLt (the reference below) against a host fp64 product of the same bf16 inputs.
  {
    c.arena->reset();
    S s{77, 200, 136};
    bf16 *X = dev_random(c, s.m * s.k, 11), *W = dev_random(c, s.n * s.k, 12), *Y = dev_poisoned(c, s.m * s.n);
    cublaslt_bf16_ref(X, W, Y, s.m, s.n, s.k, c.stream);
    auto x = host_bf16(X, s.m * s.k), w = host_bf16(W, s.n * s.k), y = host_bf16(Y, s.m * s.n);
    std::vector<double> ref(s.m * s.n);
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double acc = 0;
        for (int k = 0; k < s.k; ++k) acc += (double)x[i * s.k + k] * w[j * s.k + k];
        ref[i * s.n + j] = acc;
      }
    all &= report(verbose, "cublaslt", "heuristic", "m=77 n=200 k=136 vs host fp64", rel_err(y, ref));
  }
  const S shapes[] = {{128, 256, 512}, {77, 200, 136}, {333, 1000, 1032}, {1, 4096, 4096}, {2048, 384, 4096}};
  for (int cfg = 0; cfg < kNumGemmCfgs; ++cfg) {
    bool ok = true;
    for (S s : shapes) try {
      c.arena->reset();
      bf16 *X = dev_random(c, (size_t)s.m * s.k, 21 + cfg), *W = dev_random(c, (size_t)s.n * s.k, 22 + cfg);
      bf16 *Y = dev_poisoned(c, (size_t)s.m * s.n), *R = dev_poisoned(c, (size_t)s.m * s.n);
      cublaslt_bf16_ref(X, W, R, s.m, s.n, s.k, c.stream);
      GemmArgs p;
      p.A = X, p.B = W, p.C = Y, p.M = s.m, p.N = s.n, p.K = s.k;
      run_dense(cfg, p, c.stream);
      CK(cudaStreamSynchronize(c.stream));
      char shape[64];
      std::snprintf(shape, sizeof shape, "m=%d n=%d k=%d vs cublaslt", s.m, s.n, s.k);
      ok &= report(verbose, "gemm", kGemmCfgs[cfg].name(), shape,
                   rel_err(host_bf16(Y, (size_t)s.m * s.n), widen(host_bf16(R, (size_t)s.m * s.n))));
    } catch (const CudaFailure& e) {
      if (e.sticky) throw;
      std::fprintf(stderr, "check gemm %s: FAIL: %s\n", kGemmCfgs[cfg].name().c_str(), e.what());
      ok = false;
    }
    if (!ok) bad.push_back(cfg);
    all &= ok;
  }
  return all;
}

bool check_moe(const Ctx& c, std::vector<int>& bad, bool verbose) {
  const int tokens = 37, E = 8, topk = 2, hidden = 256, inter = 192;
  bool all = true;
  for (int cfg = 0; cfg < kNumMoeCfgs; ++cfg) {
    bool ok = true;
    for (bool w13 : {true, false}) try {
      c.arena->reset();
      const int N = w13 ? 2 * inter : hidden, K = w13 ? hidden : inter, rows = tokens * topk;
      const int a_rows = w13 ? tokens : rows;
      MoeRouting r = route_uniform(tokens, E, topk, kMoeCfgs[cfg].bm);
      bf16 *A = dev_random(c, (size_t)a_rows * K, 31), *B = dev_random(c, (size_t)E * N * K, 32);
      bf16* C = dev_poisoned(c, (size_t)rows * N);
      int* ids = (int*)c.arena->take(r.sorted_ids.size() * 4);
      int* te = (int*)c.arena->take(r.tile_expert.size() * 4);
      CK(cudaMemcpy(ids, r.sorted_ids.data(), r.sorted_ids.size() * 4, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(te, r.tile_expert.data(), r.tile_expert.size() * 4, cudaMemcpyHostToDevice));
      GemmArgs p;
      p.A = A, p.B = B, p.C = C, p.M = (int)r.sorted_ids.size(), p.N = N, p.K = K;
      p.sorted_ids = ids, p.tile_expert = te, p.num_valid = rows, p.a_row_div = w13 ? topk : 1;
      CK(moe_launcher(cfg)(p, (int)r.tile_expert.size(), c.stream));
      CK(cudaStreamSynchronize(c.stream));
      auto a = host_bf16(A, (size_t)a_rows * K), b = host_bf16(B, (size_t)E * N * K), out = host_bf16(C, (size_t)rows * N);
      std::vector<double> ref((size_t)rows * N);
      for (int row = 0; row < rows; ++row) {
        int e = row % E;  // route_uniform: row id t*topk+j goes to expert (t*topk+j) % E
        int src = w13 ? row / topk : row;
        for (int n = 0; n < N; ++n) {
          double acc = 0;
          for (int k = 0; k < K; ++k) acc += (double)a[(size_t)src * K + k] * b[((size_t)e * N + n) * K + k];
          ref[(size_t)row * N + n] = acc;
        }
      }
      ok &= report(verbose, "moe", kMoeCfgs[cfg].name(), w13 ? "tokens=37 e=8 top2 w13 vs host" : "tokens=37 e=8 top2 w2 vs host",
                   rel_err(out, ref));
    } catch (const CudaFailure& e) {
      if (e.sticky) throw;
      std::fprintf(stderr, "check moe %s: FAIL: %s\n", kMoeCfgs[cfg].name().c_str(), e.what());
      ok = false;
    }
    if (!ok) bad.push_back(cfg);
    all &= ok;
  }
  return all;
}

bool check_attention(const Ctx& c, bool verbose) {
  bool all = true;
  for (int d : {64, 128})
    for (int mode = 0; mode < kNumAttnCfgs * 2 + 1; ++mode) try {
      bool decode = mode == kNumAttnCfgs * 2;
      c.arena->reset();
      AttnArgs a;
      a.batch = decode ? 3 : 2, a.heads = 8, a.kv_heads = 2, a.head_dim = d;
      a.seq_kv = decode ? 1100 : 200, a.seq_q = decode ? 1 : 200, a.causal = !decode && (mode % 2);
      size_t nq = (size_t)a.batch * a.seq_q * a.heads * d, nkv = (size_t)a.batch * a.seq_kv * a.kv_heads * d;
      a.q = dev_random(c, nq, 41), a.k = dev_random(c, nkv, 42), a.v = dev_random(c, nkv, 43);
      bf16* o = dev_poisoned(c, nq);
      bf16* ref = dev_poisoned(c, nq);
      AttnArgs r = a;
      r.o = ref;
      attention_reference(r, c.stream);
      a.o = o;
      if (decode) attention_decode(a, c.arena->take(decode_scratch_bytes(a)), c.stream);
      else attention_prefill(mode / 2, a, c.stream);
      CK(cudaStreamSynchronize(c.stream));
      char shape[80];
      std::snprintf(shape, sizeof shape, "b=%d s=%d h=8/2 d=%d causal=%d", a.batch, a.seq_kv, d, (int)a.causal);
      all &= report(verbose, decode ? "attn_dec" : "attn_pre", decode ? std::string("split512") : kAttnCfgs[mode / 2].name(),
                    shape, rel_err(host_bf16(o, nq), widen(host_bf16(ref, nq))));
    } catch (const CudaFailure& e) {
      if (e.sticky) throw;
      std::fprintf(stderr, "check attention mode %d d=%d: FAIL: %s\n", mode, d, e.what());
      all = false;
    }
  return all;
}

}  // namespace

bool run_checks(const Ctx& ctx, std::vector<int>& bad_gemm, std::vector<int>& bad_moe, bool verbose) {
  bool ok = true;
  ok &= check_gemm(ctx, bad_gemm, verbose);
  ok &= check_moe(ctx, bad_moe, verbose);
  ok &= check_attention(ctx, verbose);
  ok &= check_memory(ctx, verbose);
  ctx.arena->reset();
  if (verbose) std::fprintf(stderr, "check: %s\n", ok ? "all passed" : "FAILURES (see above)");
  return ok;
}

}  // namespace bench
