// `loom trace import`: joins collector traces (.lct) with sweep case lists (.cases.csv) into a corpus
// (traces/FORMAT.md section 3).
//
// Join rules (documented here, enforced in import.cpp):
// - Each case list is joined with exactly one .lct file (one process): the only .lct with the list's `pid` (when
//   the list records one); else the only .lct whose `#command` is the list's `command` (equal, or ending with it
//   after a space: Python records sys.argv without the interpreter); else the .lct holding the most
//   `loom.case=<id>` ranges for the list's ids (a tie is an InputError: import those runs separately). Its `#gpu`
//   must equal the list's `gpu`.
// - A case's repetitions are the `loom.rep` ranges inside its `loom.case=<id>` range; a kernel belongs to the rep
//   whose range contains the kernel's START time (the sweep synchronises before closing a rep, so a kernel starts
//   inside the rep that launched it). `loom_l2_flush` kernels are ignored.
// - Rep GPU time = sum of its kernels' durations. Per case: median/p10/p90 (linear interpolation between order
//   statistics, numpy's default) and spread_pct = 100 * (p90 - p10) / median.
// - `kernels`, grid/block/regs/smem come from the first rep (kernels in start order; the longest kernel's launch).
// - A case with no range, a range with no rep, a rep with zero kernels, or a case id present in two ranges is
//   unmatched: reported, not written. All case lists of one import must share gpu and sms (one corpus partition).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "trace/gpu_names.h"
#include "trace/trace.h"

namespace loom {

struct ImportOptions {
  bool lenient = false;         ///< skip bad records in the inputs instead of failing
  std::string gpu_names_path;   ///< "" = GpuNameTable::default_gpu_names_path()
  /// Extra `#key=value` lines for the corpus (e.g. dataset / dataset_split), set before the one write: a second
  /// read-modify-write of the output made it an input of the command, and the input-overwrite guard refused it.
  std::map<std::string, std::string> extra_meta;
};

struct UnmatchedCase {
  std::string case_file;
  int64_t case_id = 0;
  std::string reason;  ///< "no loom.case range", "rep 3 has no kernels", ...
};

struct JoinStats {
  int64_t cases_in = 0;        ///< rows in the case lists
  int64_t cases_written = 0;
  std::vector<UnmatchedCase> unmatched;
  int64_t orphan_case_ranges = 0;   ///< loom.case ranges whose id is in no case list
  int64_t flush_kernels = 0;        ///< loom_l2_flush kernels ignored
  int64_t kernels_outside_reps = 0; ///< kernels in no loom.rep (warm-up, other work)
  int64_t reps_kernel_mismatch = 0; ///< cases whose reps ran different kernel sequences
  int64_t reps_count_mismatch = 0;  ///< cases whose measured rep count differs from the case list's `reps`
  std::vector<std::string> warnings;  ///< dropped CUPTI records, unknown GPU, skipped records, ...
};

/// Joins already-read traces and case lists into a corpus (see the rules above). Throws InputError when case
/// lists disagree on gpu/sms, when a case list matches no or two .lct files equally, or on a gpu mismatch.
Corpus join_traces(const std::vector<LctTrace>& lcts, const std::vector<CaseList>& cases, const GpuNameTable& gpus,
                   JoinStats& stats);

struct ImportResult {
  std::string out_path;
  std::string gpu, gpu_key;  ///< gpu_key "" when the device name is not in gpu_names.tsv (warned)
  int64_t sms = 0;
  int64_t lct_records = 0, lct_dropped = 0, skipped_records = 0;
  JoinStats stats;
};

/// Reads the files, joins them and writes the corpus to `out_path` (gzip when it ends in ".gz").
ImportResult import_run(const std::vector<std::string>& lct_files, const std::vector<std::string>& case_files,
                        const std::string& out_path, const ImportOptions& opts = {});

/// Quantile q in [0,1] of `v` by linear interpolation between order statistics (numpy's default); v non-empty.
double quantile(std::vector<double> v, double q);

}  // namespace loom
