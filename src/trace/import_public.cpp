// The dispatch table of public formats and what every reader shares: header detection, strict field parsing,
// grouping rows per GPU and writing one corpus per (source, GPU, input file).
#include "trace/import_public.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "kernels/kernel_spec.h"
#include "kernels/shape.h"

namespace loom {

PublicFormat neusight_format();       // import_neusight.cpp
PublicFormat vidur_mlp_format();      // import_vidur.cpp
PublicFormat pipeweave_moe_format();  // import_pipeweave_moe.cpp
PublicFormat pipeweave_fp8_format();  // import_pipeweave_fp8.cpp
PublicFormat vidur_collective_format();      // import_collectives.cpp
PublicFormat pipeweave_collective_format();  // import_collectives.cpp
PublicFormat loom_collective_format();       // import_collectives.cpp

const std::vector<PublicFormat>& public_formats() {
  // One line per format. The coordinator adds the PipeWeave fp8 GEMM and collective readers here.
  static const std::vector<PublicFormat> table = {
      neusight_format(),
      vidur_mlp_format(),
      pipeweave_moe_format(),
      pipeweave_fp8_format(),
      vidur_collective_format(),
      pipeweave_collective_format(),
      loom_collective_format(),
  };
  return table;
}

std::vector<std::string> public_sources() {
  std::vector<std::string> out;
  for (const auto& f : public_formats()) out.push_back(f.source);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

PublicImport import_from(const std::string& source, trace_io::LineReader& r, const PublicImportContext& ctx) {
  const auto sources = public_sources();
  if (std::find(sources.begin(), sources.end(), source) == sources.end()) {
    std::string list;
    for (const auto& s : sources) list += (list.empty() ? "" : ", ") + s;
    throw InputError("--from", "unknown source '" + source + "'; use one of " + list);
  }
  std::string line;
  if (!r.next(line)) throw InputError(r.name() + ":1", "empty file; expected a " + source + " CSV header");
  const auto header = trace_io::split_csv(line, r.where());  // LineReader drops a UTF-8 BOM
  trace_io::check_unique_columns(header, r.where());
  std::string hints;
  for (const auto& f : public_formats()) {
    if (f.source != source) continue;
    hints += (hints.empty() ? "" : " or ") + f.header_hint;
    if (!f.matches(header)) continue;
    PublicImport out;
    out.source = source;
    out.format = f.name;
    std::filesystem::path p(r.name());
    out.stem = p.stem().string();
    if (out.stem.size() > 4 && out.stem.substr(out.stem.size() - 4) == ".csv") out.stem.resize(out.stem.size() - 4);
    f.read(r, header, ctx, out);
    if (out.rows_in == 0) throw InputError(r.where(), "no data rows after the header; the file is empty or truncated");
    return out;
  }
  throw InputError(r.name() + ":1", "header '" + line.substr(0, 60) + "' is no " + source +
                                        " format loom reads; expected a header starting " + hints);
}

}  // namespace

PublicImport import_public_file(const std::string& source, const std::string& path, const PublicImportContext& ctx) {
  trace_io::LineReader r = trace_io::LineReader::open_file(path);
  PublicImportContext c = ctx;
  c.file = path;
  return import_from(source, r, c);
}

PublicImport import_public_text(const std::string& source, std::string_view text, const std::string& name,
                                const PublicImportContext& ctx) {
  trace_io::LineReader r = trace_io::LineReader::from_text(text, name);
  PublicImportContext c = ctx;
  c.file = name;
  return import_from(source, r, c);
}

Corpus& PublicImport::corpus_for(const std::string& gpu_key, const std::string& device_name,
                                 const PublicImportContext& ctx, const std::map<std::string, std::string>& meta) {
  auto it = by_gpu.find(gpu_key);
  if (it != by_gpu.end()) return it->second;
  Corpus c;
  c.meta = meta;
  c.meta["source"] = source;
  c.meta["source_format"] = format;
  c.meta["source_file"] = std::filesystem::path(ctx.file).filename().string();
  c.gpu = device_name;
  c.gpu_key = gpu_key;
  c.sms = ctx.sms_for ? ctx.sms_for(gpu_key) : 0;
  return by_gpu.emplace(gpu_key, std::move(c)).first->second;
}

void PublicImport::add(Corpus& c, CorpusRow row, const std::string& where) {
  // A repeat of an earlier row's spec is skipped unparsed: that spec was checked (or refused) when first seen.
  auto [it, fresh] = seen_[c.gpu_key].emplace(row.spec + "|" + row.impl, row.case_id);
  if (!fresh) {
    ++skipped["same kernel spec as an earlier row (first kept)"];
    return;
  }
  // A row whose shape no reader takes (a PipeWeave M=N=K=1e9, NeuSight B*H beyond 2^40 elements) was written into
  // the corpus with exit 0 and refused by every later command (round 13): the corpus reader's check, here.
  try {
    check_spec_sizes(parse_kernel_spec(row.spec, where));
  } catch (const InputError& e) {
    throw InputError(where, "the row reads as '" + row.spec.substr(0, 100) + "', which loom cannot take (" +
                                e.detail() + "); fix the row");
  }
  c.rows.push_back(std::move(row));
}

std::vector<std::string> write_public_import(const PublicImport& imp, const std::string& out_dir) {
  std::vector<std::string> paths;
  for (const auto& [key, corpus] : imp.by_gpu) {
    if (corpus.rows.empty()) continue;
    std::filesystem::path dir = std::filesystem::path(out_dir) / imp.source / key;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw InputError(dir.string(), "cannot create directory: " + ec.message() + "; check --out");
    const std::string path = (dir / (imp.stem + ".corpus.csv.gz")).string();
    write_corpus(corpus, path);
    paths.push_back(path);
  }
  return paths;
}

namespace public_io {

size_t column(const std::vector<std::string>& header, const std::string& name, const std::string& where) {
  auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw InputError(where, "CSV header lacks column '" + name + "'; is this the right file?");
  return size_t(it - header.begin());
}

double positive_number(const std::string& field, const std::string& name, const std::string& where) {
  auto v = trace_io::parse_f64(field);
  // parse_f64 is strict (whole field); it still takes "nan"/"inf" and hex, which no measurement is.
  const bool hex = field.find_first_of("xX") != std::string::npos;
  if (!v || hex || !std::isfinite(*v) || *v <= 0)
    throw InputError(where, name + " '" + field.substr(0, 40) + "' is not a positive number; fix the row");
  // Every caller reads a measured duration (ms or us): 1e300 or 1e-300 is a corrupt cell, not a kernel, and would
  // sit in the corpus as a point no model can fit.
  if (*v < 1e-6 || *v > 1e7)
    throw InputError(where, name + " '" + field.substr(0, 40) +
                                "' is not a plausible duration (1e-6 to 1e7 in the file's unit); fix the row");
  return *v;
}

int64_t positive_int(const std::string& field, const std::string& name, const std::string& where) {
  auto v = trace_io::parse_i64(field);
  if (!v || *v <= 0 || *v > (int64_t(1) << 40))
    throw InputError(where, name + " '" + field.substr(0, 40) + "' is not a positive integer (<= 2^40); fix the row");
  return *v;
}

bool boolean(const std::string& field, const std::string& name, const std::string& where) {
  if (field == "True" || field == "true") return true;
  if (field == "False" || field == "false") return false;
  throw InputError(where, name + " '" + field.substr(0, 40) + "' is not True or False; fix the row");
}

void refuse_non_finite(const std::vector<std::string>& fields, const std::vector<std::string>& header,
                       const std::string& where) {
  for (size_t i = 0; i < fields.size() && i < header.size(); ++i)
    if (auto v = trace_io::parse_f64(fields[i]); v && !std::isfinite(*v))
      throw InputError(
          where + ":" + header[i],
          "'" + fields[i].substr(0, 20) + "' is not a finite number (a corrupt or truncated export); fix the row");
}

std::vector<std::string> row_fields(const std::string& line, size_t width, const std::string& where) {
  auto f = trace_io::split_csv(line, where);
  if (f.size() != width)
    throw InputError(where, "row has " + std::to_string(f.size()) + " fields, the header has " +
                                std::to_string(width) + "; the file is truncated or malformed");
  return f;
}

void for_each_row(trace_io::LineReader& r, size_t width, PublicImport& out,
                  const std::function<void(const std::vector<std::string>& fields, const std::string& where)>& row) {
  std::string line;
  while (r.next(line)) {
    if (line.empty()) continue;
    const std::string where = r.where();
    const std::vector<std::string> f = row_fields(line, width, where);
    ++out.rows_in;
    row(f, where);
  }
}

}  // namespace public_io
}  // namespace loom
