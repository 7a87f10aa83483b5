// cuBLASLt GEMM cases: y[M,N] = x[M,K] W[N,K]^T (the LLM linear layer), run as column-major
// D[N,M] = op_T(W)[N,K] x X[K,M] ("TN", which fp8 on Hopper requires). Heuristic pick or every returned algo.
#include "runners.h"
#include <cublasLt.h>
#include <cstdio>
#include <memory>

namespace bench {
namespace {

cublasLtHandle_t g_lt = nullptr;
void* g_ws = nullptr;
constexpr size_t kWsBytes = 32u << 20;
float* g_scale = nullptr;  // fp8 A/B scale factors (1.0) in device memory

#define LT(expr)                                                                                      \
  do {                                                                                                \
    cublasStatus_t s_ = (expr);                                                                       \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                                  \
      throw CudaFailure(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + #expr +       \
                        " -> " + cublasLtGetStatusName(s_));                                          \
  } while (0)

struct Descs {  // owns the descriptors for as long as a variant's launch closure lives
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Descs() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

}  // namespace

void cublaslt_init(const Ctx& ctx) {
  (void)ctx;
  LT(cublasLtCreate(&g_lt));
  CK(cudaMalloc(&g_ws, kWsBytes));
  CK(cudaMalloc(&g_scale, 64 * sizeof(float)));  // A scale at [0], B scale at [32]: 128-byte apart, aligned
  float one[64];
  for (float& f : one) f = 1.f;
  CK(cudaMemcpy(g_scale, one, sizeof one, cudaMemcpyHostToDevice));
}

std::vector<Variant> prepare_cublaslt(const Case& cs, const Ctx& ctx, int max_algos) {
  cudaDataType_t in_t, out_t;
  cublasComputeType_t comp = CUBLAS_COMPUTE_32F;
  switch (cs.dtype) {
    case DType::bf16: in_t = out_t = CUDA_R_16BF; break;
    case DType::fp16: in_t = out_t = CUDA_R_16F; break;
    case DType::fp32: in_t = out_t = CUDA_R_32F; break;
    case DType::tf32: in_t = out_t = CUDA_R_32F; comp = CUBLAS_COMPUTE_32F_FAST_TF32; break;
    case DType::fp8: in_t = CUDA_R_8F_E4M3; out_t = CUDA_R_16BF; break;
    default: throw CudaFailure("cublaslt: unsupported dtype");
  }
  const int64_t M = cs.m, N = cs.n, K = cs.k;
  size_t eb = dtype_bytes(cs.dtype), ob = out_t == CUDA_R_32F ? 4 : 2;
  void* X = ctx.arena->take(M * K * eb);
  void* W = ctx.arena->take(N * K * eb);
  void* Y = ctx.arena->take(M * N * ob);
  fill_random(X, M * K, cs.dtype, ctx.seed, -1.f, 1.f, ctx.stream);
  fill_random(W, N * K, cs.dtype, ctx.seed + 1, -1.f, 1.f, ctx.stream);
  CK(cudaStreamSynchronize(ctx.stream));

  auto d = std::make_shared<Descs>();
  LT(cublasLtMatmulDescCreate(&d->op, comp, CUDA_R_32F));
  cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
  LT(cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof tA));
  LT(cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof tB));
  if (cs.dtype == DType::fp8) {
    const float* sa = g_scale;
    const float* sb = g_scale + 32;
    LT(cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa));
    LT(cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb));
  }
  LT(cublasLtMatrixLayoutCreate(&d->a, in_t, K, N, K));  // W as column-major K x N, used transposed
  LT(cublasLtMatrixLayoutCreate(&d->b, in_t, K, M, K));  // X as column-major K x M
  LT(cublasLtMatrixLayoutCreate(&d->c, out_t, N, M, N));  // Y as column-major N x M = row-major M x N
  LT(cublasLtMatmulPreferenceCreate(&d->pref));
  size_t ws = kWsBytes;
  LT(cublasLtMatmulPreferenceSetAttribute(d->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));

  bool all = cs.kind == Kind::gemm_algos;
  int want = all ? max_algos : 8;  // heuristic case: the first of these that runs (normally the top pick)
  std::vector<cublasLtMatmulHeuristicResult_t> res(want);
  int got = 0;
  LT(cublasLtMatmulAlgoGetHeuristic(g_lt, d->op, d->a, d->b, d->c, d->c, d->pref, want, res.data(), &got));
  if (got == 0) throw CudaFailure("cublaslt: no algorithm for " + cs.spec);

  double ws_bytes = (double)(M * K + N * K) * eb + (double)M * N * ob;
  std::vector<Variant> out;
  int refused = 0;
  std::string why;
  for (int i = 0; i < got; ++i) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS || res[i].workspaceSize > kWsBytes) continue;
    {  // trial launch: the heuristic can return algos that cublasLtMatmul then refuses (seen for fp8 on H200)
      const float alpha = 1.f, beta = 0.f;
      cublasStatus_t st = cublasLtMatmul(g_lt, d->op, &alpha, W, d->a, X, d->b, &beta, Y, d->c, Y, d->c, &res[i].algo,
                                         g_ws, kWsBytes, ctx.stream);
      if (st != CUBLAS_STATUS_SUCCESS) {
        ++refused;
        why = cublasLtGetStatusName(st);
        continue;
      }
      CK(cudaStreamSynchronize(ctx.stream));
    }
    Variant v;
    v.spec = cs.spec;
    v.impl = all ? "cublaslt_algo" + std::to_string(i) : "cublaslt";
    v.flush_l2 = needs_flush(ws_bytes, ctx);
    cublasLtMatmulAlgo_t algo = res[i].algo;
    cudaStream_t s = ctx.stream;
    v.launch = [d, algo, X, W, Y, s]() {
      static const float alpha = 1.f, beta = 0.f;
      LT(cublasLtMatmul(g_lt, d->op, &alpha, W, d->a, X, d->b, &beta, Y, d->c, Y, d->c, &algo, g_ws, kWsBytes, s));
    };
    out.push_back(std::move(v));
    if (!all) break;
  }
  if (out.empty())
    throw CudaFailure("cublaslt: all " + std::to_string(got) + " heuristic algos refused (" + why + ") for " + cs.spec);
  if (refused && all)
    std::fprintf(stderr, "loom-bench: %s: %d of %d heuristic algos refused by cublasLtMatmul (%s)\n", cs.spec.c_str(),
                 refused, got, why.c_str());
  return out;
}

}  // namespace bench

namespace bench {
// For --check: Y[M,N] = X[M,K] W[N,K]^T in bf16 through cuBLASLt's heuristic pick, synchronously.
void cublaslt_bf16_ref(const void* X, const void* W, void* Y, int M, int N, int K, cudaStream_t s) {
  Descs d;
  LT(cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t tA = CUBLAS_OP_T, tB = CUBLAS_OP_N;
  LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &tA, sizeof tA));
  LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &tB, sizeof tB));
  LT(cublasLtMatrixLayoutCreate(&d.a, CUDA_R_16BF, K, N, K));
  LT(cublasLtMatrixLayoutCreate(&d.b, CUDA_R_16BF, K, M, K));
  LT(cublasLtMatrixLayoutCreate(&d.c, CUDA_R_16BF, N, M, N));
  LT(cublasLtMatmulPreferenceCreate(&d.pref));
  size_t ws = kWsBytes;
  LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t r;
  int got = 0;
  LT(cublasLtMatmulAlgoGetHeuristic(g_lt, d.op, d.a, d.b, d.c, d.c, d.pref, 1, &r, &got));
  if (!got) throw CudaFailure("cublaslt: no algorithm for the check shape");
  const float alpha = 1.f, beta = 0.f;
  LT(cublasLtMatmul(g_lt, d.op, &alpha, W, d.a, X, d.b, &beta, Y, d.c, Y, d.c, &r.algo, g_ws, kWsBytes, s));
  CK(cudaStreamSynchronize(s));
}
}  // namespace bench
