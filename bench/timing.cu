// Case timing (see timing.h): the exact protocol traces/FORMAT.md section 2 expects from the collector side.
#include "timing.h"
#include <nvtx3/nvToolsExt.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

// extern "C" so the kernel's name is exactly loom_l2_flush: trace import drops kernels of this name
// (traces/FORMAT.md section 2). Passes over a buffer of 2.5x L2 so no input line survives in L2. Mode read (the
// default since Nov 22 2026): sums the buffer, one value per CTA, so L2 ends full of clean lines. Mode write (the
// earlier corpus): overwrites it, leaving L2 full of dirty lines whose write-back the timed kernel then pays
// (scripts/torch/context_check.py, traces/checks/).
extern "C" __global__ void loom_l2_flush(float* p, size_t n, float v, float* sink, int write) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float acc = 0.f;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += stride) {
    if (write) {
      reinterpret_cast<float4*>(p)[i] = make_float4(v, v + 1.f, v + 2.f, v + 3.f);
    } else {
      float4 x = reinterpret_cast<const float4*>(p)[i];
      acc += x.x + x.y + x.z + x.w;
    }
  }
  if (!write && acc == v) sink[blockIdx.x] = acc;  // never true in practice; keeps the loads
}

namespace bench {
namespace {
float* g_flush = nullptr;
float* g_sink = nullptr;
size_t g_flush_n = 0;
bool g_flush_write = false;
cudaEvent_t g_ev0 = nullptr, g_ev1 = nullptr;


struct RangeGuard {  // pops what was pushed, also when a launch throws
  int depth = 0;
  void push(const char* s) { nvtxRangePushA(s); ++depth; }
  void pop() { if (depth > 0) { nvtxRangePop(); --depth; } }
  ~RangeGuard() { while (depth > 0) pop(); }
};
}  // namespace

void set_flush_write(bool write) { g_flush_write = write; }

void timing_init(const Ctx& ctx) {
  g_flush_n = (ctx.l2_bytes * 5 / 2) / sizeof(float);  // 2.5x L2 so every line is evicted
  g_flush_n = (g_flush_n + 3) / 4 * 4;
  CK(cudaMalloc(&g_flush, g_flush_n * sizeof(float)));
  CK(cudaMemset(g_flush, 0, g_flush_n * sizeof(float)));
  CK(cudaMalloc(&g_sink, size_t(ctx.sms) * 4 * sizeof(float)));
  CK(cudaEventCreate(&g_ev0));
  CK(cudaEventCreate(&g_ev1));
}

Timing time_case(int case_id, const std::function<void()>& launch, bool flush_l2, int reps, const Ctx& ctx) {
  RangeGuard r;
  std::string name = "loom.case=" + std::to_string(case_id);
  r.push(name.c_str());
  for (int w = 0; w < 2; ++w) {  // warm-up: inside the case range, outside any rep range
    launch();
    CK_LAUNCH();
  }
  CK(cudaStreamSynchronize(ctx.stream));
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    if (flush_l2) {
      loom_l2_flush<<<ctx.sms * 4, 512, 0, ctx.stream>>>(g_flush, g_flush_n, -1.f - (float)i, g_sink,
                                                          g_flush_write ? 1 : 0);
      CK_LAUNCH();
      CK(cudaStreamSynchronize(ctx.stream));  // flush ends before the rep range opens
    }
    r.push("loom.rep");
    CK(cudaEventRecord(g_ev0, ctx.stream));
    launch();
    CK_LAUNCH();
    CK(cudaEventRecord(g_ev1, ctx.stream));
    CK(cudaEventSynchronize(g_ev1));  // kernels lie inside the CPU-side rep range
    r.pop();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1));
    us.push_back(ms * 1000.0);
  }
  r.pop();
  // Cool-down: idle 3x the case's GPU time (capped at 50 ms) so back-to-back heavy cases do not drive the GPU
  // into its power limit. After 5 s of sustained 8192^3 GEMMs an H200 runs at ~1470 instead of 1980 MHz and a
  // 4096x2048x8192 GEMM takes 217 instead of 171 us (traces/checks/); the corpus measures the unthrottled clock.
  double busy_us = 0;
  for (double x : us) busy_us += x;
  busy_us *= double(reps + 2) / reps;  // the warm-up launches
  std::this_thread::sleep_for(std::chrono::microseconds((int64_t)std::min(50000.0, 3.0 * busy_us)));
  Timing t;
  t.reps = reps;
  t.median_us = percentile(us, 0.5);
  t.p10_us = percentile(us, 0.1);
  t.p90_us = percentile(us, 0.9);
  return t;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  double pos = q * (v.size() - 1);
  size_t lo = (size_t)std::floor(pos), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

CaseWriter::CaseWriter(const std::string& path, const std::vector<std::pair<std::string, std::string>>& meta) {
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw std::runtime_error("cannot write " + path + "; check that the --out folder exists");
  std::fprintf(f_, "#loom-bench 1\n");
  for (auto& [k, v] : meta) std::fprintf(f_, "#%s=%s\n", k.c_str(), v.c_str());
  std::fprintf(f_, "case_id,family,spec,impl,reps,event_median_us,event_p10_us,event_p90_us\n");
  std::fflush(f_);
}

CaseWriter::~CaseWriter() {
  if (f_) std::fclose(f_);
}

void CaseWriter::row(int case_id, const std::string& family, const std::string& spec, const std::string& impl,
                     const Timing& t) {
  bool quote = spec.find(',') != std::string::npos;
  std::fprintf(f_, "%d,%s,%s%s%s,%s,%d,%.3f,%.3f,%.3f\n", case_id, family.c_str(), quote ? "\"" : "", spec.c_str(),
               quote ? "\"" : "", impl.c_str(), t.reps, t.median_us, t.p10_us, t.p90_us);
  if (++rows_ % 100 == 0) std::fflush(f_);
}

}  // namespace bench
