// Progress reporting for the CLI.
#include "cli/progress.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace loom::cli {

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(std::string task) : task_(std::move(task)), tty_(isatty(STDERR_FILENO) != 0), start_s_(now_s()) {}

void Progress::update(size_t done, size_t total, const std::string& label) {
  int pct = total ? static_cast<int>(100.0 * done / total) : 100;
  if (tty_) {
    if (pct == last_pct_ && label.empty()) return;
    int filled = pct / 4;
    std::fprintf(stderr, "\r%-28s [%s%s] %3d%%  %zu/%zu  %5.1fs  %-30.30s", task_.c_str(), std::string(filled, '#').c_str(),
                 std::string(25 - filled, '.').c_str(), pct, done, total, now_s() - start_s_, label.c_str());
  } else if (pct / 25 != last_pct_ / 25 || (!label.empty() && pct != last_pct_)) {
    std::fprintf(stderr, "%s: %d%% (%zu/%zu) %.1fs %s\n", task_.c_str(), pct, done, total, now_s() - start_s_,
                 label.c_str());
  }
  last_pct_ = pct;
}

void Progress::finish(const std::string& summary) {
  if (tty_) std::fprintf(stderr, "\r%-100s\r", "");
  std::fprintf(stderr, "%s: done in %.1fs%s%s\n", task_.c_str(), now_s() - start_s_, summary.empty() ? "" : ": ",
               summary.c_str());
}

}  // namespace loom::cli
