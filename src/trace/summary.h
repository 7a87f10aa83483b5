// `loom trace summary`: what a corpus directory holds (cases per family x GPU x partition, noise floor per family,
// kernels no name rule recognises) and what a raw .lct holds (record counts, dropped records).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/gpu_names.h"
#include "trace/trace.h"

namespace loom {

struct FamilyCount {
  std::string family, gpu_key;
  int64_t sms = 0;
  int64_t cases = 0;
};

struct FamilyNoise {
  std::string family;
  int64_t cases = 0;
  double median_spread_pct = 0, p90_spread_pct = 0;  ///< over the family's cases (all GPUs)
};

struct SkippedFile {
  std::string path, reason;
};

struct TraceSummary {
  int64_t files = 0;        ///< corpus files read (not skipped)
  int64_t total_cases = 0;
  std::vector<FamilyCount> counts;  ///< sorted by gpu_key, sms, family
  std::vector<FamilyNoise> noise;   ///< sorted by family
  int64_t kernels_total = 0;        ///< kernel names over all rows (a row's `kernels` may hold several)
  int64_t unmatched_kernels = 0;    ///< of those, names classify_kernel() calls "unknown"
  std::map<std::string, int64_t> unmatched_names;  ///< unknown name -> occurrences
  std::vector<SkippedFile> skipped;  ///< unknown GPU, or unreadable file in lenient mode
  int64_t skipped_records = 0;       ///< bad rows skipped in lenient mode
};

/// Summarises corpora. A file whose GPU is in neither its gpu_key nor `gpus` is skipped and listed; with
/// opts.lenient a malformed file is skipped and listed too (otherwise its InputError propagates).
TraceSummary summarize(const std::vector<Corpus>& corpora, const GpuNameTable& gpus);
/// Reads every corpus file below `dir` and summarises it.
TraceSummary summarize_dir(const std::string& dir, const GpuNameTable& gpus, const ReadOptions& opts = {});

struct LctSummary {
  std::string path;
  std::map<std::string, std::string> meta;
  int64_t records = 0, kernels = 0, memcpys = 0, memsets = 0, ranges = 0;
  int64_t dropped = 0, skipped_records = 0;
  int64_t case_ranges = 0, rep_ranges = 0, flush_kernels = 0;
  int64_t unmatched_kernels = 0;  ///< kernel records whose name classify_kernel() calls "unknown"
  std::map<std::string, int64_t> family_kernels;  ///< family -> kernel records
  std::vector<std::string> messages;              ///< skipped-record messages (lenient)
};

/// Reads one .lct and counts what it holds. Throws InputError as read_lct does.
LctSummary summarize_lct(const std::string& path, const ReadOptions& opts = {});
LctSummary summarize_lct(const LctTrace& trace);

}  // namespace loom
