// The three trace files of traces/FORMAT.md as plain structs, and their readers/writer: collector output (.lct),
// sweep case lists (.cases.csv) and the corpus (.corpus.csv.gz). Readers accept plain or gzip text.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace loom {

/// How strictly readers treat a bad record in the middle of a file. Header problems, unknown schema versions and
/// truncated files are always errors; with `lenient`, a bad record is skipped and counted instead.
struct ReadOptions {
  bool lenient = false;
  size_t max_messages = 20;  ///< skipped-record messages kept (all are counted)
};

// ---- 1. collector output (.lct) ----

struct LctKernel {
  int64_t start_ns = 0, end_ns = 0;
  int64_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0, graph_node_id = 0;
  std::array<int64_t, 3> grid{}, block{};
  int64_t registers_per_thread = 0, static_smem_bytes = 0, dynamic_smem_bytes = 0;
  std::string name;  ///< mangled, as CUPTI gives it
  double duration_us() const { return double(end_ns - start_ns) * 1e-3; }
};

/// A memcpy (`C`) or memset (`S`) record.
struct LctMemOp {
  bool is_memset = false;
  int64_t start_ns = 0, end_ns = 0, device_id = 0, stream_id = 0, correlation_id = 0, bytes = 0;
  int64_t copy_kind = 0;  ///< CUPTI enum value; 0 for memsets
};

struct LctRange {
  int64_t start_ns = 0, end_ns = 0, range_id = 0;
  std::string name;
};

struct LctTrace {
  std::string path;
  std::map<std::string, std::string> meta;  ///< `#key=value` lines (gpu, sms, cc, clock_mhz, pid, command, ...)
  std::vector<LctKernel> kernels;           ///< in file order
  std::vector<LctMemOp> memops;
  std::vector<LctRange> ranges;
  int64_t records = 0;           ///< record lines read (including skipped ones)
  int64_t dropped = 0;           ///< CUPTI's dropped-record count from `#end`
  int64_t skipped_records = 0;   ///< bad records skipped (lenient reads only)
  std::vector<std::string> messages;  ///< first skipped-record messages, "FILE:LINE: what"
};

/// Reads a .lct file. Throws InputError("FILE:LINE", ...) on a missing/unknown header, unknown schema version,
/// missing `#end` (truncated), a record count that disagrees with `#end`, or (unless lenient) a bad record.
LctTrace read_lct(const std::string& path, const ReadOptions& opts = {});
/// Same, from text in memory (`name` appears in messages).
LctTrace parse_lct(std::string_view text, const std::string& name, const ReadOptions& opts = {});

// ---- 2. sweep case list (.cases.csv) ----

struct CaseRow {
  int64_t case_id = 0;
  std::string family, spec, impl;
  int64_t reps = 0;
  double event_median_us = 0, event_p10_us = 0, event_p90_us = 0;  ///< NaN when the column is empty
};

struct CaseList {
  std::string path;
  std::map<std::string, std::string> meta;  ///< gpu, sms, sms_total, driver, cuda, clock_mhz, date, command, tool
  std::vector<CaseRow> cases;               ///< in file order; case_id unique
  int64_t skipped_records = 0;
  std::vector<std::string> messages;
};

/// Reads a .cases.csv file. Throws InputError on a bad header, unknown version, missing columns, duplicate case
/// ids or (unless lenient) a bad row.
CaseList read_case_list(const std::string& path, const ReadOptions& opts = {});
CaseList parse_case_list(std::string_view text, const std::string& name, const ReadOptions& opts = {});

// ---- 3. corpus (.corpus.csv.gz) ----

struct CorpusRow {
  int64_t case_id = 0;
  std::string family, spec, impl;
  std::string kernels;  ///< demangled names of one repetition joined by ';'
  std::array<int64_t, 3> grid{}, block{};  ///< of the longest kernel
  int64_t regs = 0, smem_bytes = 0;        ///< of the longest kernel (static + dynamic shared memory)
  int64_t reps = 0;
  double median_us = 0, p10_us = 0, p90_us = 0, spread_pct = 0;
  double event_median_us = 0;  ///< the sweep's own CUDA-event median (NaN if it had none)
};

struct Corpus {
  std::string path;
  std::map<std::string, std::string> meta;  ///< as in the case list, plus gpu_key and sources
  std::string gpu;      ///< device name, e.g. "NVIDIA H200"
  std::string gpu_key;  ///< catalogue key, e.g. "h200" ("" when unknown)
  int64_t sms = 0;      ///< SMs in use (partition size)
  double clock_mhz = 0;
  double resolution_us = 0;  ///< the source's timing resolution (`#resolution_us`; 0 = finer than it matters)
  std::vector<CorpusRow> rows;
  int64_t skipped_records = 0;
  std::vector<std::string> messages;
};

/// Reads a corpus file (plain or gzip). Throws InputError on a bad header/version/columns or (unless lenient) a bad
/// row. gpu_key comes from the file; fill it from a GpuNameTable when it is empty.
Corpus read_corpus(const std::string& path, const ReadOptions& opts = {});
Corpus parse_corpus(std::string_view text, const std::string& name, const ReadOptions& opts = {});
/// Every *.corpus.csv(.gz) below `dir` (recursively), sorted by path.
std::vector<std::string> find_corpus_files(const std::string& dir);
/// Reads every corpus file below `dir` (see find_corpus_files).
std::vector<Corpus> read_corpus_dir(const std::string& dir, const ReadOptions& opts = {});
/// The corpus schema version loom writes (and the newest it reads): 2, kernel names in a `#kernel.<id>=` dictionary.
inline constexpr int kCorpusVersion = 2;
/// The corpus as text (section 3 of FORMAT.md), metadata from corpus.meta plus gpu/gpu_key/sms/clock_mhz. Version 2
/// unless `version` is 1 or a kernel name cannot be a dictionary name (empty, ';' or a control character): then 1.
std::string format_corpus(const Corpus& corpus, int version = kCorpusVersion);
/// The first difference between two corpora's metadata and rows (every field; numbers compared bit for bit, NaN
/// equal to NaN), or "" when they hold the same. The paths and lenient-read counts are not compared.
std::string corpus_difference(const Corpus& a, const Corpus& b);
/// Writes format_corpus() to `path`, gzip-compressed when it ends in ".gz".
void write_corpus(const Corpus& corpus, const std::string& path);

}  // namespace loom
