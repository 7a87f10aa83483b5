// --check for the memory-bound families: fp32 row-wise kernels and bf16 rotary against host fp64 references.
#include "check_util.h"
#include "runners.h"
#include <cuda_bf16.h>
#include <cmath>
#include <cstdio>
#include <vector>

namespace bench {
namespace {
std::vector<float> fetch(const void* d, size_t n) {
  std::vector<float> h(n);
  CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  return h;
}
}  // namespace

bool check_memory(const Ctx& ctx, bool verbose) {
  bool all = true;
  const int R = 37, C = 1000;
  const char* names[] = {"rms_norm", "layer_norm", "softmax", "add", "mul", "silu", "gelu", "silu_mul"};
  for (int t = 0; t < 8; ++t) try {
    ctx.arena->reset();
    Case cs{t == 0 ? Kind::rms_norm : t == 1 ? Kind::layer_norm : t == 2 ? Kind::softmax : Kind::elementwise};
    cs.dtype = DType::fp32, cs.m = R, cs.n = C, cs.op = t >= 3 ? t - 3 : 0;
    auto v = prepare_memory(cs, ctx);
    MemBufs m = g_mem_last;
    CK(cudaMemsetAsync(m.y, 0xFF, (size_t)R * C * 4, ctx.stream));  // NaN poison
    v[0].launch();
    CK_LAUNCH();
    CK(cudaStreamSynchronize(ctx.stream));
    int in_mult = t == 7 ? 2 : 1;
    auto a = fetch(m.a, (size_t)R * C * in_mult), b = fetch(m.b, (size_t)R * C), w = fetch(m.w, C),
         bias = fetch(m.bias, C), y = fetch(m.y, (size_t)R * C);
    std::vector<double> ref((size_t)R * C);
    for (int r = 0; r < R; ++r) {
      const float* x = &a[(size_t)r * C * in_mult];
      double s = 0, s2 = 0, mx = -INFINITY, se = 0;
      for (int c = 0; c < C; ++c) s += x[c], s2 += (double)x[c] * x[c], mx = std::max(mx, (double)x[c]);
      for (int c = 0; c < C; ++c) se += std::exp(x[c] - mx);
      double mean = s / C, var = s2 / C - mean * mean;
      for (int c = 0; c < C; ++c) {
        double xv = x[c], bv = b[(size_t)r * C + c], o = 0;
        switch (t) {
          case 0: o = xv / std::sqrt(s2 / C + 1e-6) * w[c]; break;
          case 1: o = (xv - mean) / std::sqrt(var + 1e-5) * w[c] + bias[c]; break;
          case 2: o = std::exp(xv - mx) / se; break;
          case 3: o = xv + bv; break;
          case 4: o = xv * bv; break;
          case 5: o = xv / (1 + std::exp(-xv)); break;
          case 6: o = 0.5 * xv * (1 + std::erf(xv / std::sqrt(2.0))); break;
          case 7: o = xv / (1 + std::exp(-xv)) * x[C + c]; break;
        }
        ref[(size_t)r * C + c] = o;
      }
    }
    double e = rel_err(y, ref);
    bool ok = e < 1e-4;
    if (verbose || !ok) std::fprintf(stderr, "check %-10s %-18s rows=37 cols=1000 fp32 vs host fp64  rel_err %.2e %s\n",
                                     "memory", names[t], e, ok ? "ok" : "FAIL");
    all &= ok;
  } catch (const CudaFailure& e) {
    if (e.sticky) throw;
    std::fprintf(stderr, "check memory %s: FAIL: %s\n", names[t], e.what());
    all = false;
  }
  try {  // rotary, in place on bf16 q
    ctx.arena->reset();
    Case cs{Kind::rotary};
    cs.m = 5, cs.heads = 4, cs.head_dim = 128;
    auto v = prepare_memory(cs, ctx);
    MemBufs m = g_mem_last;
    CK(cudaStreamSynchronize(ctx.stream));
    const int T = 5, H = 4, D = 128, n = T * H * D;
    auto q0 = host_bf16(m.a, n);
    std::vector<int> pos(T);
    CK(cudaMemcpy(pos.data(), m.pos, T * 4, cudaMemcpyDeviceToHost));
    v[0].launch();
    CK_LAUNCH();
    CK(cudaStreamSynchronize(ctx.stream));
    auto q1 = host_bf16(m.a, n);
    std::vector<double> ref(n);
    for (int t = 0; t < T; ++t) {
      auto cache = fetch((const float*)m.cache + (size_t)pos[t] * D, D);
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < D / 2; ++i) {
          size_t base = ((size_t)t * H + h) * D;
          double x1 = q0[base + i], x2 = q0[base + D / 2 + i], c = cache[i], s = cache[D / 2 + i];
          ref[base + i] = x1 * c - x2 * s;
          ref[base + D / 2 + i] = x2 * c + x1 * s;
        }
    }
    double e = rel_err(q1, ref);
    bool ok = e < 1e-2;
    if (verbose || !ok) std::fprintf(stderr, "check %-10s %-18s tokens=5 heads=4 d=128 bf16 vs host    rel_err %.2e %s\n",
                                     "memory", "rotary", e, ok ? "ok" : "FAIL");
    all &= ok;
  } catch (const CudaFailure& e) {
    if (e.sticky) throw;
    std::fprintf(stderr, "check memory rotary: FAIL: %s\n", e.what());
    all = false;
  }
  return all;
}

}  // namespace bench
