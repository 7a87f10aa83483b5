// loom: the command-line driver. Parses the command word, runs it, and is the only place that reports errors.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/commands_report.h"
#include "core/error.h"

namespace {

constexpr const char* kUsage = R"(loom: predict GPU kernel and LLM inference latency from GPU descriptions

usage: loom <command> [options]

commands:
  gpus [show NAME]                  the GPU catalogue (gpus/*.yaml)
  predict --gpu G --kernel SPEC     predicted latency, ceiling and bottleneck (--gpu all: every GPU)
  predict --gpu G --batch FILE.csv  the same for every row of a CSV (column `family` + parameter columns)
  diagnose --gpu G --kernel SPEC    predicted speed-of-light table [--measured-us T]
  report --gpu G --kernel SPEC -o F.html   self-contained HTML: rooflines + speed-of-light bars
  report --sample -o F.html         every chart kind with demo data (--json-in FILE: render a report JSON)

common options:
  --gpu NAME|PATH|all|a,b,c   catalogue key(s) or a YAML file
  --set key=value             override a GPU field, e.g. --set dram.bandwidth=4.8TB/s (repeatable)
  --format table|json|csv     output format (default table)

kernel specs, e.g.:  "gemm m=4096 n=4096 k=4096 dtype=bf16"   (see kernels/README.md for the vocabulary)
)";

bool use_color() { return isatty(STDERR_FILENO) != 0; }

}  // namespace

int main(int argc, char** argv) {
  using namespace loom::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    std::fputs(kUsage, stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  Argv rest(argv + 2, argv + argc);
  try {
    if (command == "gpus") return cmd_gpus(rest);
    if (command == "predict") return cmd_predict(rest);
    if (command == "diagnose") return cmd_diagnose(rest);
    if (command == "report") return cmd_report(rest);
    throw loom::InputError(command, "unknown command; run `loom --help` for the list");
  } catch (const loom::InputError& e) {
    const char* red = use_color() ? "\033[31m" : "";
    const char* reset = use_color() ? "\033[0m" : "";
    std::cerr << red << "loom: " << reset << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    // Anything else is a bug in loom, not bad input: say so plainly, but still exit cleanly.
    std::cerr << "loom: internal error: " << e.what() << "; please report this with the command line\n";
    return 3;
  }
}
