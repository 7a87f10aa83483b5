// Fuzz target: the CLI argument parser (src/cli/args.cpp) and the request-stream flags it feeds, over argv split
// from the input at newlines. Every accessor is exercised; the only exception allowed out is loom::InputError.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/args.h"
#include "core/error.h"
#include "serving/metrics.h"
#include "serving/requests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i <= text.size() && argv.size() < 64; ++i)
    if (i == text.size() || text[i] == '\n') {
      argv.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  static const std::vector<std::string> flags = {"--gpu", "--tp", "--rate", "--format", "--slo", "--prompt-len",
                                                 "--arrivals", "--num-requests", "-o"};
  try {
    loom::cli::Args args(argv, flags, {"--quiet", "--per-request"});
    (void)args.number("--rate");
    (void)args.integer("--tp", 1, 8, 1);
    (void)args.integer("--num-requests", 1, 1000, 10);
    (void)args.format();
    (void)args.all("--gpu");
    (void)args.get("-o");
    if (args.has("--slo")) (void)loom::serving::parse_slo(args.get("--slo"), "--slo");
    if (args.has("--arrivals")) (void)loom::serving::parse_arrivals(args.get("--arrivals"), "--arrivals");
    const std::string len = args.get("--prompt-len", "8");
    if (len.rfind("file:", 0) != 0) (void)loom::serving::parse_length_dist(len, "--prompt-len");
    args.no_positionals("fuzz");
  } catch (const loom::InputError&) {
  }
  return 0;
}
