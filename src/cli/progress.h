// A progress line on stderr for long work (dataset building, training, validation): a redrawn bar on a terminal,
// occasional plain lines otherwise (CI logs), held back for the first seconds (see flush_progress).
#pragma once

#include <string>

namespace loom::cli {

class Progress {
 public:
  explicit Progress(std::string task);
  /// Reports `done` of `total` with an optional label; cheap to call often.
  void update(size_t done, size_t total, const std::string& label = "");
  /// Ends the line.
  void finish(const std::string& summary = "");

 private:
  std::string task_;
  bool tty_;
  int last_pct_ = -1;
  double start_s_;
};

/// A note line among the progress lines (e.g. what a step skipped), in their order and held back like them.
void progress_note(const std::string& line);
/// Writes the progress lines held back so far (main, when a command has ended).
void flush_progress();
/// Forgets them (main, on a refusal: its one 'loom: ' line is then all that stderr says).
void drop_progress();

}  // namespace loom::cli
