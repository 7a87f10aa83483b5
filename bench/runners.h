// Family runners: each turns a planned Case into one or more ready-to-time variants (buffers allocated from
// the arena and filled with random values, descriptors built); the timing loop then launches them.
#pragma once
#include "common.h"
#include "shapes.h"
#include <functional>
#include <string>
#include <vector>

namespace bench {

struct Variant {
  std::string spec, impl;
  std::function<void()> launch;  ///< enqueues one repetition on ctx.stream
  bool flush_l2 = true;          ///< working set < 3x L2: flush before each rep
};

/// Working set in bytes -> whether reps need an L2 flush (repeats would otherwise hit in L2).
inline bool needs_flush(double ws_bytes, const Ctx& c) { return ws_bytes < 3.0 * (double)c.l2_bytes; }

void cublaslt_init(const Ctx& ctx);  ///< handle + 32 MiB workspace, once, in the current context
std::vector<Variant> prepare_cublaslt(const Case& c, const Ctx& ctx, int max_algos);
std::vector<Variant> prepare_gemm_loom(const Case& c, const Ctx& ctx);
std::vector<Variant> prepare_moe(const Case& c, const Ctx& ctx);
std::vector<Variant> prepare_memory(const Case& c, const Ctx& ctx);
std::vector<Variant> prepare_attention(const Case& c, const Ctx& ctx);

/// Device buffers of the last case prepare_memory built (inputs a, b; weight w; bias; output y; rotary cache
/// and positions), so --check can compare them with a host reference.
struct MemBufs { void *a, *b, *w, *bias, *y, *cache, *pos; };
extern MemBufs g_mem_last;

/// --check: correctness of loom's kernels against cuBLAS / naive references; returns false on any failure.
/// `bad_gemm_cfgs` / `bad_moe_cfgs` receive config indices that failed (the sweep then refuses them).
bool run_checks(const Ctx& ctx, std::vector<int>& bad_gemm_cfgs, std::vector<int>& bad_moe_cfgs, bool verbose);

}  // namespace bench
