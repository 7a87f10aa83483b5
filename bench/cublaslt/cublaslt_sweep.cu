// cuBLASLt algorithm sweep for `loom tune --family gemm-cublaslt`: bf16 GEMMs laid out as PyTorch's F.linear
// (y[M,N] = x[M,K] W[N,K]^T, fp32 compute, cuBLAS column-major call m=N n=M k=K, op(A)=T on W, as PyTorch issues it).
// Config space = the union of the candidates cublasLtMatmulAlgoGetHeuristic returns over all planned shapes (the
// most frequent --max-configs, every shape's heuristic #0 kept). Each shape is then measured completely before the
// next (every config rebuilt with AlgoInit + config attributes; AlgoCheck refusals recorded as status=invalid), until
// a time budget. Timing: CUDA events around a CUDA graph of R back-to-back launches (no host launch gaps; warm L2,
// as tuners time), min of 3 graph replays / R. Not under the CUPTI collector (see models/tune/README.md).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "enums.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define LK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s:%d cublasLt status %d\n", __FILE__, __LINE__, int(s_)); exit(1); } } while (0)

namespace {

constexpr size_t kWorkspace = 32u << 20;  // 32 MiB, as PyTorch gives cuBLASLt on Hopper

struct Shape { long m, n, k; std::string src; };
struct Cfg {  // the identity of one cuBLASLt algo configuration
  int32_t algo = 0, splitk = 1;
  uint32_t tile = 0, stages = 0, red = 0, cta = 0, custom = 0;
  uint16_t inner = 0, cluster = 0;
  bool operator<(const Cfg& o) const {
    return std::tie(algo, tile, stages, splitk, red, cta, custom, inner, cluster) <
           std::tie(o.algo, o.tile, o.stages, o.splitk, o.red, o.cta, o.custom, o.inner, o.cluster);
  }
};

const char* ename(const LtEnumName* t, size_t n, int id) {
  for (size_t i = 0; i < n; ++i) if (t[i].id == id) return t[i].name;
  return "0x0";
}
const char* tile_name(uint32_t id) { return ename(kLtTiles, sizeof kLtTiles / sizeof *kLtTiles, int(id)); }
const char* stages_name(uint32_t id) { return ename(kLtStages, sizeof kLtStages / sizeof *kLtStages, int(id)); }
const char* cluster_name(uint16_t id) { return id == 0 ? "auto" : ename(kLtClusters, sizeof kLtClusters / sizeof *kLtClusters, id); }

std::string cfg_name(const Cfg& c) {
  char b[160];
  snprintf(b, sizeof b, "a%d_t%s_s%s_k%d_r%u_cs%u_c%u_i%u_cl%s", c.algo, tile_name(c.tile), stages_name(c.stages),
           c.splitk, c.splitk > 1 ? c.red : 0u, c.cta, c.custom, unsigned(c.inner), cluster_name(c.cluster));
  return b;
}

template <class T> T get_attr(const cublasLtMatmulAlgo_t& a, cublasLtMatmulAlgoConfigAttributes_t at) {
  T v{}; size_t w = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&a, at, &v, sizeof v, &w);
  return v;
}
Cfg identify(const cublasLtMatmulAlgo_t& a) {
  Cfg c;
  c.algo = get_attr<int32_t>(a, CUBLASLT_ALGO_CONFIG_ID);
  c.tile = get_attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.stages = get_attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.splitk = get_attr<int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.red = get_attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  c.cta = get_attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  c.custom = get_attr<uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  c.inner = get_attr<uint16_t>(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
  c.cluster = get_attr<uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  return c;
}
bool build(cublasLtHandle_t lt, const Cfg& c, cublasLtMatmulAlgo_t* a) {
  if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
                             c.algo, a) != CUBLAS_STATUS_SUCCESS) return false;
  bool ok = true;
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &c.tile, sizeof c.tile);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &c.stages, sizeof c.stages);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &c.splitk, sizeof c.splitk);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &c.red, sizeof c.red);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &c.cta, sizeof c.cta);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &c.custom, sizeof c.custom);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &c.inner, sizeof c.inner);
  ok &= !cublasLtMatmulAlgoConfigSetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &c.cluster, sizeof c.cluster);
  return ok;
}

__global__ void fill(__nv_bfloat16* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    p[i] = __float2bfloat16(float(h & 0xffff) / 32768.0f - 1.0f);
  }
}

// One problem's cuBLASLt descriptors (F.linear layout, see the file comment).
struct Problem {
  cublasLtMatmulDesc_t op{}; cublasLtMatrixLayout_t a{}, b{}, c{};
  Problem(long m, long n, long k) {
    LK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    LK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    LK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn));
    LK(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, k, n, k));
    LK(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, k, m, k));
    LK(cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, n, m, n));
  }
  ~Problem() { cublasLtMatrixLayoutDestroy(a); cublasLtMatrixLayoutDestroy(b); cublasLtMatrixLayoutDestroy(c); cublasLtMatmulDescDestroy(op); }
};

std::vector<Shape> plan_shapes(uint32_t seed) {
  struct Model { const char* name; long hidden, inter, heads, kv, hd; };
  const Model models[] = {{"llama3-8b", 4096, 14336, 32, 8, 128},   {"llama3-70b", 8192, 28672, 64, 8, 128},
                          {"qwen2.5-7b", 3584, 18944, 28, 4, 128},  {"qwen2.5-72b", 8192, 29568, 64, 8, 128},
                          {"mistral-nemo", 5120, 14336, 32, 8, 128}, {"qwen3-8b", 4096, 12288, 32, 8, 128},
                          {"qwen2.5-14b", 5120, 13824, 40, 8, 128}};
  const long ms[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768,
                     1024, 1280, 1536, 2048, 2560, 3072, 4096};
  std::map<std::tuple<long, long, long>, std::string> uniq;
  for (const auto& md : models)
    for (long tp : {1, 2, 4, 8}) {
      const long kvr = std::max(1L, md.kv / tp), hr = md.heads / tp;
      const long nk[4][2] = {{(hr + 2 * kvr) * md.hd, md.hidden}, {md.hidden, hr * md.hd},
                             {2 * md.inter / tp, md.hidden}, {md.hidden, md.inter / tp}};
      const char* layer[4] = {"qkv", "o", "gate_up", "down"};
      for (int l = 0; l < 4; ++l)
        for (long m : ms) uniq.emplace(std::make_tuple(m, nk[l][0], nk[l][1]), std::string(md.name) + "/" + layer[l] + "/tp" + std::to_string(tp));
    }
  std::vector<Shape> out;
  for (const auto& [key, src] : uniq) out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), src});
  std::mt19937 rng(seed);
  auto logu = [&](double lo, double hi) { return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng)); };
  const size_t n_random = out.size() / 4;
  for (size_t i = 0; i < n_random; ++i) {
    const long m = std::lround(logu(1, 4096)), n = 128 * std::lround(logu(4, 128)), k = 128 * std::lround(logu(4, 128));
    out.push_back({m, n, k, "random"});
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path = "cublaslt.csv";
  double budget_s = 300;
  int max_configs = 64, request = 32;
  uint32_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string f = argv[i];
    if (f == "--out") out_path = argv[i + 1];
    else if (f == "--budget-s") budget_s = atof(argv[i + 1]);
    else if (f == "--max-configs") max_configs = atoi(argv[i + 1]);
    else if (f == "--request") request = atoi(argv[i + 1]);
    else if (f == "--seed") seed = uint32_t(atoi(argv[i + 1]));
    else { fprintf(stderr, "cublaslt_sweep: unknown flag %s\n", f.c_str()); return 2; }
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::vector<Shape> shapes = plan_shapes(seed);
  long max_m = 0, max_n = 0, max_k = 0;
  for (const auto& s : shapes) max_m = std::max(max_m, s.m), max_n = std::max(max_n, s.n), max_k = std::max(max_k, s.k);
  size_t nx = size_t(max_m) * max_k, nw = size_t(max_n) * max_k, ny = size_t(max_m) * max_n;
  __nv_bfloat16 *x, *w, *y; void* ws;
  CK(cudaMalloc(&x, nx * 2)); CK(cudaMalloc(&w, nw * 2)); CK(cudaMalloc(&y, ny * 2)); CK(cudaMalloc(&ws, kWorkspace));
  fill<<<1024, 256>>>(x, nx, 1u); fill<<<1024, 256>>>(w, nw, 2u); CK(cudaDeviceSynchronize());
  cublasLtHandle_t lt; LK(cublasLtCreate(&lt));
  cublasLtMatmulPreference_t pref; LK(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t wsb = kWorkspace;
  LK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
  cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

  // Phase 1: heuristic candidates of every planned shape -> the config space.
  std::vector<std::vector<Cfg>> heur(shapes.size());
  std::vector<double> heur_us(shapes.size());
  std::map<Cfg, int> freq;
  std::vector<cublasLtMatmulHeuristicResult_t> res(static_cast<size_t>(request));
  for (size_t i = 0; i < shapes.size(); ++i) {
    Problem p(shapes[i].m, shapes[i].n, shapes[i].k);
    int got = 0;
    const auto h0 = std::chrono::steady_clock::now();
    cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.a, p.b, p.c, p.c, pref, request, res.data(), &got);
    heur_us[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count();
    for (int r = 0; r < got; ++r) if (res[size_t(r)].state == CUBLAS_STATUS_SUCCESS) heur[i].push_back(identify(res[size_t(r)].algo));
    for (size_t r = 0; r < heur[i].size(); ++r) freq[heur[i][r]] += r == 0 ? 1000000 : 1;  // every #0 kept
  }
  std::vector<std::pair<int, Cfg>> ranked;
  for (const auto& [c, f] : freq) ranked.push_back({f, c});
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  std::vector<Cfg> space;
  for (size_t i = 0; i < ranked.size() && (int(i) < max_configs || ranked[i].first >= 1000000); ++i) space.push_back(ranked[i].second);
  fprintf(stderr, "cublaslt_sweep: %zu shapes planned, %zu distinct candidates, %zu configs kept, %.1f s\n",
          shapes.size(), freq.size(), space.size(), elapsed());

  FILE* out = fopen(out_path.c_str(), "w");
  if (!out) { perror(out_path.c_str()); return 1; }
  int ver = int(cublasLtGetVersion());
  fprintf(out, "# tool=cublaslt_sweep gpu=%s sms=%d cublaslt=%d workspace_bytes=%zu seed=%u timing=cuda_graph_events\n",
          prop.name, prop.multiProcessorCount, ver, kWorkspace, seed);
  fprintf(out, "shape,m,n,k,source,config,algo,bm,bn,stages,splitk,reduction,cta_swizzle,custom,inner,cluster,tile_id,stages_id,cluster_id,status,us,heur_rank,heur_query_us\n");
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto run_once = [&](const Problem& p, const cublasLtMatmulAlgo_t* a, long m, long n) {
    const float one = 1.f, zero = 0.f;
    (void)m; (void)n;
    return cublasLtMatmul(lt, p.op, &one, w, p.a, x, p.b, &zero, y, p.c, y, p.c, a, ws, kWorkspace, st);
  };
  auto time_algo = [&](const Problem& p, const cublasLtMatmulAlgo_t* a, long m, long n) -> double {
    if (run_once(p, a, m, n) != CUBLAS_STATUS_SUCCESS) return -1;
    CK(cudaEventRecord(e0, st));
    if (run_once(p, a, m, n) != CUBLAS_STATUS_SUCCESS) return -1;
    CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1));
    float ms1 = 0; CK(cudaEventElapsedTime(&ms1, e0, e1));
    const int reps = std::max(1, std::min(100, int(std::ceil(250.0 / std::max(1.0, 1000.0 * ms1)))));
    cudaGraph_t g; cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    bool ok = true;
    for (int r = 0; r < reps; ++r) ok &= run_once(p, a, m, n) == CUBLAS_STATUS_SUCCESS;
    CK(cudaStreamEndCapture(st, &g));
    if (!ok) { cudaGraphDestroy(g); return -1; }
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, st));
    float best = 1e30f;
    for (int t = 0; t < 3; ++t) {
      CK(cudaEventRecord(e0, st)); CK(cudaGraphLaunch(ge, st)); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1));
      float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); best = std::min(best, ms);
    }
    cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
    return 1000.0 * best / reps;
  };

  // Phase 2: every config on each shape, whole shapes only, until the budget.
  size_t done = 0;
  std::string buf;
  for (size_t i = 0; i < shapes.size() && elapsed() < budget_s; ++i) {
    const Shape& s = shapes[i];
    Problem p(s.m, s.n, s.k);
    buf.clear();
    char line[512];
    // The library default as returned (not rebuilt): heuristic #0's own algo struct.
    int got = 0;
    cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.a, p.b, p.c, p.c, pref, 1, res.data(), &got);
    const double h0us = got > 0 ? time_algo(p, &res[0].algo, s.m, s.n) : -1;
    snprintf(line, sizeof line, "%zu,%ld,%ld,%ld,%s,heuristic0,,,,,,,,,,,,,,%s,%.4f,0,%.2f\n", i, s.m, s.n, s.k, s.src.c_str(),
             h0us > 0 ? "ok" : "failed", h0us, heur_us[i]);
    buf += line;
    for (const Cfg& c : space) {
      cublasLtMatmulAlgo_t a;
      cublasLtMatmulHeuristicResult_t chk{};
      double us = -1;
      const char* status = "invalid";
      if (build(lt, c, &a) && cublasLtMatmulAlgoCheck(lt, p.op, p.a, p.b, p.c, p.c, &a, &chk) == CUBLAS_STATUS_SUCCESS &&
          chk.workspaceSize <= kWorkspace) {
        us = time_algo(p, &a, s.m, s.n);
        status = us > 0 ? "ok" : "failed";
      }
      const auto it = std::find_if(heur[i].begin(), heur[i].end(), [&](const Cfg& h) { return !(h < c) && !(c < h); });
      const int rank = it == heur[i].end() ? -1 : int(it - heur[i].begin());
      const char* tn = tile_name(c.tile);
      const char* sn = stages_name(c.stages);
      int bm = 0, bn = 0;
      sscanf(tn, "%dx%d", &bm, &bn);
      snprintf(line, sizeof line, "%zu,%ld,%ld,%ld,%s,%s,%d,%d,%d,%s,%d,%u,%u,%u,%u,%s,%u,%u,%u,%s,%.4f,%d,\n", i, s.m, s.n, s.k,
               s.src.c_str(), cfg_name(c).c_str(), c.algo, bm, bn, sn, c.splitk, c.splitk > 1 ? c.red : 0u, c.cta,
               c.custom, unsigned(c.inner), cluster_name(c.cluster), c.tile, c.stages, unsigned(c.cluster), status, us, rank);
      buf += line;
    }
    CK(cudaGetLastError());
    fputs(buf.c_str(), out);
    fflush(out);
    ++done;
    if (done % 50 == 0) fprintf(stderr, "cublaslt_sweep: %zu shapes, %.0f s\n", done, elapsed());
  }
  fclose(out);
  fprintf(stderr, "cublaslt_sweep: %zu complete shapes x %zu configs in %.1f s (%s, %d SMs)\n", done, space.size(),
          elapsed(), prop.name, prop.multiProcessorCount);
  return 0;
}
