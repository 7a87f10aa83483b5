// `loom trace import` (collector traces + case lists -> corpus; or a PyTorch profiler trace -> kernels with specs)
// `loom trace summary` (what a corpus or a raw trace holds), `compact` and `diff` (corpus files).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/commands_collectives.h"
#include "cli/common.h"
#include "cli/table.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "trace/chrome_trace.h"
#include "trace/import.h"
#include "trace/gemm_path_table.h"
#include "trace/import_public.h"
#include "trace/peak_check.h"
#include "trace/summary.h"
#include "trace/text_io.h"

namespace loom::cli {

namespace {


int import_chrome(const Args& args) {
  for (const char* flag : {"-o", "--out"})
    if (args.has(flag))
      throw InputError(
          flag, std::string("`trace import --chrome` prints the kernels it finds and writes no file; drop ") + flag +
                    " (save them with --format csv|json > FILE)");
  ChromeTrace t = read_chrome_trace(args.require("--chrome"));
  // No kernels is no answer: an empty table with exit 0 reads as "this trace ran nothing".
  if (t.kernels.empty())
    throw InputError(args.get("--chrome"),
                     "no GPU kernel events (\"cat\": \"kernel\" with ts, dur, name) in the trace" +
                         (t.skipped_events ? " (" + std::to_string(t.skipped_events) + " malformed events skipped)"
                                           : std::string()) +
                         "; record it with ProfilerActivity.CUDA");
  Table tab{{"start_us", "dur_us", "family", "op", "spec", "kernel"}, {}, {true, true, false, false, false, false}};
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& k : t.kernels) {
    tab.add({fmt(k.ts_us, 6), fmt(k.dur_us), k.kernel.family, k.spec_op, k.spec, k.name.substr(0, 80)});
    arr.push_back({{"start_us", k.ts_us},
                   {"dur_us", k.dur_us},
                   {"family", k.kernel.family},
                   {"config", k.kernel.config},
                   {"op", k.spec_op},
                   {"op_chain", k.op_chain},
                   {"spec", k.spec},
                   {"name", k.name}});
  }
  const std::string format = args.format();
  // Skipped kernel events are missing from every row: the table's footer said so, JSON and CSV did not.
  const std::string skipped = t.skipped_kernels ? std::to_string(t.skipped_kernels) +
                                                      " kernel events skipped (ts, dur or name missing or not a "
                                                      "number/string): they are not in this list"
                                                : std::string();
  if (format == "json")
    emit(nlohmann::json{{"schema", "loom.trace_import_chrome/1"},
                        {"device", t.device_name},
                        {"skipped_events", t.skipped_events},
                        {"skipped_kernel_events", t.skipped_kernels},
                        {"warnings", skipped.empty() ? nlohmann::json::array() : nlohmann::json::array({skipped})},
                        {"kernels", arr}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n");
  else if (format == "csv") {
    if (!skipped.empty()) warn_stderr({skipped});
    emit(tab.csv());
  }
  else
    emit(tab.text() + std::to_string(t.kernels.size()) + " kernels, " + std::to_string(t.kernels_with_spec) +
         " with a loom spec, " + std::to_string(t.unlinked_kernels) + " not linked to an op, " +
         std::to_string(t.skipped_events) + " malformed events skipped\n");
  return 0;
}

/// Throws InputError(what) when one file is given twice (also as another spelling of its path): its cases were
/// imported twice (`--cases C --cases C`: "imported 10 of 10 cases" from 5, every row doubled in the corpus).
void each_file_once(const std::vector<std::string>& files, const std::string& what) {
  std::vector<std::filesystem::path> seen;
  for (const auto& f : files) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(f, ec);
    if (ec) p = std::filesystem::path(f).lexically_normal();
    for (const auto& q : seen)
      if (q == p) throw InputError(what, "'" + f.substr(0, 120) + "' is given twice; give each file once");
    seen.push_back(p);
  }
}

int import_run_cmd(const Args& args) {
  const auto lcts = args.all("--lct");
  const auto cases = args.all("--cases");
  each_file_once(lcts, "--lct");
  each_file_once(cases, "--cases");
  if (lcts.empty() || cases.empty())
    throw InputError("trace import", "give --lct FILE (repeatable) and --cases FILE (repeatable)");
  ImportOptions opts;
  opts.lenient = args.has("--lenient");
  if (args.has("--dataset") != args.has("--split"))
    throw InputError(args.has("--dataset") ? "--dataset" : "--split",
                     "--dataset NAME and --split train|test go together");
  if (args.has("--split") && args.get("--split") != "train" && args.get("--split") != "test")
    throw InputError("--split", "'" + args.get("--split") + "' is not a split; use train or test");
  const std::string out_path = args.has("-o") ? args.output() : args.require("--out");
  check_output_file(out_path);
  if (args.has("--dataset")) {  // a data set with its own protocol (loom validate's dataset:NAME split)
    // A control byte would end the corpus's `#dataset=` line (a newline was written as a space): refused, as in paths.
    const std::string& d = args.get("--dataset");
    if (std::any_of(d.begin(), d.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; }))
      throw InputError("--dataset", "'" + d.substr(0, 80) + "' holds a control character (a newline, tab or escape; "
                                    "shown as '?'); give a name without them");
    opts.extra_meta["dataset"] = args.get("--dataset");
    opts.extra_meta["dataset_split"] = args.get("--split");
  }
  ImportResult r = import_run(lcts, cases, out_path, opts);
  std::fprintf(stderr,
               "loom: imported %lld of %lld cases (%s, %lld SMs) into %s; %zu unmatched; %lld dropped records\n",
               (long long)r.stats.cases_written, (long long)r.stats.cases_in, r.gpu.c_str(), (long long)r.sms,
               r.out_path.c_str(), r.stats.unmatched.size(), (long long)r.lct_dropped);
  for (size_t i = 0; i < r.stats.unmatched.size() && i < 10; ++i)
    std::fprintf(stderr, "  unmatched %s case %lld: %s\n", r.stats.unmatched[i].case_file.c_str(),
                 (long long)r.stats.unmatched[i].case_id, r.stats.unmatched[i].reason.c_str());
  for (const auto& w : r.stats.warnings) std::fprintf(stderr, "  warning: %s\n", w.c_str());
  return 0;
}

// Rows measured faster than their GPU's peak (trace/peak_check.h) were imported as given (round 13 left it): a file
// with one is refused, naming the first; --lenient leaves them out, counted with the other rows not imported.
void refuse_faster_than_peak(PublicImport& imp, const std::string& file, const Catalog& catalog, bool lenient) {
  for (auto& [key, corpus] : imp.by_gpu) {
    const GpuSpec gpu = catalog.get(key);
    const FasterThanPeak p = faster_than_peak(corpus, gpu);
    if (p.rows == 0) continue;
    if (!lenient)
      throw InputError(file, std::to_string(p.rows) + " of " + std::to_string(corpus.rows.size()) + " " + key +
                                 " rows are faster than the GPU's peak (useful FLOP at its boost clock), e.g. " +
                                 p.example + "; check the file's time unit and GPU, or pass --lenient to leave "
                                 "them out");
    Corpus fast;  // each row alone: the check's own rule (a spec the GPU cannot run is kept)
    std::erase_if(corpus.rows, [&](const CorpusRow& r) {
      fast.rows.assign(1, r);
      return faster_than_peak(fast, gpu).rows > 0;
    });
    imp.skipped["measured faster than the GPU's peak (--lenient)"] += p.rows;
  }
  // Every row left out: an empty answer with exit 0 is no import.
  if (std::all_of(imp.by_gpu.begin(), imp.by_gpu.end(), [](const auto& kv) { return kv.second.rows.empty(); }))
    throw InputError(file, "every row is faster than its GPU's peak (left out by --lenient): nothing to import; check "
                           "the file's time unit and GPU");
}

// `loom trace import --from SOURCE FILE... --out DIR [--gpu KEY]`: public profiles (NeuSight, Vidur, PipeWeave)
// into corpora under DIR/<source>/<gpu>/; the format of each file is detected from its header.
int import_public_cmd(const Args& args) {
  const std::string source = args.get("--from");
  const std::string out_dir = args.has("-o") ? args.output() : args.require("--out");
  refuse_stdout_output(args.has("-o") ? "-o" : "--out", out_dir, "cannot hold a folder of corpora; give a folder");
  refuse_control_bytes_in_path(out_dir);
  const std::string format = args.format();  // checked before anything is written
  const auto& pos = args.positional();
  if (pos.size() < 2) throw InputError("trace import --from " + source, "give the input CSV file(s) after the options");
  each_file_once(std::vector<std::string>(pos.begin() + 1, pos.end()), "trace import --from " + source);
  Catalog catalog = Catalog::load();
  GpuNameTable names = GpuNameTable::load_default();
  PublicImportContext ctx;
  ctx.names = &names;
  ctx.sms_for = [&catalog](const std::string& key) { return int64_t(catalog.get(key).sms); };
  if (args.has("--gpu")) {
    // A catalogue key, not a YAML path: it names the output folder and the corpus's gpu_key.
    const std::string key = args.get("--gpu");
    if (key.find('/') != std::string::npos || key.find(".yaml") != std::string::npos)
      throw InputError("--gpu",
                       "'" + key.substr(0, 80) + "' is a path; trace import takes a catalogue key (see `loom gpus`)");
    ctx.gpu_override = catalog.get(key).name;
  }
  // Read every file first: a bad file anywhere writes nothing.
  std::vector<PublicImport> imports;
  for (size_t i = 1; i < pos.size(); ++i) {
    imports.push_back(import_public_file(source, pos[i], ctx));
    refuse_faster_than_peak(imports.back(), pos[i], catalog, args.has("--lenient"));
  }
  nlohmann::json files = nlohmann::json::array();
  Table tab{
      {"input", "format", "gpu", "rows in", "kernels written", "file"}, {}, {false, false, false, true, true, false}};
  for (size_t i = 0; i < imports.size(); ++i) {
    const PublicImport& imp = imports[i];
    const auto paths = write_public_import(imp, out_dir);
    size_t p = 0;
    for (const auto& [key, corpus] : imp.by_gpu) {
      if (corpus.rows.empty()) continue;
      tab.add({pos[i + 1], imp.format, key, std::to_string(imp.rows_in), std::to_string(corpus.rows.size()), paths[p]});
      files.push_back({{"input", pos[i + 1]}, {"format", imp.format}, {"gpu", key}, {"rows_in", imp.rows_in},
                       {"kernels", corpus.rows.size()}, {"path", paths[p]}});
      ++p;
    }
    for (const auto& [why, n] : imp.skipped)
      std::fprintf(stderr, "loom: %s: %lld rows not imported: %s\n", pos[i + 1].c_str(), (long long)n, why.c_str());
  }
  if (format == "json") emit(nlohmann::json{{"schema", "loom.trace_import_public/1"}, {"files", files}}.dump(2) + "\n");
  else if (format == "csv") emit(tab.csv());
  else emit(tab.text());
  return 0;
}

/// `trace paths [DIR] [-o FILE]`: learns which GEMM code path cuBLAS runs per shape class (kernels/gemm_paths.json).
int paths_cmd(const Args& args) {
  const auto& pos = args.positional();
  if (pos.size() > 2) throw InputError(pos[2], "unexpected argument; usage: loom trace paths [TRACES_DIR] [-o FILE]");
  const std::string dir = pos.size() > 1 ? pos[1] : data_dir() + "/traces";
  if (args.has("-o")) check_output_file(args.get("-o"));  // a FIFO or /dev/full: refused before seconds of reading
  const nlohmann::json t = build_gemm_path_table(read_corpus_dir(dir), Catalog::load());
  // An empty table is no answer: written over kernels/gemm_paths.json it would silently drop every learned path.
  if (t.value("rows_used", 0) == 0)
    throw InputError(dir,
                     "no traced whole-chip GEMMs with kernel names below it; give the corpus directory (e.g. traces/)");
  const std::string text = t.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (args.has("-o")) {
    trace_io::write_text(args.get("-o"), text);
    std::fprintf(stderr, "loom: %d traced GEMMs -> %zu path entries in %s\n", t["rows_used"].get<int>(),
                 t["entries"].size(), args.get("-o").c_str());
  } else {
    emit(text);
  }
  return 0;
}

int summary_cmd(const Args& args) {
  const auto& pos = args.positional();
  if (pos.size() > 2) throw InputError(pos[2], "unexpected argument; usage: loom trace summary [DIR|FILE.lct]");
  const std::string target = pos.size() > 1 ? pos[1] : data_dir() + "/traces";
  const std::string format = args.format();
  ReadOptions ro;
  ro.lenient = args.has("--lenient");
  if (std::filesystem::is_regular_file(target) && target.find(".lct") != std::string::npos) {
    LctSummary s = summarize_lct(target, ro);
    Table t{{"family", "kernel records"}, {}, {false, true}};
    for (const auto& [f, n] : s.family_kernels) t.add({f, std::to_string(n)});
    std::string head = target + ": " + std::to_string(s.records) + " records (" + std::to_string(s.kernels) +
                       " kernels, " + std::to_string(s.memcpys) + " memcpy, " + std::to_string(s.memsets) +
                       " memset, " + std::to_string(s.ranges) + " NVTX ranges), " + std::to_string(s.dropped) +
                       " dropped, " + std::to_string(s.unmatched_kernels) + " unmatched kernel records\n\n";
    if (format == "json") {
      nlohmann::json fam = nlohmann::json::object();
      for (const auto& [f, n] : s.family_kernels) fam[f] = n;
      emit(nlohmann::json{{"schema", "loom.trace_summary_lct/1"},
                          {"file", target},
                          {"records", s.records},
                          {"kernels", s.kernels},
                          {"memcpys", s.memcpys},
                          {"memsets", s.memsets},
                          {"ranges", s.ranges},
                          {"dropped", s.dropped},
                          {"unmatched_kernels", s.unmatched_kernels},
                          {"family_kernels", fam}}
               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n");
      return 0;
    }
    emit(format == "csv" ? t.csv() : head + t.text());
    return 0;
  }
  TraceSummary s = summarize_dir(target, GpuNameTable::load_default(), ro);
  if (s.files == 0 && s.skipped.empty())
    throw InputError(target, "no traces here (*.corpus.csv[.gz], *.cases.csv with their .lct[.gz]); give the corpus "
                             "directory (e.g. traces/) or one FILE.lct");
  Table counts{{"gpu", "sms", "family", "cases"}, {}, {false, true, false, true}};
  for (const auto& c : s.counts) counts.add({c.gpu_key, std::to_string(c.sms), c.family, std::to_string(c.cases)});
  Table noise{{"family", "cases", "median spread", "p90 spread"}, {}, {false, true, true, true}};
  for (const auto& n : s.noise)
    noise.add({n.family, std::to_string(n.cases), fmt(n.median_spread_pct, 3) + "%", fmt(n.p90_spread_pct, 3) + "%"});
  if (format == "json") {
    // One shape whatever the corpus holds: every list is present (empty rather than absent).
    nlohmann::json j{{"schema", "loom.trace_summary/1"}, {"counts", nlohmann::json::array()},
                     {"noise", nlohmann::json::array()}, {"skipped", nlohmann::json::array()}};
    for (const auto& c : s.counts)
      j["counts"].push_back({{"gpu", c.gpu_key}, {"sms", c.sms}, {"family", c.family}, {"cases", c.cases}});
    for (const auto& n : s.noise)
      j["noise"].push_back({{"family", n.family}, {"cases", n.cases}, {"median_spread_pct", n.median_spread_pct},
                            {"p90_spread_pct", n.p90_spread_pct}});
    j["files"] = s.files;
    j["total_cases"] = s.total_cases;
    j["kernels_total"] = s.kernels_total;
    j["unmatched_kernels"] = s.unmatched_kernels;
    for (const auto& sk : s.skipped) j["skipped"].push_back({{"path", sk.path}, {"reason", sk.reason}});
    emit(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return 0;
  }
  if (format == "csv") {
    emit(counts.csv());
    return 0;
  }
  std::string out = "Cases per GPU x partition x family\n\n" + counts.text() +
                    "\nNoise floor per family (spread = (p90 - p10) / median over repetitions)\n\n" + noise.text();
  out += "\n" + std::to_string(s.total_cases) + " cases in " + std::to_string(s.files) + " files; " +
         std::to_string(s.kernels_total) + " kernel names, " + std::to_string(s.unmatched_kernels) +
         " not recognised by any name rule\n";
  for (const auto& [name, n] : s.unmatched_names)
    out += "  unmatched: " + std::to_string(n) + "x " + name.substr(0, 100) + "\n";
  for (const auto& sk : s.skipped) out += "  skipped " + sk.path + ": " + sk.reason + "\n";
  emit(out);
  return 0;
}

/// `trace compact FILE -o OUT`: FILE rewritten in the current corpus schema (version 2: a kernel-name dictionary),
/// refused when the rewrite would not read back as exactly the same metadata and rows.
int compact_cmd(const Args& args) {
  const auto& pos = args.positional();
  if (pos.size() != 2) throw InputError("trace compact", "usage: loom trace compact FILE.corpus.csv[.gz] -o OUT");
  const std::string in = pos[1], out_path = args.require("-o");
  check_output_file(out_path);
  const Corpus before = read_corpus(in);
  const std::string text = format_corpus(before);
  const std::string diff = corpus_difference(before, parse_corpus(text, out_path));
  if (!diff.empty())
    throw InputError(in, "rewriting it would change what loom reads (" + diff + "); left as it is");
  trace_io::write_text(out_path, text);
  const bool v2 = text.rfind("#loom-corpus 2\n", 0) == 0;
  std::fprintf(stderr, "loom: %s -> %s: %zu rows, schema version %d, %zu bytes of text\n", in.c_str(), out_path.c_str(),
               before.rows.size(), v2 ? 2 : 1, text.size());
  return 0;
}

/// `trace diff A B`: exit 0 when two corpus files read as the same metadata and rows (bit for bit), 1 otherwise.
int diff_cmd(const Args& args) {
  const auto& pos = args.positional();
  if (pos.size() != 3) throw InputError("trace diff", "usage: loom trace diff A.corpus.csv[.gz] B.corpus.csv[.gz]");
  const Corpus a = read_corpus(pos[1]), b = read_corpus(pos[2]);
  const std::string diff = corpus_difference(a, b);
  emit(pos[1] + " " + pos[2] + ": " + (diff.empty() ? "same " + std::to_string(a.rows.size()) + " rows and metadata"
                                                     : "differ: " + diff) + "\n");
  return diff.empty() ? 0 : 1;
}

}  // namespace

int cmd_trace(const Argv& argv) {
  Args args(argv,
            {"--lct", "--cases", "--out", "-o", "--chrome", "--format", "--from", "--gpu", "--split", "--dataset"},
            {"--lenient"});
  const auto& pos = args.positional();
  if (pos.empty()) throw InputError("trace", "usage: loom trace import|summary ...; see `loom --help`");
  // Each subcommand (and import mode) reads its own flags; one meant for another is refused, not ignored.
  if (pos[0] == "import") {
    if (args.has("--chrome")) {
      args.only("`loom trace import --chrome`", {"--chrome", "--format", "-o", "--out"});  // -o: its own message
      if (pos.size() > 1) throw InputError(pos[1], "unexpected argument; usage: loom trace import --chrome FILE.json");
      return import_chrome(args);
    }
    if (args.has("--from")) {
      args.only("`loom trace import --from`", {"--from", "--out", "-o", "--format", "--gpu", "--lenient"});
      return import_public_cmd(args);
    }
    args.only("`loom trace import --lct`", {"--lct", "--cases", "--out", "-o", "--lenient", "--dataset", "--split"});
    if (pos.size() > 1) throw InputError(pos[1], "unexpected argument; give files with --lct FILE and --cases FILE");
    return import_run_cmd(args);
  }
  if (pos[0] == "summary") {
    args.only("`loom trace summary`", {"--format", "--lenient"});
    return summary_cmd(args);
  }
  if (pos[0] == "paths") {
    args.only("`loom trace paths`", {"-o"});
    return paths_cmd(args);
  }
  if (pos[0] == "fit-collectives") {
    args.only("`loom trace fit-collectives`", {"-o", "--out"});
    if (pos.size() > 1) throw InputError(pos[1], "unexpected argument; usage: loom trace fit-collectives [-o FILE]");
    return cmd_fit_collectives(args);
  }
  if (pos[0] == "compact") {
    args.only("`loom trace compact`", {"-o"});
    return compact_cmd(args);
  }
  if (pos[0] == "diff") {
    args.only("`loom trace diff`", {});
    return diff_cmd(args);
  }
  throw InputError("trace " + pos[0],
                   "unknown subcommand; use import, summary, paths, fit-collectives, compact or diff");
}

}  // namespace loom::cli
