// PipeWeave Triton fused-MoE config sweeps (zksainx/pipeweave, pipetuning_test/moe_dse/moe_dse_<GPU>_*.csv): the
// vLLM/SGLang fused_moe Triton kernel, bf16 (PipeWeave's triton_moe_calculator uses the bf16 tensor rate), one row
// per (problem, tile config), avg_duration in us over sample_count runs. Problem: M tokens, E experts, topk, H
// hidden, N = per-expert intermediate size (w13 computes [M,H] x [H,2N], w2 [M,N] x [N,H]: loom's moe inter=N).
// Each row -> `moe tokens=M experts=E topk=K hidden=H inter=N dtype=bf16 stage=w13|w2
// config=BMxBNxBK_s<stages>_w<warps>`, impl triton. GROUP_SIZE_M is not in loom's vocabulary: of rows differing only
// in it, the first is kept (the others are counted). The GPU comes from the file name or --gpu.
#include <cstdint>
#include <filesystem>

#include "core/error.h"
#include "trace/import_public.h"

namespace loom {
namespace {

// PipeWeave's GPU names in the moe_dse file names -> catalogue keys (its reports name the devices: A100-SXM4-80GB,
// A40, H20, H800, L40, RTX PRO 6000 Blackwell Server Edition).
std::pair<std::string, std::string> gpu_from_name(const std::string& file) {
  const std::string stem = std::filesystem::path(file).filename().string();
  static const std::pair<const char*, std::pair<const char*, const char*>> table[] = {
      {"moe_dse_A100_", {"a100-sxm4-80gb", "NVIDIA A100-SXM4-80GB"}},
      {"moe_dse_A40_", {"a40", "NVIDIA A40"}},
      {"moe_dse_H20_", {"h20", "NVIDIA H20"}},
      {"moe_dse_H800_", {"h800", "NVIDIA H800"}},
      {"moe_dse_L40_", {"l40", "NVIDIA L40"}},
      {"moe_dse_PRO6000S_", {"rtx-pro-6000-blackwell-server", "NVIDIA RTX PRO 6000 Blackwell Server Edition"}},
  };
  for (const auto& [prefix, gpu] : table)
    if (stem.rfind(prefix, 0) == 0) return {gpu.first, gpu.second};
  return {"", ""};
}

void read_moe(trace_io::LineReader& r, const std::vector<std::string>& hdr, const PublicImportContext& ctx,
              PublicImport& out) {
  using namespace public_io;
  const std::string w0 = r.where();
  // Plain variables, not a structured binding: the row lambda below uses them, and clang 14 (the fuzz build's
  // compiler) refuses a lambda that captures a structured binding.
  auto gpu = gpu_from_name(ctx.file);
  std::string key = std::move(gpu.first), device = std::move(gpu.second);
  // --gpu names the GPU of a file whose name does not; it does not relabel one the name gives (round 14).
  if (!key.empty() && !ctx.gpu_override.empty() && key != ctx.gpu_override)
    throw InputError(w0, "the file name says " + key + ", not --gpu " + ctx.gpu_override +
                             "; drop --gpu (the file name names the GPU)");
  if (!ctx.gpu_override.empty()) key = ctx.gpu_override, device = "pipeweave:" + ctx.gpu_override;
  if (key.empty())
    throw InputError(w0, "cannot tell the GPU from the file name (expected moe_dse_<A100|A40|H20|H800|L40|PRO6000S>_"
                         "*.csv); pass --gpu KEY");
  const size_t c_w = column(hdr, "weight_type", w0), c_m = column(hdr, "M", w0), c_e = column(hdr, "E", w0),
               c_k = column(hdr, "topk", w0), c_h = column(hdr, "H", w0), c_n = column(hdr, "N", w0),
               c_bm = column(hdr, "BLOCK_SIZE_M", w0), c_bn = column(hdr, "BLOCK_SIZE_N", w0),
               c_bk = column(hdr, "BLOCK_SIZE_K", w0), c_g = column(hdr, "GROUP_SIZE_M", w0),
               c_warps = column(hdr, "num_warps", w0), c_st = column(hdr, "num_stages", w0),
               c_d = column(hdr, "avg_duration", w0), c_s = column(hdr, "sample_count", w0);
  const std::map<std::string, std::string> meta = {
      {"timing", "PipeWeave moe_dse sweep: Triton fused_moe kernel, avg_duration (us) over sample_count runs"},
      {"l2", "warm"},
      {"repository", "github.com/zksainx/pipeweave (Apache-2.0)"}};
  for_each_row(r, hdr.size(), out, [&](const std::vector<std::string>& f, const std::string& where) {
    const std::string& stage = f[c_w];
    if (stage != "w13" && stage != "w2")
      throw InputError(where, "weight_type '" + stage.substr(0, 20) + "' is neither w13 nor w2; fix the row");
    auto I = [&](size_t c, const char* n) { return std::to_string(positive_int(f[c], n, where)); };
    const std::string topk = I(c_k, "topk"), experts = I(c_e, "E");
    if (std::stoll(topk) > std::stoll(experts)) throw InputError(where, "topk exceeds E (experts); fix the row");
    const std::string group = I(c_g, "GROUP_SIZE_M");
    CorpusRow row;
    row.case_id = r.line_no();
    row.family = "moe";
    row.impl = "triton";
    row.spec = "moe tokens=" + I(c_m, "M") + " experts=" + experts + " topk=" + topk + " hidden=" + I(c_h, "H") +
               " inter=" + I(c_n, "N") + " dtype=bf16 stage=" + stage + " config=" + I(c_bm, "BLOCK_SIZE_M") + "x" +
               I(c_bn, "BLOCK_SIZE_N") + "x" + I(c_bk, "BLOCK_SIZE_K") + "_s" + I(c_st, "num_stages") + "_w" +
               I(c_warps, "num_warps");
    const double us = positive_number(f[c_d], "avg_duration", where);
    row.kernels = "fused_moe_kernel (Triton) GROUP_SIZE_M=" + group;
    row.reps = positive_int(f[c_s], "sample_count", where);
    row.median_us = row.p10_us = row.p90_us = row.event_median_us = us;  // a mean: no spread recorded
    row.spread_pct = 0;
    Corpus& c = out.corpus_for(key, device, ctx, meta);
    out.add(c, std::move(row), where);
  });
}

}  // namespace

PublicFormat pipeweave_moe_format() {
  return {"pipeweave", "pipeweave-moe-dse",
          "weight_type,M,E,topk,H,N,BLOCK_SIZE_M,BLOCK_SIZE_N,BLOCK_SIZE_K,GROUP_SIZE_M,num_warps,num_stages,...",
          [](const std::vector<std::string>& h) {
            return h.size() > 12 && h[0] == "weight_type" && h[1] == "M" && h[2] == "E" && h[3] == "topk" &&
                   h[6] == "BLOCK_SIZE_M";
          },
          read_moe};
}

}  // namespace loom
