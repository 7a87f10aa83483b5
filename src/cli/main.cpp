// loom: the command-line driver. Parses the command word, runs it, and is the only place that reports errors.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>
#include <exception>
#include <iostream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/commands_e2e.h"
#include "cli/commands_serving.h"
#include "cli/commands_calibrate.h"
#include "cli/commands_report.h"
#include "cli/commands_tune.h"
#include "cli/progress.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/suggest.h"
#include "hw/catalog.h"

#ifndef LOOM_GIT_COMMIT
#define LOOM_GIT_COMMIT "unknown"
#endif

namespace {

constexpr const char* kUsage = R"(loom: predict GPU kernel and LLM inference latency from GPU descriptions

usage: loom <command> [options]        (loom <command> --help: that command's usage; loom --version)

commands:
  gpus [show NAME]                  the GPU catalogue (gpus/*.yaml)
  predict --gpu G --kernel SPEC     predicted latency, ceiling and bottleneck (--gpu all: every GPU)
  predict --gpu G --batch FILE.csv  the same for every row of a CSV (column `family` + parameter columns)
  diagnose --gpu G --kernel SPEC    predicted speed-of-light table [--measured-us T]
  trace import --lct F.lct.gz... --cases F.cases.csv... -o OUT.corpus.csv.gz
                                    join collector traces with sweep case lists into a corpus
  trace import --chrome F.json      kernels of a PyTorch profiler trace, with loom specs
  trace import --from neusight|vidur|pipeweave F.csv... --out DIR [--gpu KEY] [--lenient]
                                    public measurements into corpora; a row faster than its GPU's peak is refused
                                    (--lenient: left out, counted)
  trace summary [DIR|FILE.lct]      corpus counts per family/GPU/partition, noise floor, unmatched kernels
  trace fit-collectives [-o FILE]   alpha-beta fits of the measured collectives (all_reduce, all_gather,
                                    reduce_scatter, send_recv) -> models/collectives.json
  trace compact F.corpus.csv.gz -o OUT
                                    rewrite a corpus in the current schema (kernel-name dictionary)
  trace diff A B                    exit 0 when two corpus files read as the same rows and metadata
  train [--traces DIR] [--out DIR]  learn the efficiency model (XGBoost) from the corpus
        [--max-depth FAMILY=N,...]  tree depth per family (default gemm=10, others 6)
  validate [--check] [--max-mape X] accuracy per split/family/GPU/partition vs roofline and analytical
  validate --e2e [--traces DIR]     traced end-to-end runs (traces/e2e) vs loom's end-to-end prediction
  validate --collectives            measured collectives: each GPU predicted from the others' fits (leave one out)
  validate --serving [--traces DIR] measured continuous-batching runs (traces/serving/engine) vs loom simulate
  e2e --gpu G --model M --phase prefill|decode --batch B --seq S [--context C] [--cache-len N] [--tp N]
      [--profile vllm|sglang|hf-eager|hf-sdpa] [--mode eager|graph|megakernel] [--trace-out FILE.json]
      [--kernel-model learned|analytical]
                                    one LLM step: TTFT/TPOT, breakdown, memory fit, timeline
  whatif --model M --batch B --input-len S --output-len N --gpus all|a,b,c [--tp 1,2] [--set GPU:key=value]
      [--threads N (default: cores)] ranked GPUs (TTFT, TPOT, tokens/s, tokens/$, fit) + sensitivity
  whatif --model M --gpus all|a,b,c --rate R|--requests FILE [--slo ttft=2s,tpot=50ms] [--tp 1,2,4,8] [--pp N]
                                    capacity: highest req/s per replica within the SLO, GPUs for R, $/M tokens
  simulate --gpu G --model M [--tp N] [--pp N] [--replicas N [--router round_robin|least_outstanding]]
      --requests FILE.csv|FILE.jsonl | --rate R [--num-requests N] [--arrivals poisson|gamma:cv=X]
      [--prompt-len N|uniform:A:B|lognormal:MEDIAN:SIGMA|file:F] [--output-len ...] [--seed S]
      [--profile vllm|sglang] [--slo ttft=2s,tpot=50ms] [--trace-out F.json] [--per-request]
                                    request-level serving: TTFT/TPOT/ITL/E2E percentiles, throughput, goodput
  report --gpu G --kernel SPEC -o F.html   self-contained HTML: rooflines + speed-of-light bars
  report --sample -o F.html         every chart kind with demo data (--json-in FILE: render a report JSON)
  report [--validation V.json] [--e2e E.json] [--whatif W.json] [--simulate S.json] [--gpu G [--kernel SPEC]] -o F.html
                                    the report from loom's own --format json outputs: predicted-vs-measured
                                    scatters (and measured kernels on G's roofline), step timeline, what-if
  tune --gpu G --kernel SPEC        config choice from the wave tables (models/tune/): loom's gemm/moe kernels, or
                                    the Triton kernels with "moe|gemm ... impl=triton [dtype=fp8]"
  tune --plan|--fit|--validate|--export --gpu G --family gemm|moe|{moe,gemm}-triton[-fp8] [--traces DIR]
       [--out PATH] [--format json] [--sample-fraction F] [--lambda L]
       [--heldout-traces DIR [--heldout-only]] [--per-shape FILE.csv]
                                    sparse sampling plan, fit tables from the corpus, held-out validation (also on a
                                    separately measured grid, or on it alone; --per-shape: each held-out shape's
                                    chosen and best config as CSV), C header; --fit needs --out FILE
                                    (give models/tune/G-F.json itself to regenerate a committed table)
  calibrate RESULT.json --gpu G [-o FILE.yaml]
                                    GPU overlay from a calibration run on the chip (scripts/torch/calibrate.py):
                                    sustained-load clock and slowdown, datasheet-equivalent DRAM bandwidth
  tune --gpu G --model M --export-moe-configs DIR [--tp 1,2,4,8] [--dtype bf16|fp8]
                                    vLLM/SGLang fused-MoE config files (E=..,N=..,device_name=...json) for M

common options:
  --gpu NAME|PATH|all|a,b,c   catalogue key(s) or YAML file(s); an existing file is one GPU, commas in its name
                              included
  --set key=value             override a GPU field, e.g. --set dram.bandwidth=4.8TB/s (repeatable); GPU:key=value
                              overrides one of the named GPUs only (--set h200:sms=66)
  --format table|json|csv     output format (default table; every command but report, calibrate and train,
                              which write a file); with --help, json gives the usage as a JSON object
  -o/--out FILE               '-' is stdout where the command writes one file and prints nothing else there
  --clock boost|sustained|auto  (predict, e2e, whatif, simulate) kernels from a cool start (boost, default), at the
                              power-capped clock of seconds of tensor-core load (sustained; GPUs with a measured
                              sustained_load), or throttled past the measured onset only (auto: per kernel in
                              predict; per step in e2e; per iteration in simulate, whatif --rate, validate
                              --serving). docs/clocks.md

kernel specs, e.g.:  "gemm m=4096 n=4096 k=4096 dtype=bf16"   (see kernels/README.md for the vocabulary)
)";

bool use_color() { return isatty(STDERR_FILENO) != 0; }

/// `loom CMD --help`: the usage lines of kUsage that belong to CMD (its lines and their continuation lines).
/// `--help` prints usage text whatever else is given, but with `--format json` a JSON object holding that text
/// (schema loom.help/1): a pipeline that asked for JSON gets JSON, and `| jq -r .usage` shows the usage.
bool help_as_json(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--format=json" || (args[i] == "--format" && i + 1 < args.size() && args[i + 1] == "json"))
      return true;
  return false;
}

void print_usage(const std::string& command, const std::string& text, bool json) {
  if (!json) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  const nlohmann::json j{{"schema", "loom.help/1"}, {"command", command}, {"usage", text}};
  std::fputs((j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), stdout);
}

bool print_command_help(const std::string& command, bool json) {
  std::string out, line;
  bool in = false;
  for (const char* p = kUsage; *p; ++p) {
    if (*p != '\n') {
      line += *p;
      continue;
    }
    if (line.rfind("  " + command + " ", 0) == 0 || line == "  " + command) in = true;
    else if (line.rfind("      ", 0) != 0 && line.rfind("                    ", 0) != 0) in = false;
    if (in) out += line + "\n";
    line.clear();
  }
  if (out.empty()) return false;
  // report, calibrate and train write a file (an HTML page, a GPU overlay, a model folder): no --format.
  const bool writes_file = command == "report" || command == "calibrate" || command == "train";
  print_usage(command,
              "usage: loom " + command + " ...\n" + out +
                  "\ncommon options: --gpu NAME|PATH|all|a,b,c  --set key=value" +
                  (writes_file ? "" : "  --format table|json|csv") + "\n",
              json);
  return true;
}

/// FNV-1a of a file's bytes (16 hex digits), or "missing".
std::string file_fingerprint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "missing";
  uint64_t h = 1469598103934665603ull;
  for (char c; in.get(c);) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void print_version() {
  namespace fs = std::filesystem;
  const std::string root = loom::data_dir();
  std::string gpus;
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(root + "/gpus", ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) gpus += file_fingerprint(f);
  uint64_t h = 1469598103934665603ull;
  for (char c : gpus) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::printf("loom %s (git %s)\nmodel    %s/models/efficiency/manifest.json %s\ncatalogue %zu GPUs, %016llx\n",
              LOOM_VERSION, LOOM_GIT_COMMIT, root.c_str(),
              file_fingerprint(root + "/models/efficiency/manifest.json").c_str(), files.size(),
              static_cast<unsigned long long>(h));
}

}  // namespace

/// Why stdout failed. errno of the failed write is gone by the time the error is seen (std::cout keeps only a bad
/// bit), and EIO was reported for a reader that had gone (EPIPE) or /dev/full (ENOSPC): one more byte, written to a
/// stdout whose output is already short, says which.
static int stdout_errno(int err) {
  if (err) return err;
  errno = 0;
  if (::write(STDOUT_FILENO, "\n", 1) < 0 && errno) return errno;
  return EIO;
}

/// Exit status of a usage or version text written to stdout: `loom --help > /dev/full` exited 0 with nothing written.
static int stdout_status(int rc) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return rc;
  std::cerr << "loom: stdout: " << loom::write_failed_message(stdout_errno(errno)) << "\n";
  return 2;
}

int main(int argc, char** argv) {
  using namespace loom::cli;
  // A file-size limit (`ulimit -f`) killed loom with SIGXFSZ in the middle of a write, leaving the temporary file of
  // the output behind; ignored, the write fails with EFBIG and is reported (and cleaned up) like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    print_usage("", kUsage, argc >= 2 && help_as_json(std::vector<std::string>(argv + 2, argv + argc)));
    if (argc < 2) std::fputs("loom: no command given; run `loom --help` for the list\n", stderr);
    return argc < 2 ? 2 : stdout_status(0);
  }
  const std::string command = argv[1];
  Argv rest(argv + 2, argv + argc);
  loom::track_input_files(true);  // no command writes over a file it read (calibrate R.json -o R.json)
  if (command == "--version" || command == "version") {
    if (!rest.empty()) {
      std::fprintf(stderr, "loom: %s: unexpected argument for `loom --version`; it takes none\n",
                   loom::printable_error(rest[0]).c_str());
      return 2;
    }
    print_version();
    return stdout_status(0);
  }
  for (const auto& a : rest)
    if (a == "--help" || a == "-h") {
      if (print_command_help(command, help_as_json(rest))) return stdout_status(0);
      std::cerr << "loom: " << loom::printable_error(command) << ": unknown command; run `loom --help` for the list\n";
      return 2;
    }
  auto dispatch = [&]() -> int {
    if (command == "gpus") return cmd_gpus(rest);
    if (command == "predict") return cmd_predict(rest);
    if (command == "diagnose") return cmd_diagnose(rest);
    if (command == "trace") return cmd_trace(rest);
    if (command == "train") return cmd_train(rest);
    if (command == "validate") return cmd_validate(rest);
    if (command == "e2e") return cmd_e2e(rest);
    if (command == "whatif") return cmd_whatif(rest);
    if (command == "simulate") return cmd_simulate(rest);
    if (command == "report") return cmd_report(rest);
    if (command == "tune") return cmd_tune(rest);
    if (command == "calibrate") return cmd_calibrate(rest);
    throw loom::InputError(command, "unknown command" +
                                        loom::did_you_mean(command, {"gpus", "predict", "diagnose", "trace", "train",
                                                                     "validate", "e2e", "whatif", "simulate", "report",
                                                                     "tune", "calibrate"}) +
                                        "; run `loom --help` for the list");
  };
  try {
    const int rc = dispatch();
    loom::cli::flush_progress();
    // A full disk or closed pipe behind stdout (`loom ... > /dev/full`) is an error, not a silently short output.
    errno = 0;
    std::cout.flush();
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
      throw loom::InputError("stdout", loom::write_failed_message(stdout_errno(errno)));
    return rc;
  } catch (const loom::InputError& e) {
    loom::cli::drop_progress();
    const char* red = use_color() ? "\033[31m" : "";
    const char* reset = use_color() ? "\033[0m" : "";
    // where() and detail() rather than what(): a NUL inside the input would end the C string what() returns.
    std::cerr << red << "loom: " << reset
              << loom::printable_error(e.where().empty() ? e.detail() : e.where() + ": " + e.detail()) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    loom::cli::drop_progress();
    // A folder loom was asked to create or list (--out DIR, --traces DIR) is bad input, not a bug.
    std::cerr << "loom: " << loom::printable_error(e.path1().string() + ": " + e.code().message())
              << "; check the path and its permissions\n";
    return 2;
  } catch (const std::exception& e) {
    loom::cli::flush_progress();  // a bug: what ran before it helps the report
    // Anything else is a bug in loom, not bad input: say so plainly, but still exit cleanly.
    std::cerr << "loom: internal error: " << loom::printable_error(e.what())
              << "; please report this with the command line\n";
    return 3;
  }
}
