// Runtime dispatcher example: y[M,N] = x[M,K] W[N,K]^T in bf16 (PyTorch's F.linear layout) through cuBLASLt, with
// the algorithm config chosen by loom's exported wave tables (`loom tune --export --family gemm-cublaslt`). Hybrid
// tables (SWITCH_MARGIN >= 0) take cublasLtMatmulAlgoGetHeuristic's #0 as the default and replace it only where the
// tables predict a clear gain; the decision is rebuilt with cublasLtMatmulAlgoInit + ConfigSetAttribute, checked
// with cublasLtMatmulAlgoCheck, and falls back to the heuristic's #0 when cuBLASLt refuses it; choices are cached
// per shape (the heuristic query, ~0.2 ms on the host, runs once per new shape). main() runs a few Llama-3-8B shapes and times loom's pick against heuristic #0 (CUDA graphs, events).
// Build: g++ -std=c++17 -I models/tune/export -I/usr/local/cuda/include examples/cublaslt_dispatch.cpp
//        -L/usr/local/cuda/lib64 -lcublasLt -lcudart   (-DLOOM_LT_HEADER/-DLOOM_LT_PREFIX pick another GPU's tables)
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <vector>

#ifndef LOOM_LT_HEADER
#define LOOM_LT_HEADER "loom_tune_h200_gemm_cublaslt.h"
#endif
#ifndef LOOM_LT_PREFIX
#define LOOM_LT_PREFIX loom_tune_h200_gemm_cublaslt
#endif
#include LOOM_LT_HEADER

#define LT_CAT(a, b) a##b
#define LT_XCAT(a, b) LT_CAT(a, b)
#define LT(name) LT_XCAT(LOOM_LT_PREFIX, name)

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e)), std::exit(1);
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) std::fprintf(stderr, "%s: cublasLt status %d\n", what, int(s)), std::exit(1);
}

// Descriptors of one F.linear problem: cuBLAS column-major m = N, n = M, k = K; op(A) = T on W[N,K], B = x^T.
struct Problem {
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t a{}, b{}, c{};
  Problem(int64_t m, int64_t n, int64_t k) {
    check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "transa");
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn), "transb");
    check(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, uint64_t(k), uint64_t(n), k), "layout a");
    check(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, uint64_t(k), uint64_t(m), k), "layout b");
    check(cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, uint64_t(n), uint64_t(m), n), "layout c");
  }
  ~Problem() {
    cublasLtMatrixLayoutDestroy(a), cublasLtMatrixLayoutDestroy(b), cublasLtMatrixLayoutDestroy(c);
    cublasLtMatmulDescDestroy(op);
  }
};

class Dispatcher {
 public:
  static constexpr size_t kWorkspace = 32u << 20;  // the workspace the tables were measured with
  Dispatcher() {
    check(cublasLtCreate(&lt_), "cublasLtCreate");
    check(cudaMalloc(&ws_, kWorkspace), "workspace");
  }
  ~Dispatcher() { cudaFree(ws_), cublasLtDestroy(lt_); }

  struct Choice {
    cublasLtMatmulAlgo_t algo;
    int config;  ///< index into the exported tables; -1 = heuristic #0 (fallback)
  };

  /// loom's choice for the shape, rebuilt and checked; heuristic #0 when the tables have none or cuBLASLt refuses it.
  Choice choose(const Problem& p, int64_t m, int64_t n, int64_t k) {
    const auto key = std::make_tuple(m, n, k);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    int heur0 = -1;
    cublasLtMatmulAlgo_t h0{};
    if (LT(_switch_margin) >= 0) h0 = heuristic(p), heur0 = index_of(h0);  // the hybrid's default: heuristic #0
    Choice c{{}, LT(_pick)(m, n, k, heur0)};
    if (c.config < 0 || !build(p, LT(_attrs)[c.config], &c.algo))
      c = Choice{LT(_switch_margin) >= 0 ? h0 : heuristic(p), -1};
    cache_.emplace(key, c);
    return c;
  }
  cublasLtMatmulAlgo_t heuristic(const Problem& p) {
    cublasLtMatmulPreference_t pref;
    check(cublasLtMatmulPreferenceCreate(&pref), "pref");
    const uint64_t ws = kWorkspace;
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "ws");
    cublasLtMatmulHeuristicResult_t r{};
    int got = 0;
    check(cublasLtMatmulAlgoGetHeuristic(lt_, p.op, p.a, p.b, p.c, p.c, pref, 1, &r, &got), "heuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (got == 0) std::fprintf(stderr, "no cuBLASLt algorithm for this problem\n"), std::exit(1);
    return r.algo;
  }
  cublasStatus_t run(const Problem& p, const cublasLtMatmulAlgo_t& algo, const void* x, const void* w, void* y,
                     cudaStream_t s) {
    const float one = 1.f, zero = 0.f;
    return cublasLtMatmul(lt_, p.op, &one, w, p.a, x, p.b, &zero, y, p.c, y, p.c, &algo, ws_, kWorkspace, s);
  }

 private:
  template <class T> static int32_t attr(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoConfigAttributes_t at) {
    T v{};
    size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&a, at, &v, sizeof v, &written);
    return int32_t(v);
  }
  // Table index of an algo's config (the nine attributes, reduction scheme 0 without split-K as the sweep names it).
  static int index_of(const cublasLtMatmulAlgo_t& a) {
    int32_t at[9] = {attr<int32_t>(a, CUBLASLT_ALGO_CONFIG_ID), attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID),
                     attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID),
                     attr<int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                     attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME),
                     attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING),
                     attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION),
                     attr<uint16_t>(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID),
                     attr<uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)};
    if (at[3] <= 1) at[4] = 0;
    return LT(_index_of)(at);
  }
  bool build(const Problem& p, const int32_t* at, cublasLtMatmulAlgo_t* algo) {
    if (cublasLtMatmulAlgoInit(lt_, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
                               at[0], algo) != CUBLAS_STATUS_SUCCESS)
      return false;
    const uint32_t tile = uint32_t(at[1]), stages = uint32_t(at[2]), red = uint32_t(at[4]), cta = uint32_t(at[5]),
                   custom = uint32_t(at[6]);
    const int32_t splitk = at[3];
    const uint16_t inner = uint16_t(at[7]), cluster = uint16_t(at[8]);
    bool ok = true;
    auto set = [&](cublasLtMatmulAlgoConfigAttributes_t a, const void* v, size_t n) {
      ok = ok && cublasLtMatmulAlgoConfigSetAttribute(algo, a, v, n) == CUBLAS_STATUS_SUCCESS;
    };
    set(CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
    set(CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages);
    set(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
    set(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red);
    set(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &cta, sizeof cta);
    set(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom);
    set(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner);
    set(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster);
    cublasLtMatmulHeuristicResult_t r{};
    return ok && cublasLtMatmulAlgoCheck(lt_, p.op, p.a, p.b, p.c, p.c, algo, &r) == CUBLAS_STATUS_SUCCESS &&
           r.workspaceSize <= kWorkspace;
  }

  cublasLtHandle_t lt_{};
  void* ws_ = nullptr;
  std::map<std::tuple<int64_t, int64_t, int64_t>, Choice> cache_;
};

// Microseconds per launch: a CUDA graph of `reps` launches, best of 3 replays.
double time_us(Dispatcher& d, const Problem& p, const cublasLtMatmulAlgo_t& a, const void* x, const void* w, void* y,
               cudaStream_t s) {
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event"), check(cudaEventCreate(&e1), "event");
  check(d.run(p, a, x, w, y, s), "matmul");
  cudaGraph_t g;
  cudaGraphExec_t ge;
  const int reps = 20;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  for (int r = 0; r < reps; ++r) check(d.run(p, a, x, w, y, s), "matmul");
  check(cudaStreamEndCapture(s, &g), "capture");
  check(cudaGraphInstantiate(&ge, g, 0), "instantiate");
  check(cudaGraphLaunch(ge, s), "launch");
  float best = 1e30f;
  for (int t = 0; t < 3; ++t) {
    float ms = 0;
    check(cudaEventRecord(e0, s), "record"), check(cudaGraphLaunch(ge, s), "launch"), check(cudaEventRecord(e1, s), "record");
    check(cudaEventSynchronize(e1), "sync"), check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    best = std::min(best, ms);
  }
  cudaGraphExecDestroy(ge), cudaGraphDestroy(g), cudaEventDestroy(e0), cudaEventDestroy(e1);
  return 1000.0 * best / reps;
}

}  // namespace

int main() {
  const int64_t shapes[][3] = {{1, 6144, 4096},    {16, 4096, 4096},   {64, 28672, 4096}, {128, 4096, 14336},
                               {512, 6144, 4096},  {1024, 4096, 4096}, {3000, 5120, 4096}, {4096, 28672, 4096},
                               {4096, 4096, 14336}};
  const size_t max_elems = size_t(4096) * 28672;
  void *x, *w, *y;
  check(cudaMalloc(&x, max_elems * 2), "x"), check(cudaMalloc(&w, max_elems * 2), "w"), check(cudaMalloc(&y, max_elems * 2), "y");
  check(cudaMemset(x, 0x3c, max_elems * 2), "x"), check(cudaMemset(w, 0x3c, max_elems * 2), "w");  // bf16 ~1.17
  cudaStream_t s;
  check(cudaStreamCreate(&s), "stream");
  Dispatcher d;
  std::printf("%6s %6s %6s  %-48s %10s %10s %8s\n", "M", "N", "K", "loom config (tables)", "loom us", "heur#0 us",
              "speedup");
  double log_sum = 0;
  int n = 0;
  for (const auto& sh : shapes) {
    const Problem p(sh[0], sh[1], sh[2]);
    const Dispatcher::Choice c = d.choose(p, sh[0], sh[1], sh[2]);
    const double t_loom = time_us(d, p, c.algo, x, w, y, s), t_heur = time_us(d, p, d.heuristic(p), x, w, y, s);
    std::printf("%6lld %6lld %6lld  %-48s %10.2f %10.2f %7.3fx\n", (long long)sh[0], (long long)sh[1],
                (long long)sh[2], c.config >= 0 ? LT(_names)[c.config] : "(heuristic #0)", t_loom, t_heur,
                t_heur / t_loom);
    log_sum += std::log(t_heur / t_loom), ++n;
  }
  std::printf("geomean speedup over heuristic #0: %.3fx on %d shapes\n", std::exp(log_sum / n), n);
  cudaFree(x), cudaFree(w), cudaFree(y);
  return 0;
}
