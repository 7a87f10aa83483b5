// NCCL collective profiles written by Vidur's collective profiler (microsoft/vidur, vidur/profiling/collectives;
// data/profiling/network/<node>/all_reduce.csv) and by PipeWeave with the same profiler and header
// (zksainx/pipeweave, dataset/collective/<gpu>/all_reduce.csv). One row: torch.distributed.all_reduce of a
// float16 buffer of `size` bytes over `num_workers` ranks, `devices_per_node` of them per node; time_stats are the
// NCCL kernel's torch-profiler time in ms (min/max/mean/median over 3 runs of the median of 11 launches).
// Each single-node row -> `all_reduce bytes=B gpus=N` with the median as the measurement. send_recv files (same
// header, time_stats.send_recv.*: rank 0 sends `size` bytes to rank 1, NCCL send/recv) -> `send_recv bytes=B`.
// Rows spanning nodes (devices_per_node < num_workers) are counted as skipped (loom models one node). The GPU and
// the node's interconnect come from the path (PipeWeave's GPU folder, Vidur's node folder) or --gpu.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "kernels/shape.h"  // is_collective
#include "trace/import_public.h"

namespace loom {
namespace {

struct Node {
  // "nvswitch", "nvlink-4gpu", "pairwise-nvlink", "pcie" (loom's: "pcie-nop2p", "nvswitch-nvls-off")
  std::string gpu_key, topology;
};

/// The catalogue key and interconnect of a profiling folder. PipeWeave's folders name GPUs (its hardware/*.json:
/// A100 and H100 are SXM boards; RTX 6000 Ada and RTX PRO 6000 S have no NVLink); Vidur's name nodes (its README:
/// A100 / H100 DGX, and Azure's pairwise-NVLink A100 PCIe 80GB node).
Node node_from_path(const std::string& file) {
  const std::filesystem::path p(file);
  for (const auto& part : p) {
    const std::string d = part.string();
    if (d == "A100" || d == "a100_dgx") return {"a100-sxm4-80gb", "nvswitch"};
    if (d == "h100_dgx") return {"h100-sxm", "nvswitch"};
    // PipeWeave's H100 node holds 4 GPUs (max_devices_per_node 4): an HGX H100 4-GPU board, NVLink between every
    // pair and no NVSwitch, so a pair shares a third of each GPU's links (its 2-GPU all_reduce: ~115 GB/s busbw).
    if (d == "H100") return {"h100-sxm", "nvlink-4gpu"};
    if (d == "H20") return {"h20", "nvswitch"};
    if (d == "H800") return {"h800", "nvswitch"};
    if (d == "RTX 6000 Ada") return {"rtx-6000-ada", "pcie"};
    if (d == "RTX PRO 6000 S") return {"rtx-pro-6000-blackwell-server", "pcie"};
    if (d == "a100_pairwise_nvlink") return {"a100-pcie-80gb", "pairwise-nvlink"};
  }
  return {};
}

void read_collective(trace_io::LineReader& r, const std::vector<std::string>& hdr, const PublicImportContext& ctx,
                     PublicImport& out) {
  using namespace public_io;
  const std::string w0 = r.where();
  const bool send_recv = hdr.at(1).rfind("time_stats.send_recv.", 0) == 0;
  const std::string op = send_recv ? "send_recv" : "all_reduce";
  Node node = node_from_path(ctx.file);
  if (!ctx.gpu_override.empty()) node = {ctx.gpu_override, node.topology.empty() ? "nvswitch" : node.topology};
  if (node.gpu_key.empty())
    throw InputError(w0, "cannot tell the GPU from the path (expected a folder A100, H100, H20, H800, 'RTX 6000 Ada', "
                         "'RTX PRO 6000 S', a100_dgx, h100_dgx or a100_pairwise_nvlink); pass --gpu KEY");
  const std::filesystem::path p(ctx.file);
  if (node.topology == "pairwise-nvlink" || node.topology == "nvlink-4gpu") out.stem += "-" + node.topology;
  const std::string b = "time_stats." + op + ".";
  const size_t c_min = column(hdr, b + "min", w0), c_max = column(hdr, b + "max", w0),
               c_med = column(hdr, b + "median", w0), c_n = column(hdr, "num_workers", w0),
               c_size = column(hdr, "size", w0), c_coll = column(hdr, "collective", w0),
               c_dpn = column(hdr, "devices_per_node", w0);
  const std::map<std::string, std::string> meta = {
      {"timing",
       "NCCL kernel time from the torch profiler (Vidur CudaTimer), median of 3 runs x 11 launches, "
       "ms -> us; p10/p90 hold min/max"},
      {"kernel", "NCCL " + op + " (torch.distributed, float16 buffer, default algorithm and protocol)"},
      {"dtype", "fp16"},
      {"topology", node.topology},
      {"repository",
       out.source == "vidur" ? "github.com/microsoft/vidur (MIT)" : "github.com/zksainx/pipeweave (Apache-2.0)"}};
  for_each_row(r, hdr.size(), out, [&](const std::vector<std::string>& f, const std::string& where) {
    if (f[c_coll] != op)
      throw InputError(where, "collective '" + f[c_coll].substr(0, 40) + "' in a " + op + " file; fix the row");
    const int64_t n = positive_int(f[c_n], "num_workers", where),
                  dpn = positive_int(f[c_dpn], "devices_per_node", where);
    const int64_t bytes = positive_int(f[c_size], "size", where);
    const double med_us = positive_number(f[c_med], b + "median", where) * 1e3;
    const double lo_us = positive_number(f[c_min], b + "min", where) * 1e3,
                 hi_us = positive_number(f[c_max], b + "max", where) * 1e3;
    if (lo_us > med_us * (1 + 1e-9) || med_us > hi_us * (1 + 1e-9))
      throw InputError(where, "min <= median <= max does not hold; fix the row");
    if (send_recv && n != 2)
      throw InputError(where,
                       "num_workers=" + f[c_n] + " in a send_recv file (one sender, one receiver: 2); fix the row");
    if (n > dpn) {
      ++out.skipped[op + " across nodes (loom models one node)"];
      return;
    }
    if (n < 2) {  // one worker communicates nothing: a kernel spec loom refuses (gpus >= 2)
      ++out.skipped[op + " of one GPU (nothing to communicate)"];
      return;
    }
    CorpusRow row;
    row.case_id = r.line_no();
    row.family = op;
    row.impl = "nccl";
    row.spec = op + " bytes=" + std::to_string(bytes) + (send_recv ? "" : " gpus=" + std::to_string(n));
    row.kernels = send_recv ? "ncclDevKernel_SendRecv" : "ncclDevKernel_AllReduce_Sum_f16";
    row.reps = 3;
    row.median_us = row.event_median_us = med_us;
    row.p10_us = lo_us;
    row.p90_us = hi_us;
    row.spread_pct = (hi_us - lo_us) / med_us * 100.0;
    Corpus& c = out.corpus_for(node.gpu_key, node.gpu_key, ctx, meta);
    out.add(c, std::move(row), where);
  });
}

bool collective_header(const std::vector<std::string>& h) {
  return h.size() >= 12 && h[0].empty() &&
         (h[1] == "time_stats.all_reduce.min" || h[1] == "time_stats.send_recv.min");
}

// loom's own collective sweep (scripts/torch/collectives.py: one row per op, impl, dtype, size and rank; three run
// medians in us, each the median of 11 back-to-back launches' kernel times from the torch profiler). Rank 0's rows
// are imported: NCCL all_reduce as `all_reduce bytes=B gpus=N` (impl nccl; the first dtype of a size is kept, fp16
// and bf16 measure alike), the symmetric-memory one-shot / two-shot all-reduce as impl custom, keeping the faster of
// the two per size (the engines pick by size). all_gather / reduce_scatter -> `all_gather|reduce_scatter bytes=B
// gpus=N` (bytes: the whole gathered tensor); send_recv (rank 0 sends to rank 1) -> `send_recv bytes=B`.
void read_loom_collective(trace_io::LineReader& r, const std::vector<std::string>& hdr, const PublicImportContext& ctx,
                          PublicImport& out) {
  using namespace public_io;
  const std::string w0 = r.where();
  if (ctx.gpu_override.empty())
    throw InputError(w0, "a collectives.py file does not name its GPU; pass --gpu KEY (e.g. --gpu h200)");
  const size_t c_op = column(hdr, "op", w0), c_impl = column(hdr, "impl", w0), c_dt = column(hdr, "dtype", w0),
               c_b = column(hdr, "bytes", w0),
               c_g = column(hdr, "gpus", w0), c_rank = column(hdr, "rank", w0), c_k = column(hdr, "kernel", w0);
  const size_t c_run[3] = {column(hdr, "run1_us", w0), column(hdr, "run2_us", w0), column(hdr, "run3_us", w0)};
  // collectives-collect.sh writes the NCCL_P2P_DISABLE=1 sweep into a folder ending in -nop2p: NCCL's bytes then go
  // through host memory over PCIe, not over the node's NVLink ("pcie-nop2p").
  bool nop2p = false;
  for (const auto& part : std::filesystem::path(ctx.file)) {
    const std::string d = part.string();
    nop2p = nop2p || (d.size() > 6 && d.compare(d.size() - 6, 6, "-nop2p") == 0);
  }
  // NCCL's log of the sweep (collectives-collect.sh writes nccl-info.txt beside the rank files) tells whether NVLS
  // (NVLink SHARP: the NVSwitch reduces in the fabric; NCCL's default on Hopper NVSwitch nodes of more than 2 GPUs)
  // was off, as on the lent machines (NVLink multicast off, NCCL_NVLS_ENABLE=0): a ring-only NVSwitch node.
  bool nvls_off = false;
  const auto info = std::filesystem::path(ctx.file).parent_path() / "nccl-info.txt";
  std::error_code ec;
  if (!nop2p && std::filesystem::is_regular_file(info, ec)) {
    std::ifstream in(info);
    std::stringstream text;
    text << in.rdbuf();
    const std::string t = text.str();
    nvls_off = t.find("NCCL_NVLS_ENABLE set by environment to 0") != std::string::npos ||
               t.find("NVLS multicast support is not available") != std::string::npos;
  }
  const std::map<std::string, std::string> meta = {
      {"timing", "kernel time from the torch profiler (CUPTI activity records): per run the median of 11 back-to-back "
                 "launches behind a GPU spin; median of 3 runs; p10/p90 hold min/max"},
      {"kernel", "NCCL all_reduce (impl nccl), all_gather, reduce_scatter, send_recv, and torch.ops.symm_mem "
                 "one_shot/two_shot all_reduce (impl custom: the faster of the two per size)"},
      {"topology", nop2p ? "pcie-nop2p" : nvls_off ? "nvswitch-nvls-off" : "nvswitch"},
      {"repository", "this project: scripts/torch/collectives.py (scripts/collectives-collect.sh)"}};
  std::map<int64_t, CorpusRow> custom;  // bytes -> the faster custom row
  int64_t gpus = 0;
  for_each_row(r, hdr.size(), out, [&](const std::vector<std::string>& f, const std::string& where) {
    const std::string& op = f[c_op];
    const std::string& impl = f[c_impl];
    const int64_t bytes = positive_int(f[c_b], "bytes", where), g = positive_int(f[c_g], "gpus", where);
    if (g < 2 || g > 64) throw InputError(where, "gpus=" + f[c_g] + " is not 2..64; fix the row");
    if (f[c_rank] != "0" && positive_int(f[c_rank], "rank", where) >= g)
      throw InputError(where, "rank " + f[c_rank] + " is not below gpus=" + f[c_g] + "; fix the row");
    double runs[3];
    for (int i = 0; i < 3; ++i) runs[i] = positive_number(f[c_run[i]], "run" + std::to_string(i + 1) + "_us", where);
    std::sort(runs, runs + 3);
    if (!is_collective(op))
      throw InputError(where,
                       "op '" + op.substr(0, 40) + "' is not all_reduce, all_gather, reduce_scatter or send_recv");
    if (impl != "nccl" && impl != "one_shot" && impl != "two_shot")
      throw InputError(where, "impl '" + impl.substr(0, 40) + "' is not nccl, one_shot or two_shot");
    if (impl != "nccl" && op != "all_reduce")
      throw InputError(where, "impl '" + impl + "' is an all_reduce kernel, not " + op + "; fix the row");
    if (op == "send_recv" && g != 2)
      throw InputError(where, "send_recv with gpus=" + f[c_g] + " (one sender, one receiver: 2); fix the row");
    if (f[c_dt] != "float16" && f[c_dt] != "bfloat16" && f[c_dt] != "float32")
      throw InputError(where, "dtype '" + f[c_dt].substr(0, 40) + "' is not float16, bfloat16 or float32; fix the row");
    for (unsigned char ch : f[c_k])
      if (ch < 0x20 || ch == 0x7f) throw InputError(where, "kernel name holds a control byte; fix the row");
    gpus = std::max(gpus, g);
    if (f[c_rank] != "0") {
      ++out.skipped["rank > 0 (rank 0's times are imported)"];
      return;
    }
    CorpusRow row;
    row.case_id = r.line_no();
    row.family = op;
    row.impl = impl == "nccl" ? "nccl" : "custom";
    row.spec = op + " bytes=" + std::to_string(bytes) + (op == "send_recv" ? "" : " gpus=" + std::to_string(g)) +
               (impl == "nccl" ? "" : " impl=custom");
    row.kernels = f[c_k].substr(0, 200);
    for (char& ch : row.kernels)
      if (ch == ',' || ch == ';' || ch == '"') ch = ' ';
    row.reps = 3;
    row.median_us = row.event_median_us = runs[1];
    row.p10_us = runs[0], row.p90_us = runs[2];
    row.spread_pct = (runs[2] - runs[0]) / runs[1] * 100.0;
    if (impl == "nccl") {
      out.add(out.corpus_for(ctx.gpu_override, ctx.gpu_override, ctx, meta), std::move(row), where);
    } else {
      auto it = custom.find(bytes);
      if (it == custom.end() || row.median_us < it->second.median_us) custom[bytes] = std::move(row);
      else ++out.skipped["custom all_reduce: the slower of one-shot/two-shot at that size"];
    }
  });
  for (auto& [_, row] : custom) {
    const std::string where = ctx.file + ":" + std::to_string(row.case_id);  // case_id: the row's line
    out.add(out.corpus_for(ctx.gpu_override, ctx.gpu_override, ctx, meta), std::move(row), where);
  }
  out.stem = "collectives-" + std::to_string(gpus) + "gpu" + (nop2p ? "-nop2p" : "");
}

bool loom_collective_header(const std::vector<std::string>& h) {
  return h.size() >= 10 && h[0] == "op" && h[1] == "impl" && h[2] == "dtype" && h[3] == "bytes";
}

}  // namespace

PublicFormat vidur_collective_format() {
  return {"vidur", "vidur-collective", ",time_stats.all_reduce.min,... (or send_recv)", collective_header,
          read_collective};
}

PublicFormat loom_collective_format() {
  return {"loom", "loom-collective", "op,impl,dtype,bytes,gpus,rank,run1_us,... (scripts/torch/collectives.py)",
          loom_collective_header, read_loom_collective};
}

PublicFormat pipeweave_collective_format() {
  return {"pipeweave", "pipeweave-collective", ",time_stats.all_reduce.min,... (or send_recv)", collective_header,
          read_collective};
}

}  // namespace loom
