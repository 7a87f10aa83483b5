// PipeWeave's fp8 GEMM sets (zksainx/pipeweave, dataset/gemm_fp8_{train,test}.csv, Apache-2.0): vLLM's CUTLASS
// 3.x w8a8 scaled GEMM (cutlass_scaled_mm, per-token x per-channel scales, bf16 out), one mean duration (us) per
// shape and GPU. Each row -> `gemm m=M n=N k=K dtype=fp8 scales=rowwise impl=cutlass`. The rows carry the data set's
// own protocol (corpus `#dataset=pipeweave-gemm-fp8`, `#dataset_split=train|test` from the file name): `loom
// validate` trains its dataset: split on the train rows only and tests the test rows (held-out shapes on H20 and
// H800, every shape on H100 and H200). PipeWeave's own analytical feature columns are ignored.
#include <filesystem>
#include <optional>

#include "core/error.h"
#include "trace/import_public.h"

namespace loom {
namespace {

/// The catalogue key of PipeWeave's `hardware` column ("NVIDIA H100" is its SXM H100: 132 SMs and 3.35 TB/s in
/// its hardware/H100.json), else traces/gpu_names.tsv.
/// --gpu names a device the table does not know; it does not relabel one the column names (an H100's rows filed as an
/// H200's with --gpu h200 were silently kept as the H100's: --gpu was ignored; round 14).
std::string gpu_key(const PublicImportContext& ctx, const std::string& hw, const std::string& where) {
  std::optional<std::string> key;
  if (hw == "NVIDIA H100") key = "h100-sxm";
  else if (ctx.names) key = ctx.names->key_for(hw);
  if (key && !ctx.gpu_override.empty() && *key != ctx.gpu_override)
    throw InputError(where, "hardware '" + hw.substr(0, 60) + "' is " + *key + ", not --gpu " + ctx.gpu_override +
                                "; drop --gpu (the hardware column names the GPU)");
  if (key) return *key;
  if (!ctx.gpu_override.empty()) return ctx.gpu_override;
  throw InputError(where, "hardware '" + hw.substr(0, 60) +
                              "' is not in traces/gpu_names.tsv; add a line for it or pass --gpu KEY");
}

void read_fp8(trace_io::LineReader& r, const std::vector<std::string>& hdr, const PublicImportContext& ctx,
              PublicImport& out) {
  using namespace public_io;
  const std::string w0 = r.where();
  const std::string base = std::filesystem::path(ctx.file).filename().string();
  const bool train = base.find("train") != std::string::npos, test = base.find("test") != std::string::npos;
  if (train == test)
    throw InputError(w0, "cannot tell from the file name whether it is PipeWeave's train or test set "
                         "(gemm_fp8_train.csv / gemm_fp8_test.csv); rename it");
  const size_t c_m = column(hdr, "M", w0), c_n = column(hdr, "N", w0), c_k = column(hdr, "K", w0),
               c_d = column(hdr, "avg_duration", w0), c_hw = column(hdr, "hardware", w0);
  const std::map<std::string, std::string> meta = {
      {"dataset", "pipeweave-gemm-fp8"},
      {"dataset_split", train ? "train" : "test"},
      {"timing",
       "PipeWeave gemm_fp8 set: avg_duration (us), the mean of its runs; repetitions and spread not published"},
      {"kernel", "vLLM cutlass_scaled_mm (CUTLASS 3.x sm90 w8a8 fp8, per-token x per-channel scales)"},
      {"repository", "github.com/zksainx/pipeweave (Apache-2.0)"}};
  for_each_row(r, hdr.size(), out, [&](const std::vector<std::string>& f, const std::string& where) {
    auto I = [&](size_t c, const char* n) { return std::to_string(positive_int(f[c], n, where)); };
    CorpusRow row;
    row.case_id = r.line_no();
    row.family = "gemm";
    row.impl = "cutlass";
    row.spec =
        "gemm m=" + I(c_m, "M") + " n=" + I(c_n, "N") + " k=" + I(c_k, "K") + " dtype=fp8 scales=rowwise impl=cutlass";
    const double us = positive_number(f[c_d], "avg_duration", where);
    row.kernels = "cutlass_scaled_mm";
    row.reps = 1;
    row.median_us = row.p10_us = row.p90_us = row.event_median_us = us;  // a mean: no spread recorded
    row.spread_pct = 0;
    const std::string& hw = f[c_hw];
    Corpus& c = out.corpus_for(gpu_key(ctx, hw, where), hw, ctx, meta);
    out.add(c, std::move(row), where);
  });
}

}  // namespace

PublicFormat pipeweave_fp8_format() {
  return {"pipeweave", "pipeweave-gemm-fp8", "M,N,K,avg_duration,hardware,...",
          [](const std::vector<std::string>& h) {
            return h.size() >= 5 && h[0] == "M" && h[1] == "N" && h[2] == "K" && h[3] == "avg_duration" &&
                   h[4] == "hardware";
          },
          read_fp8};
}

}  // namespace loom
