// Vidur MLP-block profiles (microsoft/vidur, data/profiling/compute/<gpu>/<org>/<model>/mlp.csv): each row times
// every op of one transformer layer (sarathi layers, fp16, one TP shard) for num_tokens tokens with Vidur's
// CudaTimer (torch profiler kernel time, ms; min/max/mean/median/std over repeats). Each op becomes a loom kernel:
// attn_pre_proj/attn_post_proj/mlp_up_proj/mlp_down_proj -> gemm, mlp_act -> elementwise silu_mul (gated) or gelu,
// input/post_attention_layernorm -> rms_norm (gated models: RMSNorm) or layer_norm, attn_rope -> rotary over the
// shard's q and k heads, add -> elementwise add. The GPU comes from the path (compute/a100 -> a100-sxm4-80gb) or --gpu.
// Which code ran (vidur/profiling/mlp/mlp_impl.py at 7d475133 builds sarathi-serve's layers): sarathi's RMSNorm,
// get_rope and SiluAndMul call its vLLM-derived CUDA kernels (layernorm_ops.rms_norm,
// pos_encoding_ops.rotary_embedding, activation_ops.silu_and_mul), the engines' fused kernels: impl=fused (their own
// forests, beside the serving traces' Triton ones). torch.nn.LayerNorm and GELU (phi-2) and the residual add are
// PyTorch's: impl=torch.
#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "core/error.h"
#include "trace/import_public.h"

namespace loom {
namespace {

// Vidur's profiling GPUs (its README: A100 80GB and H100 80GB DGX nodes, A40 with pairwise NVLink).
std::string gpu_from_path(const std::string& file) {
  const std::filesystem::path p(file);
  std::string prev;
  for (const auto& part : p) {
    if (prev == "compute") {
      const std::string g = part.string();
      if (g == "a100") return "a100-sxm4-80gb";
      if (g == "h100") return "h100-sxm";
      if (g == "a40") return "a40";
    }
    prev = part.string();
  }
  return "";
}

const char* const kOps[] = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj",   "mlp_down_proj", "mlp_act",
                            "input_layernorm", "post_attention_layernorm", "attn_rope", "add", "emb"};

void read_vidur(trace_io::LineReader& r, const std::vector<std::string>& hdr, const PublicImportContext& ctx,
                PublicImport& out) {
  using namespace public_io;
  const std::string w0 = r.where();
  const std::string key = !ctx.gpu_override.empty() ? ctx.gpu_override : gpu_from_path(ctx.file);
  if (key.empty())
    throw InputError(w0, "cannot tell the GPU from the path (expected .../compute/a100|a40|h100/...); pass --gpu KEY");
  const std::filesystem::path p(ctx.file);
  if (p.has_parent_path()) out.stem = p.parent_path().filename().string() + "-" + out.stem;
  const size_t c_head = column(hdr, "n_head", w0), c_kv = column(hdr, "n_kv_head", w0),
               c_embd = column(hdr, "n_embd", w0), c_exp = column(hdr, "n_expanded_embd", w0),
               c_gated = column(hdr, "use_gated_mlp", w0), c_tok = column(hdr, "num_tokens", w0),
               c_tp = column(hdr, "num_tensor_parallel_workers", w0);
  struct OpCols { std::string op; size_t min, max, median; };
  std::vector<OpCols> ops;
  for (const char* op : kOps) {
    // Models without an op have no columns for it (phi-2: no post_attention_layernorm); the projections must exist.
    const std::string b = std::string("time_stats.") + op + ".";
    if (std::find(hdr.begin(), hdr.end(), b + "median") == hdr.end() &&
        std::string(op).find("proj") == std::string::npos)
      continue;
    ops.push_back({op, column(hdr, b + "min", w0), column(hdr, b + "max", w0), column(hdr, b + "median", w0)});
  }
  const std::map<std::string, std::string> meta = {
      {"timing", "Vidur CudaTimer (torch profiler kernel time) per op, median over repeats; p10/p90 hold min/max"},
      {"l2", "warm"},
      // Vidur's CSVs hold milliseconds with three decimals: every time is a whole microsecond.
      {"resolution_us", "1"},
      {"repository", "github.com/microsoft/vidur (MIT)"}};
  for_each_row(r, hdr.size(), out, [&](const std::vector<std::string>& f, const std::string& where) {
    const int64_t heads = positive_int(f[c_head], "n_head", where), kv = positive_int(f[c_kv], "n_kv_head", where),
                  embd = positive_int(f[c_embd], "n_embd", where),
                  exp = positive_int(f[c_exp], "n_expanded_embd", where),
                  tokens = positive_int(f[c_tok], "num_tokens", where),
                  tp = positive_int(f[c_tp], "num_tensor_parallel_workers", where);
    const bool gated = boolean(f[c_gated], "use_gated_mlp", where);
    if (embd % heads || heads % tp || exp % tp)
      throw InputError(where, "n_embd/n_head/n_expanded_embd do not divide evenly by heads and TP workers");
    const int64_t hd = embd / heads, h_tp = heads / tp, kv_tp = std::max<int64_t>(1, kv / tp), e_tp = exp / tp;
    const std::string T = std::to_string(tokens);
    auto gemm = [&](int64_t n, int64_t k) {
      return "gemm m=" + T + " n=" + std::to_string(n) + " k=" + std::to_string(k) + " dtype=fp16";
    };
    const std::string norm = gated ? "rms_norm" : "layer_norm";
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto& o = ops[i];
      CorpusRow row;
      row.case_id = r.line_no() * 16 + int64_t(i);
      row.impl = "torch";
      // The projections are nn.Linear-style cuBLAS GEMMs; sarathi's own kernels are fused (header); the rest PyTorch's.
      if (o.op.find("proj") != std::string::npos) row.impl = "cublas";
      const bool fused =
          o.op == "attn_rope" || (gated && (o.op == "mlp_act" || o.op.find("layernorm") != std::string::npos));
      if (fused) row.impl = "fused";
      if (o.op == "attn_pre_proj")
        row.family = "gemm", row.spec = gemm((h_tp + 2 * kv_tp) * hd, embd);
      else if (o.op == "attn_post_proj")
        row.family = "gemm", row.spec = gemm(embd, h_tp * hd);
      else if (o.op == "mlp_up_proj")
        row.family = "gemm", row.spec = gemm((gated ? 2 : 1) * e_tp, embd);
      else if (o.op == "mlp_down_proj")
        row.family = "gemm", row.spec = gemm(embd, e_tp);
      else if (o.op == "mlp_act")
        row.family = "elementwise",
        row.spec = "elementwise op=" + std::string(gated ? "silu_mul" : "gelu") + " rows=" + T + " cols=" +
                   std::to_string(e_tp) + " dtype=fp16" + (fused ? " impl=fused" : "");
      else if (o.op == "attn_rope")
        row.family = "rotary", row.spec = "rotary tokens=" + T + " heads=" + std::to_string(h_tp) +
                                          " kv_heads=" + std::to_string(kv_tp) + " head_dim=" + std::to_string(hd) +
                                          " dtype=fp16 impl=fused";
      else if (o.op == "add")
        row.family = "elementwise", row.spec = "elementwise op=add rows=" + T + " cols=" + std::to_string(embd) +
                                               " dtype=fp16";
      else if (o.op == "emb") {
        // Not imported, but read: a negative or unit-suffixed time in its columns was taken without a word.
        if (!f[o.median].empty() && f[o.median] != "nan" && f[o.median] != "NaN")
          for (size_t c : {o.min, o.max, o.median}) positive_number(f[c], hdr[c], where);
        ++out.skipped["Vidur op 'emb' (embedding gather) has no loom family"];
        continue;
      } else
        row.family = norm, row.spec = norm + " rows=" + T + " cols=" + std::to_string(embd) + " dtype=fp16" +
                                      (fused ? " impl=fused" : "");
      if (f[o.median].empty() || f[o.median] == "nan" || f[o.median] == "NaN") {
        ++out.skipped["Vidur op '" + o.op + "' not timed for this model (empty)"];
        continue;
      }
      const double med = positive_number(f[o.median], "time_stats." + o.op + ".median", where) * 1000.0;
      const double lo = positive_number(f[o.min], "time_stats." + o.op + ".min", where) * 1000.0;
      const double hi = positive_number(f[o.max], "time_stats." + o.op + ".max", where) * 1000.0;
      if (lo > med || med > hi) throw InputError(where, "time_stats." + o.op + ": min <= median <= max does not hold");
      row.kernels = "vidur:" + o.op;
      row.reps = 1;  // Vidur does not record its repeat count
      row.median_us = med, row.p10_us = lo, row.p90_us = hi;
      row.spread_pct = 100.0 * (hi - lo) / med;
      row.event_median_us = med;
      Corpus& c = out.corpus_for(key, "vidur:" + key, ctx, meta);
      out.add(c, std::move(row), where);
    }
  });
}

}  // namespace

PublicFormat vidur_mlp_format() {
  return {"vidur", "vidur-mlp", "time_stats.emb.min,...,n_head,n_kv_head,n_embd,...,num_tensor_parallel_workers",
          [](const std::vector<std::string>& h) { return !h.empty() && h[0].rfind("time_stats.", 0) == 0; },
          read_vidur};
}

}  // namespace loom
