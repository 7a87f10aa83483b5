// Public per-kernel measurements -> loom corpus files. Today: PipeWeave's fp8 GEMM sets (zksainx/pipeweave,
// dataset/gemm_fp8_{train,test}.csv, Apache-2.0): vLLM's CUTLASS w8a8 scaled GEMM with per-token x per-channel
// scales, one mean duration per shape and GPU. Provenance: traces/README.md ("Public data").
#include "trace/import_public.h"

#include <cmath>
#include <map>
#include <set>

#include "core/error.h"
#include "trace/gpu_names.h"
#include "trace/text_io.h"

namespace loom {
namespace {

/// Columns a PipeWeave fp8 GEMM file must have (it has more: its own analytical features, which loom ignores).
const std::vector<std::string> kPipeweaveFp8Cols = {"M", "N", "K", "avg_duration", "hardware"};

std::string infer_split(const std::string& path, const std::string& split) {
  if (!split.empty()) return split;
  const std::string base = path.substr(path.find_last_of('/') + 1);
  const bool train = base.find("train") != std::string::npos, test = base.find("test") != std::string::npos;
  if (train == test)
    throw InputError(path, "cannot tell from the file name whether it is a train or test set; pass --split train|test");
  return train ? "train" : "test";
}

/// The catalogue key of PipeWeave's `hardware` column ("NVIDIA H100" is PipeWeave's SXM H100: 132 SMs, 3.35 TB/s in
/// its hardware/H100.json).
std::string pipeweave_gpu(const GpuNameTable& names, const std::string& hw, const std::string& where) {
  static const std::map<std::string, std::string> own = {{"NVIDIA H100", "h100-sxm"}};
  if (auto it = own.find(hw); it != own.end()) return it->second;
  if (auto k = names.key_for(hw)) return *k;
  throw InputError(where, "field hardware: GPU '" + hw + "' is not in traces/gpu_names.tsv; add a line for it");
}

void read_pipeweave_fp8(const std::string& path, const std::string& text, const std::vector<std::string>& header,
                        const std::string& split, std::map<std::string, Corpus>& by_gpu, size_t& rows) {
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i)
    if (!col.emplace(header[i], i).second) throw InputError(path + ":1", "duplicate column '" + header[i] + "'");
  const GpuNameTable names = GpuNameTable::load_default();
  std::set<std::string> seen;
  size_t pos = text.find('\n') + 1, line_no = 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    const std::vector<std::string> f = trace_io::split_csv(line, where);
    if (f.size() != header.size())
      throw InputError(where, std::to_string(f.size()) + " fields, the header has " + std::to_string(header.size()));
    auto size = [&](const char* name) {
      auto v = trace_io::parse_i64(f[col.at(name)]);
      if (!v || *v <= 0 || *v > (int64_t{1} << 24))
        throw InputError(where, std::string("field ") + name + ": '" + f[col.at(name)] +
                                    "' is not a positive integer up to 2^24");
      return *v;
    };
    const int64_t m = size("M"), n = size("N"), k = size("K");
    auto us = trace_io::parse_f64(f[col.at("avg_duration")]);
    if (!us || !std::isfinite(*us) || *us <= 0 || *us > 1e7)
      throw InputError(where, "field avg_duration: '" + f[col.at("avg_duration")] +
                                  "' is not a duration in microseconds (> 0, finite)");
    const std::string& hw = f[col.at("hardware")];
    const std::string key = pipeweave_gpu(names, hw, where);
    const std::string spec = "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                             " dtype=fp8 scales=rowwise impl=cutlass";
    if (!seen.insert(key + "|" + spec).second)
      throw InputError(where, "duplicate row: " + spec + " on " + hw + " appears twice in this file");
    Corpus& co = by_gpu[key + "/" + split];
    if (co.rows.empty()) {
      co.gpu = hw, co.gpu_key = key;
      co.meta["dataset"] = "pipeweave-gemm-fp8";
      co.meta["dataset_split"] = split;
      co.meta["source"] = "github.com/zksainx/pipeweave " + path.substr(path.find_last_of('/') + 1) +
                          " (Apache-2.0); see traces/README.md";
      co.meta["statistic"] = "PipeWeave's avg_duration (mean of its runs); reps and spread not published";
      co.meta["kernel"] = "vLLM cutlass_scaled_mm (CUTLASS 3.x sm90 w8a8 fp8, per-token x per-channel scales)";
    }
    CorpusRow r;
    r.case_id = static_cast<int64_t>(co.rows.size()) + 1;
    r.family = "gemm", r.spec = spec, r.impl = "cutlass";
    r.kernels = "cutlass_scaled_mm";
    r.reps = 1;
    r.median_us = r.p10_us = r.p90_us = *us;
    r.spread_pct = 0;
    r.event_median_us = NAN;
    co.rows.push_back(std::move(r));
    ++rows;
  }
}

void import_one(const std::string& path, std::string text, const std::string& split,
                std::map<std::string, Corpus>& by_gpu, PublicImport& out);

}  // namespace

const std::vector<std::string>& public_sources() {
  static const std::vector<std::string> s = {"pipeweave"};
  return s;
}

PublicImport import_public(const std::string& source, const std::vector<std::string>& files, const std::string& split) {
  if (source != "pipeweave")
    throw InputError("--from", "unknown public source '" + source + "'; supported: pipeweave");
  if (!split.empty() && split != "train" && split != "test")
    throw InputError("--split", "'" + split + "' is not a split; use train or test");
  PublicImport out;
  std::map<std::string, Corpus> by_gpu;
  for (const auto& path : files) import_one(path, trace_io::read_all(path, size_t(1) << 30), split, by_gpu, out);
  for (auto& [k, co] : by_gpu) out.corpora.push_back(std::move(co));
  return out;
}

PublicImport import_public_text(const std::string& name, std::string text, const std::string& split) {
  PublicImport out;
  std::map<std::string, Corpus> by_gpu;
  import_one(name, std::move(text), split, by_gpu, out);
  for (auto& [k, co] : by_gpu) out.corpora.push_back(std::move(co));
  return out;
}

namespace {

void import_one(const std::string& path, std::string text, const std::string& split,
                std::map<std::string, Corpus>& by_gpu, PublicImport& out) {
  {
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark
    const size_t eol = text.find('\n');
    std::string first = text.substr(0, eol);
    if (!first.empty() && first.back() == '\r') first.pop_back();
    const std::vector<std::string> header = trace_io::split_csv(first, path + ":1");
    bool fp8 = true;
    for (const auto& c : kPipeweaveFp8Cols) {
      bool found = false;
      for (const auto& h : header) found = found || h == c;
      fp8 = fp8 && found;
    }
    if (!fp8 || eol == std::string::npos)
      throw InputError(path + ":1", "not a PipeWeave file loom reads: expected a header with the columns "
                                    "M,N,K,avg_duration,hardware (dataset/gemm_fp8_{train,test}.csv)");
    read_pipeweave_fp8(path, text, header, infer_split(path, split), by_gpu, out.rows);
    out.format = "pipeweave-gemm-fp8";
  }
}

}  // namespace

}  // namespace loom
