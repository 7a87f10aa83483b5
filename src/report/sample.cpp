// Demo data for `loom report --sample`: every chart kind filled with made-up but plausible numbers, so the page
// can be looked at (and browser-tested) without traces. The page says in a banner that the data is made up.
#include <cmath>
#include <cstdint>

#include "report/report.h"

namespace loom::report {

namespace {

/// A small deterministic generator (so the sample page is byte-identical run to run).
struct Lcg {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  double uniform() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  double normal() { return std::sqrt(-2 * std::log(1 - uniform())) * std::cos(2 * M_PI * uniform()); }
};

// Peaks are the vendors' dense datasheet numbers (NVIDIA H100 SXM5 and A100 SXM4 80GB datasheets); the L2
// bandwidths are round illustrative values, not measurements.
RooflineChart roofline(const std::string& gpu, double bf16, double fp8, double fp32, double dram, double l2,
                       double measured_scale, Lcg& rng) {
  RooflineChart c{gpu, {{"bf16 tensor", bf16}, {"fp32 FMA", fp32}}, dram, l2, {}};
  if (fp8 > 0) c.ceilings.insert(c.ceilings.begin(), {"fp8 tensor", fp8});
  struct K {
    const char* label;
    const char* family;
    double intensity;
    double eff;
  };
  const K ks[] = {{"gemm m=4096 n=4096 k=4096 dtype=bf16", "gemm", 1365, 0.78},
                  {"gemm m=8192 n=8192 k=8192 dtype=bf16", "gemm", 2730, 0.82},
                  {"gemm m=16 n=4096 k=4096 dtype=bf16", "gemm", 15.9, 0.70},
                  {"gemm m=128 n=14336 k=4096 dtype=bf16", "gemm", 120, 0.66},
                  {"void cutlass::Kernel<GemmUniversal<bf16, 128x256x64>> & epilogue", "gemm", 512, 0.74},
                  {"attention prefill b=1 s=4096 h=32 d=128 causal", "attention", 410, 0.55},
                  {"attention decode b=8 kv=8192 h=32 d=128", "attention", 1.9, 0.72},
                  {"rmsnorm rows=4096 cols=4096 dtype=bf16", "rmsnorm", 0.6, 0.80},
                  {"softmax rows=32768 cols=4096 dtype=fp32", "softmax", 0.9, 0.64},
                  {"silu_mul rows=4096 cols=14336 dtype=bf16", "elementwise", 0.17, 0.85},
                  {"add rows=4096 cols=4096 dtype=bf16", "elementwise", 0.08, 0.83}};
  for (const K& k : ks) {
    double roof = std::min(bf16, dram * k.intensity);
    RooflinePoint p{k.label, k.family, k.intensity, roof * k.eff, std::nullopt};
    if (measured_scale > 0)
      p.measured_flops_per_s = p.predicted_flops_per_s * measured_scale * (1 + 0.12 * rng.normal());
    c.points.push_back(p);
  }
  return c;
}

ScatterChart scatter(Lcg& rng) {
  ScatterChart s{"Validation: predicted vs measured kernel time (demo data)", {}};
  const char* gpus[] = {"H100 SXM", "A100 SXM", "L40S"};
  const double gpu_speed[] = {1.0, 2.4, 1.9};
  struct F {
    const char* family;
    double lo_us, hi_us, err_sd;
  };
  const F fams[] = {{"gemm", 8, 4000, 0.08}, {"attention", 15, 2500, 0.15}, {"rmsnorm", 2, 60, 0.10},
                    {"elementwise", 1.5, 90, 0.06}};
  for (const F& f : fams)
    for (int g = 0; g < 3; ++g)
      for (int i = 0; i < 14; ++i) {
        double meas = f.lo_us * std::pow(f.hi_us / f.lo_us, rng.uniform()) * gpu_speed[g];
        double pred = meas * std::exp(f.err_sd * rng.normal());
        s.points.push_back({std::string(f.family) + " sample #" + std::to_string(i), f.family, gpus[g], meas, pred});
      }
  return s;
}

Timeline timeline(Lcg& rng) {
  Timeline t{"Decode step, Llama-3-8B-like, batch 8 (demo data)", {"GPU stream", "launch gaps"}, {}};
  struct Op {
    const char* name;
    const char* family;
    double us;
  };
  const Op layer[] = {{"rmsnorm", "rmsnorm", 3.1},  {"qkv_proj gemm", "gemm", 21},  {"rope", "elementwise", 2.4},
                      {"attention decode", "attention", 14}, {"o_proj gemm", "gemm", 11}, {"add", "elementwise", 1.9},
                      {"rmsnorm", "rmsnorm", 3.0},  {"gate_up gemm", "gemm", 58}, {"silu_mul", "elementwise", 4.2},
                      {"down gemm", "gemm", 30},    {"add", "elementwise", 1.9}};
  double now = 0;
  for (int l = 0; l < 32; ++l)
    for (const Op& op : layer) {
      double gap = 1.2 + 1.5 * rng.uniform();
      t.events.push_back({"launch gap", "launch gap", now, gap, 1});
      now += gap;
      double dur = op.us * (1 + 0.05 * rng.normal());
      t.events.push_back({"layer " + std::to_string(l) + ": " + op.name, op.family, now, dur, 0});
      now += dur;
    }
  for (const char* op : {"final rmsnorm", "lm_head gemm", "top-k <sampling> & argmax"}) {
    double dur = std::string(op) == "lm_head gemm" ? 95 : 4;
    t.events.push_back({op, std::string(op) == "lm_head gemm" ? "gemm" : "elementwise", now, dur, 0});
    now += dur + 1.5;
  }
  return t;
}

}  // namespace

Report sample_report() {
  Lcg rng;
  Report r;
  r.title = "loom report — sample (demo data)";
  r.subtitle = "Every chart kind with made-up numbers: run `loom report --sample` to regenerate this page.";
  r.demo_data = true;
  r.rooflines.push_back(roofline("H100 SXM", 989e12, 1979e12, 67e12, 3.35e12, 11e12, 0.9, rng));
  r.rooflines.push_back(roofline("A100 SXM", 312e12, 0, 19.5e12, 2.039e12, 6e12, 0, rng));

  SolBars gemm{"gemm m=4096 n=4096 k=4096 dtype=bf16", "H100 SXM", "tensor", 139.0, 171.5, {}};
  gemm.bars = {{"tensor", 139.0, 1.0, "137.4 GFLOP"},    {"smem", 71.2, 0.512, "1.07 GB"},
               {"l2", 38.5, 0.277, "402.7 MB"},          {"dram", 30.1, 0.217, "100.7 MB"},
               {"alu", 12.4, 0.089, "1.2 Gops"},         {"fma", 4.3, 0.031, "268 MFLOP"}};
  SolBars norm{"rmsnorm rows=4096 cols=4096 dtype=bf16", "H100 SXM", "dram", 20.1, std::nullopt, {}};
  norm.bars = {{"dram", 20.1, 1.0, "67.1 MB"}, {"l2", 6.2, 0.308, "67.1 MB"}, {"alu", 2.3, 0.114, "50.3 Mops"},
               {"sfu", 0.4, 0.02, "4.1 Mops"}};
  r.sol = {gemm, norm};
  r.scatters.push_back(scatter(rng));
  r.timelines.push_back(timeline(rng));

  r.tables.push_back({"GPUs ranked for Llama-3-8B, batch 8, 2k in / 256 out (demo data)",
                      {"rank", "GPU", "TTFT", "TPOT", "tokens/s", "bottleneck"},
                      {{"1", "B200", "38.2 ms", "4.1 ms", "1951", "dram"},
                       {"2", "H200", "61.0 ms", "5.6 ms", "1428", "dram"},
                       {"3", "H100 SXM", "66.4 ms", "7.4 ms", "1081", "dram"},
                       {"4", "A100 SXM", "171 ms", "11.9 ms", "672", "dram"},
                       {"5", "L40S", "204 ms", "22.6 ms", "354", "dram"}}});
  r.sensitivities.push_back({"What-if on H100 SXM (demo data)",
                             {{"H100 SXM", "DRAM bandwidth +20%", -4.1, -15.8},
                              {"H100 SXM", "bf16 tensor peak +20%", -13.9, -1.2},
                              {"H100 SXM", "fp8 weights", -31.0, -38.5},
                              {"H100 SXM", "CUDA graphs off (eager)", 2.2, 24.0},
                              {"H100 SXM", "TP=2 over NVLink", -44.0, -35.1},
                              {"H100 SXM", "batch 8 → 32", 290.0, 12.5}}});
  return r;
}

}  // namespace loom::report
