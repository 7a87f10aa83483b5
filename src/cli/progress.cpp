// Progress reporting for the CLI.
#include "cli/progress.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <unistd.h>

namespace loom::cli {

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
// Off a terminal (CI logs, pipes) the lines are held back until the work has run this long: a refusal that comes
// early (a corpus with no usable kernel, a bad file) is then the only line on stderr, as the error policy asks,
// while a long run still logs as it goes. main() writes what is held when a command ends and drops it on a refusal.
constexpr double kLiveAfterS = 5.0;
std::string& held() {
  static std::string s;
  return s;
}
double held_since_s = -1;
bool live = false;

void say(const std::string& line) {
  if (live) {
    std::fputs(line.c_str(), stderr);
    return;
  }
  if (held_since_s < 0) held_since_s = now_s();
  held() += line;
  if (now_s() - held_since_s >= kLiveAfterS) {
    live = true;
    flush_progress();
  }
}

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return buf;
}
}  // namespace

void flush_progress() {
  std::fputs(held().c_str(), stderr);
  held().clear();
}

void drop_progress() { held().clear(); }

void progress_note(const std::string& line) { say(line + "\n"); }

Progress::Progress(std::string task) : task_(std::move(task)), tty_(isatty(STDERR_FILENO) != 0), start_s_(now_s()) {}

void Progress::update(size_t done, size_t total, const std::string& label) {
  int pct = total ? static_cast<int>(100.0 * done / total) : 100;
  if (tty_) {
    if (pct == last_pct_ && label.empty()) return;
    int filled = pct / 4;
    std::fprintf(stderr, "\r%-28s [%s%s] %3d%%  %zu/%zu  %5.1fs  %-30.30s", task_.c_str(),
                 std::string(filled, '#').c_str(), std::string(25 - filled, '.').c_str(), pct, done, total,
                 now_s() - start_s_, label.c_str());
  } else if (pct / 25 != last_pct_ / 25 || (!label.empty() && pct != last_pct_)) {
    say(printf_string("%s: %d%% (%zu/%zu) %.1fs %.300s\n", task_.c_str(), pct, done, total, now_s() - start_s_,
                      label.c_str()));
  }
  last_pct_ = pct;
}

void Progress::finish(const std::string& summary) {
  if (tty_) std::fprintf(stderr, "\r%-100s\r", "");
  say(printf_string("%s: done in %.1fs%s%.300s\n", task_.c_str(), now_s() - start_s_, summary.empty() ? "" : ": ",
                    summary.c_str()));
}

}  // namespace loom::cli
