// Corpus and .lct summaries (summary.h).
#include "trace/summary.h"

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <unordered_map>

#include "core/error.h"
#include "trace/import.h"
#include "trace/kernel_names.h"
#include "trace/text_io.h"
#include "trace/trace.h"

namespace loom {
namespace {

std::vector<std::string> split_kernels(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t p = s.find(';', start);
    std::string n = s.substr(start, p == std::string::npos ? std::string::npos : p - start);
    if (!n.empty()) out.push_back(n);
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

}  // namespace

TraceSummary summarize(const std::vector<Corpus>& corpora, const GpuNameTable& gpus) {
  TraceSummary s;
  std::map<std::tuple<std::string, int64_t, std::string>, int64_t> counts;  // (gpu_key, sms, family) -> cases
  std::map<std::string, std::vector<double>> spreads;
  std::unordered_map<std::string, bool> known;  // kernel name -> classified
  for (const auto& co : corpora) {
    std::string key = co.gpu_key;
    if (key.empty()) key = gpus.key_for(co.gpu).value_or("");
    if (key.empty()) {
      s.skipped.push_back({co.path, "unknown GPU '" + co.gpu + "'; add a line to " +
                                        (gpus.path().empty() ? std::string("traces/gpu_names.tsv") : gpus.path())});
      continue;
    }
    ++s.files;
    s.skipped_records += co.skipped_records;
    for (const auto& r : co.rows) {
      ++s.total_cases;
      ++counts[{key, co.sms, r.family}];
      spreads[r.family].push_back(r.spread_pct);
      for (const auto& name : split_kernels(r.kernels)) {
        ++s.kernels_total;
        auto [it, fresh] = known.try_emplace(name, false);
        if (fresh) it->second = classify_kernel(name).known();
        if (!it->second) {
          ++s.unmatched_kernels;
          ++s.unmatched_names[name];
        }
      }
    }
  }
  for (const auto& [k, n] : counts) s.counts.push_back({std::get<2>(k), std::get<0>(k), std::get<1>(k), n});
  for (const auto& [fam, v] : spreads)
    s.noise.push_back({fam, int64_t(v.size()), quantile(v, 0.5), quantile(v, 0.9)});
  return s;
}

namespace {

/// Each X.cases.csv below `dir` with its collector trace X.lct.gz or X.lct beside it (a sweep not yet imported).
std::vector<std::pair<std::string, std::string>> find_unimported_runs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string p = it->path().string();
    std::error_code probe;  // a missing file is an answer, not the walk's error
    if (!it->is_regular_file(probe) || !trace_io::ends_with(p, ".cases.csv")) continue;
    const std::string stem = p.substr(0, p.size() - std::string(".cases.csv").size());
    for (const char* ext : {".lct.gz", ".lct"})
      if (fs::is_regular_file(stem + ext, probe)) {
        out.emplace_back(p, stem + ext);
        break;
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TraceSummary summarize_dir(const std::string& dir, const GpuNameTable& gpus, const ReadOptions& opts) {
  std::vector<Corpus> corpora;
  std::vector<SkippedFile> bad;
  for (const auto& p : find_corpus_files(dir)) {
    try {
      corpora.push_back(read_corpus(p, opts));
    } catch (const InputError& e) {
      if (!opts.lenient) throw;
      bad.push_back({p, e.what()});
    }
  }
  // A folder of sweeps not yet imported (case lists and their .lct, no corpus): each pair joined in memory as
  // `trace import` would (it was "no traces here", though that message names the pair).
  if (corpora.empty() && bad.empty())
    for (const auto& [cases, lct] : find_unimported_runs(dir)) {
      try {
        JoinStats stats;
        corpora.push_back(join_traces({read_lct(lct, opts)}, {read_case_list(cases, opts)}, gpus, stats));
      } catch (const InputError& e) {
        if (!opts.lenient) throw;
        bad.push_back({cases, e.what()});
      }
    }
  TraceSummary s = summarize(corpora, gpus);
  s.skipped.insert(s.skipped.end(), bad.begin(), bad.end());
  return s;
}

LctSummary summarize_lct(const LctTrace& t) {
  LctSummary s;
  s.path = t.path;
  s.meta = t.meta;
  s.records = t.records;
  s.dropped = t.dropped;
  s.skipped_records = t.skipped_records;
  s.messages = t.messages;
  s.kernels = int64_t(t.kernels.size());
  for (const auto& m : t.memops) ++(m.is_memset ? s.memsets : s.memcpys);
  s.ranges = int64_t(t.ranges.size());
  for (const auto& r : t.ranges) {
    if (r.name == "loom.rep") ++s.rep_ranges;
    if (r.name.rfind("loom.case=", 0) == 0) ++s.case_ranges;
  }
  std::unordered_map<std::string, std::string> family_of;
  for (const auto& k : t.kernels) {
    auto [it, fresh] = family_of.try_emplace(k.name);
    if (fresh) it->second = classify_kernel(k.name).family;
    ++s.family_kernels[it->second];
    if (it->second == "unknown") ++s.unmatched_kernels;
    if (it->second == "l2_flush") ++s.flush_kernels;
  }
  return s;
}

LctSummary summarize_lct(const std::string& path, const ReadOptions& opts) {
  return summarize_lct(read_lct(path, opts));
}

}  // namespace loom
