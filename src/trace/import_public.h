// `loom trace import --from SOURCE FILE...`: public per-kernel measurements (NeuSight, Vidur, PipeWeave, ...) read
// into loom corpora. One table of formats, each detected from its file's CSV header; every reader is strict.
//
// Adding a format: write `PublicFormat my_format();` in your own file (see import_neusight.cpp) and add one line to
// public_formats() in import_public.cpp. Nothing else dispatches on the source.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "trace/gpu_names.h"
#include "trace/text_io.h"
#include "trace/trace.h"

namespace loom {

/// What a reader needs besides the file: GPU name lookup and the catalogue's SM count per key.
struct PublicImportContext {
  const GpuNameTable* names = nullptr;
  std::function<int64_t(const std::string& gpu_key)> sms_for;  ///< throws InputError for an unknown key
  std::string gpu_override;  ///< --gpu KEY: the catalogue key for files that do not name their GPU
  std::string file;          ///< the input path as given (readers may take a GPU or model name from it)
};

/// One input file's rows, grouped by GPU (a file may hold several GPUs, e.g. NeuSight's).
struct PublicImport {
  std::string source;                    ///< "neusight", "vidur", "pipeweave"
  std::string format;                    ///< e.g. "neusight-op", "vidur-mlp", "pipeweave-moe-dse"
  std::string stem;                      ///< output file stem, e.g. "test-bmm", "Llama-2-7b-hf-mlp"
  std::map<std::string, Corpus> by_gpu;  ///< gpu_key -> corpus (meta, gpu, gpu_key, sms filled)
  std::map<std::string, int64_t> skipped;  ///< reason -> rows not imported (no loom family for the op, ...)
  int64_t rows_in = 0;                   ///< data rows read
  /// The corpus for `gpu_key`, created with the common metadata on first use.
  Corpus& corpus_for(const std::string& gpu_key, const std::string& device_name, const PublicImportContext& ctx,
                     const std::map<std::string, std::string>& meta);
  /// Adds a row unless the same spec (and impl) was already imported for that GPU (counted as skipped). The spec
  /// must be one `loom predict` takes (sizes within loom's limits): InputError(where, ...) otherwise.
  void add(Corpus& c, CorpusRow row, const std::string& where);

 private:
  std::map<std::string, std::map<std::string, int64_t>> seen_;  // gpu_key -> spec|impl -> case id
};

/// A format: which source it belongs to, how to recognise its header, how to read it.
struct PublicFormat {
  std::string source;        ///< the --from value
  std::string name;          ///< format name, shown in errors and in the corpus metadata
  std::string header_hint;   ///< the header's first columns, for the "unrecognised header" message
  std::function<bool(const std::vector<std::string>& header)> matches;
  /// Reads the data rows after the header (`reader` is positioned after it). Throws InputError(FILE:LINE, ...).
  std::function<void(trace_io::LineReader& reader, const std::vector<std::string>& header,
                     const PublicImportContext& ctx, PublicImport& out)>
      read;
};

/// The dispatch table (one entry per format).
const std::vector<PublicFormat>& public_formats();
/// Sources named by the table, sorted and unique ("neusight", "pipeweave", "vidur").
std::vector<std::string> public_sources();

/// Reads one file of `source`: skips a UTF-8 BOM, splits the header, picks the format whose matches() accepts it
/// (InputError FILE:1 when none does) and runs its reader.
PublicImport import_public_file(const std::string& source, const std::string& path, const PublicImportContext& ctx);
/// Same from text in memory (for tests and fuzzing).
PublicImport import_public_text(const std::string& source, std::string_view text, const std::string& name,
                                const PublicImportContext& ctx);

/// Writes each GPU's corpus to <out_dir>/<source>/<gpu_key>/<stem>.corpus.csv.gz; returns the paths.
std::vector<std::string> write_public_import(const PublicImport& imp, const std::string& out_dir);

// ---- helpers shared by the readers (strict: each throws InputError(where, ...)) ----
namespace public_io {
/// Column index of `name` in `header`; InputError(where) when absent.
size_t column(const std::vector<std::string>& header, const std::string& name, const std::string& where);
/// Strict positive finite number (a measured duration: 1e-6 to 1e7 in the file's unit) / positive integer of
/// field `name`.
double positive_number(const std::string& field, const std::string& name, const std::string& where);
int64_t positive_int(const std::string& field, const std::string& name, const std::string& where);
/// "True"/"False" (also lower case).
bool boolean(const std::string& field, const std::string& name, const std::string& where);
/// Throws InputError("FILE:LINE:COLUMN") for a cell that reads as NaN or infinity, in any column (a column the
/// reader does not use included: such a row is corrupt). For formats whose exports never hold NaN (NeuSight).
void refuse_non_finite(const std::vector<std::string>& fields, const std::vector<std::string>& header,
                       const std::string& where);
/// Splits a data row and checks its width against the header's.
std::vector<std::string> row_fields(const std::string& line, size_t width, const std::string& where);
/// The data rows after the header, in order: blank lines skipped, each split by row_fields, counted in
/// out.rows_in and handed to `row(fields, where)` ("FILE:LINE"); the readers' one row loop.
void for_each_row(trace_io::LineReader& r, size_t width, PublicImport& out,
                  const std::function<void(const std::vector<std::string>& fields, const std::string& where)>& row);
}  // namespace public_io

}  // namespace loom
