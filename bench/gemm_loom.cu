// Dense GEMM cases of loom's own tile kernel (impl loom), and the launcher tables the MoE and check code share.
#include "gemm_loom.h"
#include "runners.h"

namespace bench {

GemmLaunchFn dense_launcher(int cfg) {
  static const GemmLaunchFn t[kNumGemmCfgs] = {
      launch_dense<0>, launch_dense<1>, launch_dense<2>,  launch_dense<3>,  launch_dense<4>,  launch_dense<5>,
      launch_dense<6>, launch_dense<7>, launch_dense<8>,  launch_dense<9>,  launch_dense<10>, launch_dense<11>,
      launch_dense<12>, launch_dense<13>, launch_dense<14>, launch_dense<15>};
  static_assert(kNumGemmCfgs == 16, "update the launcher table with kGemmCfgs");
  return t[cfg];
}

GemmLaunchFn moe_launcher(int cfg) {
  static const GemmLaunchFn t[kNumMoeCfgs] = {launch_moe<0>, launch_moe<1>, launch_moe<2>, launch_moe<3>,
                                               launch_moe<4>, launch_moe<5>, launch_moe<6>, launch_moe<7>};
  static_assert(kNumMoeCfgs == 8, "update the launcher table with kMoeCfgs");
  return t[cfg];
}

void run_dense(int cfg, const GemmArgs& p, cudaStream_t s) {
  const TileCfg& c = kGemmCfgs[cfg];
  if (p.K % 8 || p.N % 2) throw CudaFailure("loom gemm needs K % 8 == 0 and even N");
  CK(dense_launcher(cfg)(p, (p.M + c.bm - 1) / c.bm, s));
}

std::vector<Variant> prepare_gemm_loom(const Case& cs, const Ctx& ctx) {
  GemmArgs p;
  p.M = (int)cs.m, p.N = (int)cs.n, p.K = (int)cs.k;
  auto* A = (__nv_bfloat16*)ctx.arena->take(cs.m * cs.k * 2);
  auto* B = (__nv_bfloat16*)ctx.arena->take(cs.n * cs.k * 2);
  auto* C = (__nv_bfloat16*)ctx.arena->take(cs.m * cs.n * 2);
  fill_random(A, cs.m * cs.k, DType::bf16, ctx.seed, -1.f, 1.f, ctx.stream);
  fill_random(B, cs.n * cs.k, DType::bf16, ctx.seed + 1, -1.f, 1.f, ctx.stream);
  p.A = A, p.B = B, p.C = C;
  Variant v;
  v.spec = cs.spec, v.impl = "loom";
  v.flush_l2 = needs_flush(2.0 * (cs.m * cs.k + cs.n * cs.k + cs.m * cs.n), ctx);
  int cfg = cs.config;
  cudaStream_t s = ctx.stream;
  v.launch = [p, cfg, s] { run_dense(cfg, p, s); };
  return {v};
}

}  // namespace bench
