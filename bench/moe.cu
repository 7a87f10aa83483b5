// Fused-MoE grouped GEMM cases (impl loom): the tile GEMM with an expert per M-tile over vLLM-style sorted ids.
// w13: [tokens*topk rows gathered from x[tokens, hidden]] x W13[e][2*inter, hidden]^T -> [tokens*topk, 2*inter];
// w2:  [tokens*topk, inter] x W2[e][hidden, inter]^T -> [tokens*topk, hidden].
#include "gemm_loom.h"
#include "runners.h"
#include <vector>

namespace bench {

MoeRouting route_uniform(int tokens, int experts, int topk, int bm) {
  std::vector<std::vector<int>> rows(experts);
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < topk; ++j) rows[(t * topk + j) % experts].push_back(t * topk + j);
  MoeRouting r;
  const int pad = tokens * topk;
  for (int e = 0; e < experts; ++e) {
    if (rows[e].empty()) continue;
    int tiles = ((int)rows[e].size() + bm - 1) / bm;
    for (int i = 0; i < tiles * bm; ++i) r.sorted_ids.push_back(i < (int)rows[e].size() ? rows[e][i] : pad);
    for (int i = 0; i < tiles; ++i) r.tile_expert.push_back(e);
  }
  return r;
}

std::vector<Variant> prepare_moe(const Case& cs, const Ctx& ctx) {
  const TileCfg& cfg = kMoeCfgs[cs.config];
  const int tokens = (int)cs.m, E = (int)cs.experts, topk = (int)cs.topk, hidden = (int)cs.n, inter = (int)cs.k;
  const bool w13 = cs.stage == 13;
  const int N = w13 ? 2 * inter : hidden, K = w13 ? hidden : inter, rows = tokens * topk;
  const int a_rows = w13 ? tokens : rows;
  MoeRouting r = route_uniform(tokens, E, topk, cfg.bm);
  auto* A = (__nv_bfloat16*)ctx.arena->take((size_t)a_rows * K * 2);
  auto* B = (__nv_bfloat16*)ctx.arena->take((size_t)E * N * K * 2);
  auto* C = (__nv_bfloat16*)ctx.arena->take((size_t)rows * N * 2);
  int* ids = (int*)ctx.arena->take(r.sorted_ids.size() * 4);
  int* te = (int*)ctx.arena->take(r.tile_expert.size() * 4);
  fill_random(A, (size_t)a_rows * K, DType::bf16, ctx.seed, -1.f, 1.f, ctx.stream);
  fill_random(B, (size_t)E * N * K, DType::bf16, ctx.seed + 1, -0.2f, 0.2f, ctx.stream);
  CK(cudaMemcpyAsync(ids, r.sorted_ids.data(), r.sorted_ids.size() * 4, cudaMemcpyHostToDevice, ctx.stream));
  CK(cudaMemcpyAsync(te, r.tile_expert.data(), r.tile_expert.size() * 4, cudaMemcpyHostToDevice, ctx.stream));
  CK(cudaStreamSynchronize(ctx.stream));  // host vectors die with this function
  GemmArgs p;
  p.A = A, p.B = B, p.C = C, p.M = (int)r.sorted_ids.size(), p.N = N, p.K = K;
  p.sorted_ids = ids, p.tile_expert = te, p.num_valid = rows, p.a_row_div = w13 ? topk : 1;
  int active = std::min(E, rows);
  Variant v;
  v.spec = cs.spec, v.impl = "loom";
  v.flush_l2 = needs_flush(2.0 * ((double)a_rows * K + (double)active * N * K + (double)rows * N), ctx);
  int grid_m = (int)r.tile_expert.size(), ci = cs.config;
  cudaStream_t s = ctx.stream;
  v.launch = [p, grid_m, ci, s] { CK(moe_launcher(ci)(p, grid_m, s)); };
  return {v};
}

}  // namespace bench
