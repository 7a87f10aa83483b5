// NeuSight per-op CSVs (sitar-lab/NeuSight, scripts/asplos/data/dataset/{train,test}/*.csv): PyTorch fp32 ops
// timed with CUDA events by neusight/Dataset/collect.py (25 warm runs, mean of the 5 fastest, in ms).
// Mapping (collect.py builds the inputs): bmm (B,M,N)x(B,N,K) -> gemm m=M n=K k=N batch=B; linear: input (B,M,N)
// through nn.Linear(N,K) -> gemm m=B*M n=K k=N; ln -> layer_norm, softmax -> softmax, add/mul/gelu ->
// elementwise, each rows=B cols=H. Ops loom has no family for (div, pow, tanh, relu, scalar variants) are counted.
#include <cstdint>

#include "core/error.h"
#include "trace/import_public.h"

namespace loom {
namespace {

struct Cols {
  size_t op, latency, device, kernel, gx, gy, gz, bx, by, bz;
  size_t kernels = SIZE_MAX;  // optional ";name;name" list
  size_t b = SIZE_MAX, m = SIZE_MAX, n = SIZE_MAX, k = SIZE_MAX, h = SIZE_MAX;
};

std::string elementwise_op(const std::string& op) {
  if (op == "add" || op == "mul" || op == "gelu") return op;
  return "";
}

void read_neusight(trace_io::LineReader& r, const std::vector<std::string>& hdr, const PublicImportContext& ctx,
                   PublicImport& out) {
  using namespace public_io;
  const std::string where0 = r.where();
  Cols c{column(hdr, "OPName", where0),  column(hdr, "Latency", where0), column(hdr, "Device", where0),
         column(hdr, "Kernel Name", where0), column(hdr, "Grid x", where0), column(hdr, "Grid y", where0),
         column(hdr, "Grid z", where0), column(hdr, "Block x", where0), column(hdr, "Block y", where0),
         column(hdr, "Block z", where0)};
  auto opt = [&](const char* n) {
    for (size_t i = 0; i < hdr.size(); ++i)
      if (hdr[i] == n) return i;
    return SIZE_MAX;
  };
  c.kernels = opt("Kernels");
  c.b = column(hdr, "B", where0);
  c.m = opt("M"), c.n = opt("N"), c.k = opt("K"), c.h = opt("H");
  const bool mm = c.m != SIZE_MAX && c.n != SIZE_MAX && c.k != SIZE_MAX;
  if (!mm && c.h == SIZE_MAX) throw InputError(where0, "NeuSight header has neither B,M,N,K (bmm/linear) nor B,H");
  const std::map<std::string, std::string> meta = {
      {"timing", "CUDA events around one PyTorch op, 25 warm runs, mean of the 5 fastest (NeuSight collect.py)"},
      {"l2", "warm"},
      {"repository", "github.com/sitar-lab/NeuSight (MIT)"}};
  for_each_row(r, hdr.size(), out, [&](const std::vector<std::string>& f, const std::string& where) {
    refuse_non_finite(f, hdr, where);  // unused columns too: NaN in "Warps per SM" was taken silently
    const std::string& op = f[c.op];
    const std::string& device = f[c.device];
    auto key = ctx.names->key_for(device);
    // --gpu names a device the table does not know; it does not relabel one the Device column names (a V100's
    // rows filed as an H200's were silently taken).
    if (!ctx.gpu_override.empty() && key && *key != ctx.gpu_override)
      throw InputError(where, "Device '" + device.substr(0, 60) + "' is " + *key + ", not --gpu " + ctx.gpu_override +
                                  "; drop --gpu (the Device column names the GPU)");
    if (!ctx.gpu_override.empty()) key = ctx.gpu_override;
    if (!key)
      throw InputError(where, "device '" + device.substr(0, 60) + "' is not in " + ctx.names->path() +
                                  "; add a line 'NAME<TAB>catalogue key' or pass --gpu KEY");
    const double ms = positive_number(f[c.latency], "Latency", where);
    CorpusRow row;
    row.case_id = r.line_no();
    row.impl = "torch";
    const int64_t b = positive_int(f[c.b], "B", where);
    if (op == "bmm" || op == "linear") {
      if (!mm) throw InputError(where, "op '" + op + "' needs columns M,N,K; this file has B,H");
      const int64_t m = positive_int(f[c.m], "M", where), n = positive_int(f[c.n], "N", where),
                    k = positive_int(f[c.k], "K", where);
      row.family = "gemm";
      row.impl = "cublas";  // torch.bmm / nn.Linear call cuBLAS (sgemm kernels in the Kernel Name column)
      row.spec = op == "bmm" ? "gemm m=" + std::to_string(m) + " n=" + std::to_string(k) + " k=" + std::to_string(n) +
                                   " dtype=fp32 batch=" + std::to_string(b)
                             : "gemm m=" + std::to_string(b * m) + " n=" + std::to_string(k) + " k=" +
                                   std::to_string(n) + " dtype=fp32";
    } else {
      if (c.h == SIZE_MAX) throw InputError(where, "op '" + op + "' needs column H; this file has B,M,N,K");
      const std::string rc = " rows=" + std::to_string(b) + " cols=" + std::to_string(positive_int(f[c.h], "H", where));
      if (op == "ln") row.family = "layer_norm", row.spec = "layer_norm" + rc + " dtype=fp32";
      else if (op == "softmax") row.family = "softmax", row.spec = "softmax" + rc + " dtype=fp32";
      else if (auto e = elementwise_op(op); !e.empty())
        row.family = "elementwise", row.spec = "elementwise op=" + e + rc + " dtype=fp32";
      else if (op == "addu" || op == "mulu" || op == "div" || op == "divu" || op == "pow" || op == "powu" ||
               op == "tanh" || op == "relu") {
        ++out.skipped["NeuSight op '" + op + "' has no loom elementwise op"];
        return;
      } else {
        throw InputError(where, "unknown NeuSight OPName '" + op.substr(0, 40) +
                                    "'; expected bmm, linear, ln, softmax or an elementwise op");
      }
    }
    row.grid = {positive_int(f[c.gx], "Grid x", where), positive_int(f[c.gy], "Grid y", where),
                positive_int(f[c.gz], "Grid z", where)};
    row.block = {positive_int(f[c.bx], "Block x", where), positive_int(f[c.by], "Block y", where),
                 positive_int(f[c.bz], "Block z", where)};
    row.kernels = c.kernels != SIZE_MAX && !f[c.kernels].empty() ? f[c.kernels] : f[c.kernel];
    if (!row.kernels.empty() && row.kernels[0] == ';') row.kernels.erase(0, 1);
    row.reps = 5;  // the mean of the 5 fastest of 25 runs
    row.median_us = row.p10_us = row.p90_us = ms * 1000.0;
    row.spread_pct = 0;  // NeuSight keeps no spread
    row.event_median_us = ms * 1000.0;
    Corpus& corpus = out.corpus_for(*key, device, ctx, meta);
    out.add(corpus, std::move(row), where);
  });
}

}  // namespace

PublicFormat neusight_format() {
  return {"neusight", "neusight-op", "OPName,Latency,Device,...,Kernel Name,...,B,(M,N,K|H)",
          [](const std::vector<std::string>& h) {
            return h.size() >= 4 && h[0] == "OPName" && h[1] == "Latency" && h[2] == "Device";
          },
          read_neusight};
}

}  // namespace loom
