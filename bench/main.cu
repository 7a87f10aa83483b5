// loom-bench: sweeps LLM-inference kernels (cuBLASLt GEMM, loom's own GEMM/MoE/attention, memory-bound ops)
// on the whole GPU or a green-context partition, and writes PREFIX.cases.csv (traces/FORMAT.md section 2).
#include "configs.h"
#include "green_ctx.h"
#include "runners.h"
#include "shapes.h"
#include "timing.h"
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <sstream>

using namespace bench;

namespace {

// SIGTERM/SIGINT (collect.sh's timeout) end the sweep after the current case, so main returns normally: the CSV
// is closed and the CUPTI collector's exit-time flush runs (a killed process leaves a truncated trace).
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Args {
  int sms = 0, reps = 7, device = 0;
  double max_seconds = 0;  ///< > 0: stop starting new cases after this many seconds of sweeping
  std::string out;
  uint64_t tune_seed = 2026;
  size_t skip = 0;  ///< --skip N: leave out the first N planned cases (a top-up after a run stopped early)
  std::string plan;  ///< --plan FILE: run exactly these loom specs (from `loom tune --plan`)
  bool quick = false, list = false, check = false;
  bool flush_write = false;  ///< --flush write: the pre-Nov-22-2026 L2 flush (dirty lines), for comparisons
  std::set<std::string> families;
  std::string command;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "loom-bench: %s\nusage: loom-bench --out PREFIX [--sms N] [--quick] [--families a,b] [--reps 7]\n"
               "                  [--device 0] [--max-seconds S] [--plan FILE] [--tune-seed N] [--flush read|write] [--skip N]\n"
               "       loom-bench --list [--sms N] [--quick] | --check\n",
               why);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 0; i < argc; ++i) a.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage((s + " needs a value").c_str());
      return argv[++i];
    };
    if (s == "--sms") a.sms = std::atoi(val().c_str());
    else if (s == "--out") a.out = val();
    else if (s == "--quick") a.quick = true;
    else if (s == "--list") a.list = true;
    else if (s == "--check") a.check = true;
    else if (s == "--reps") a.reps = std::atoi(val().c_str());
    else if (s == "--device") a.device = std::atoi(val().c_str());
    else if (s == "--max-seconds") a.max_seconds = std::atof(val().c_str());
    else if (s == "--plan") a.plan = val();
    else if (s == "--tune-seed") a.tune_seed = std::strtoull(val().c_str(), nullptr, 10);
    else if (s == "--skip") a.skip = std::strtoull(val().c_str(), nullptr, 10);
    else if (s == "--flush") {
      std::string v = val();
      if (v != "read" && v != "write") usage("--flush takes read or write");
      a.flush_write = v == "write";
    }
    else if (s == "--families") {
      std::stringstream ss(val());
      std::string f;
      while (std::getline(ss, f, ',')) if (!f.empty()) a.families.insert(f);
    } else usage(("unknown argument " + s).c_str());
  }
  if (a.reps < 1) usage("--reps must be >= 1");
  if (a.quick && a.reps == 7) a.reps = 3;
  if (!a.list && !a.check && a.out.empty()) usage("--out PREFIX is required");
  return a;
}

int do_list(const Args& a) {
  PlanOptions po;
  po.sms = a.sms > 0 ? a.sms : 132;
  po.full_chip = a.sms <= 0;
  po.tune_seed = a.tune_seed;
  po.quick = a.quick;
  po.families = a.families;
  auto cases = a.plan.empty() ? plan_cases(po) : plan_from_file(a.plan, po);
  std::map<std::string, std::pair<int, double>> per;  // group -> cases, est seconds (launches incl. warm-up)
  int total = 0;
  double total_s = 0;
  for (auto& c : cases) {
    auto& p = per[c.group];
    p.first += c.expands;
    double s = c.expands * (a.reps + 2) * (c.est_us + 15.0) * 1e-6;  // +15 us launch/sync/flush per launch
    p.second += s;
    total += c.expands;
    total_s += s;
  }
  std::printf("plan for %d SMs%s (cublaslt_algo counts are upper bounds: the library decides at run time)\n",
              po.sms, a.quick ? ", quick" : "");
  std::printf("%-20s %8s %12s\n", "group", "cases", "est_gpu_s");
  for (auto& [g, p] : per) std::printf("%-20s %8d %12.1f\n", g.c_str(), p.first, p.second);
  std::printf("%-20s %8d %12.1f\n", "total", total, total_s);
  return 0;
}

std::string utc_now() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<Variant> prepare(const Case& c, const Ctx& ctx, int max_algos) {
  switch (c.kind) {
    case Kind::gemm_cublaslt: case Kind::gemm_algos: return prepare_cublaslt(c, ctx, max_algos);
    case Kind::gemm_loom: return prepare_gemm_loom(c, ctx);
    case Kind::moe: return prepare_moe(c, ctx);
    case Kind::attn_prefill: case Kind::attn_decode: return prepare_attention(c, ctx);
    default: return prepare_memory(c, ctx);
  }
}

int do_run(const Args& a) {
  Partition part = make_partition(a.device, a.sms);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, a.device));
  int clock_khz = 0, l2 = 0, drv = 0, rt = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, a.device));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, a.device));
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  Arena arena;
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  arena.init(std::min<size_t>(free_b / 2, size_t(24) << 30));
  Ctx ctx{part.stream, &arena, (size_t)l2, part.sms, 12345};
  set_flush_write(a.flush_write);
  timing_init(ctx);
  cublaslt_init(ctx);
  std::fprintf(stderr, "loom-bench: %s, %d of %d SMs, L2 %d B, arena %zu MiB\n", prop.name, part.sms,
               part.sms_total, l2, arena.capacity() >> 20);

  std::vector<int> bad_gemm, bad_moe;
  if (a.check) return run_checks(ctx, bad_gemm, bad_moe, true) ? 0 : 1;
  // The sweep refuses configs that fail the correctness check (quietly: --check prints the details).
  if (!run_checks(ctx, bad_gemm, bad_moe, false))
    std::fprintf(stderr, "loom-bench: WARNING: correctness check failed; %zu GEMM and %zu MoE configs refused\n",
                 bad_gemm.size(), bad_moe.size());

  PlanOptions po;
  po.sms = part.sms;
  po.full_chip = part.sms == part.sms_total;
  po.tune_seed = a.tune_seed;
  po.quick = a.quick;
  po.families = a.families;
  auto cases = a.plan.empty() ? plan_cases(po) : plan_from_file(a.plan, po);
  if (a.skip > 0) {
    std::fprintf(stderr, "loom-bench: skipping the first %zu of %zu planned cases (--skip)\n", std::min(a.skip, cases.size()),
                 cases.size());
    cases.erase(cases.begin(), cases.begin() + std::min(a.skip, cases.size()));
  }
  int nvml_mhz = nvml_sm_clock_mhz(a.device);
  CaseWriter w(a.out + ".cases.csv",
               {{"gpu", prop.name}, {"sms", std::to_string(part.sms)}, {"sms_total", std::to_string(part.sms_total)},
                {"driver", std::to_string(drv)}, {"cuda", std::to_string(rt)},
                {"clock_mhz", std::to_string(clock_khz / 1000)}, {"sm_clock_now_mhz", std::to_string(nvml_mhz)},
                {"l2_bytes", std::to_string(l2)}, {"date", utc_now()}, {"command", a.command},
                {"tool", "loom-bench"}, {"flush", a.flush_write ? "write" : "read"}});
  auto t0 = std::chrono::steady_clock::now(), last = t0;
  int next_id = a.skip > 0 ? 1000000 : 0, skipped = 0;  // top-up ids stay apart from the first run's
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (g_stop || (a.max_seconds > 0 && elapsed > a.max_seconds)) {
      std::fprintf(stderr, "loom-bench: stopping early (%s) after %zu of %zu planned cases\n",
                   g_stop ? "signal" : "--max-seconds", i, cases.size());
      break;
    }
    if ((c.kind == Kind::gemm_loom && std::count(bad_gemm.begin(), bad_gemm.end(), c.config)) ||
        (c.kind == Kind::moe && std::count(bad_moe.begin(), bad_moe.end(), c.config)))
      continue;
    arena.reset();
    ctx.seed = 1000 + i;
    try {
      auto vars = prepare(c, ctx, 32);
      CK(cudaStreamSynchronize(ctx.stream));
      for (auto& v : vars) {
        int id = next_id++;
        try {
          Timing t = time_case(id, v.launch, v.flush_l2, a.reps, ctx);
          w.row(id, c.family, v.spec, v.impl, t);
        } catch (const CudaFailure& e) {
          ++skipped;
          std::fprintf(stderr, "loom-bench: case %d (%s, %s) skipped: %s\n", id, v.spec.c_str(), v.impl.c_str(), e.what());
          if (e.sticky) throw;
        }
      }
    } catch (const CudaFailure& e) {
      if (e.sticky) {
        std::fprintf(stderr, "loom-bench: context unusable after '%s': %s; stopping\n", c.spec.c_str(), e.what());
        return 3;
      }
      ++skipped;
      std::fprintf(stderr, "loom-bench: case '%s' (%s) skipped: %s\n", c.spec.c_str(), c.impl.c_str(), e.what());
      cudaGetLastError();
    }
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last).count() > 3.0 || i + 1 == cases.size()) {
      last = now;
      std::fprintf(stderr, "loom-bench: %zu/%zu planned done, %d rows, %d skipped, %.1f s\n", i + 1, cases.size(),
                   w.rows(), skipped, std::chrono::duration<double>(now - t0).count());
    }
  }
  std::fprintf(stderr, "loom-bench: wrote %d cases to %s.cases.csv (%d skipped); SM clock now %d MHz\n", w.rows(),
               a.out.c_str(), skipped, nvml_sm_clock_mhz(a.device));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  try {
    if (a.list) return do_list(a);
    return do_run(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom-bench: error: %s\n", e.what());
    return 1;
  }
}
