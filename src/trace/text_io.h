// Internal helpers of the trace readers: line-at-a-time reading of plain or gzip text (or an in-memory buffer),
// CSV field splitting/quoting, strict number parsing and `#key=value` metadata lines.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loom::trace_io {

/// Longest line the readers accept; longer lines are an InputError (protects against binary garbage).
inline constexpr size_t kMaxLineBytes = 1 << 20;

/// Most bytes a reader inflates from one file (2 GiB): beyond it a gzip input is refused (a gzip bomb, or a file
/// no loom trace comes near: the largest committed corpus is a few MB) instead of running for minutes.
inline constexpr size_t kMaxInflatedBytes = size_t(1) << 31;

/// Reads lines from a file (plain or gzip: zlib's gzread passes plain files through) or from a string.
class LineReader {
 public:
  /// Opens `path`; throws InputError(path, ...) when it cannot be opened.
  static LineReader open_file(const std::string& path, size_t max_bytes = kMaxInflatedBytes);
  /// Reads from `text` (not copied: it must outlive the reader); `name` is used in error messages.
  static LineReader from_text(std::string_view text, std::string name);

  LineReader(LineReader&&) noexcept;
  LineReader& operator=(LineReader&&) noexcept;
  ~LineReader();

  /// Next line without its '\n' (and a trailing '\r'; on line 1, without a UTF-8 byte-order mark); false at end of
  /// input. Throws InputError on a gzip error or a line longer than kMaxLineBytes.
  bool next(std::string& line);
  /// "NAME:LINE" of the line last returned.
  std::string where() const { return name_ + ":" + std::to_string(line_no_); }
  const std::string& name() const { return name_; }
  int64_t line_no() const { return line_no_; }

 private:
  LineReader() = default;
  bool fill();  // reads more bytes into buf_; false at end of input

  struct Gz;
  std::unique_ptr<Gz> gz_;
  std::string_view text_;
  bool from_text_ = false;
  std::string name_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  int64_t line_no_ = 0;
  size_t read_bytes_ = 0;               // inflated bytes read so far
  size_t max_bytes_ = kMaxInflatedBytes;
};

/// Reads a whole file (plain or gzip) into memory; throws InputError on open/read errors or when larger than max.
std::string read_all(const std::string& path, size_t max_bytes = kMaxInflatedBytes);

/// The "more than N bytes after decompression" message of both readers.
std::string too_large_message(size_t max_bytes);

/// Splits one CSV line (RFC 4180 quoting: "a,b" and "" inside quotes). Throws InputError(where) on an unterminated
/// quote.
std::vector<std::string> split_csv(std::string_view line, const std::string& where);
/// Quotes a CSV field when it holds a comma, quote or leading/trailing space.
std::string csv_field(std::string_view s);
/// Throws InputError(where, "duplicate column 'X' in the CSV header; ...") when a header names a column twice
/// (a reader would silently use one of them).
void check_unique_columns(const std::vector<std::string>& header, const std::string& where);
/// Removes a leading UTF-8 byte-order mark (spreadsheet exports write one); true when one was removed.
bool strip_bom(std::string& line);
/// Splits on '\t'.
std::vector<std::string_view> split_tabs(std::string_view line);

/// Strict parsers: the whole field must be a number (no spaces, no trailing text). std::nullopt otherwise.
std::optional<int64_t> parse_i64(std::string_view s);
std::optional<double> parse_f64(std::string_view s);

/// Parses "#key=value" into (key, value); std::nullopt for other lines.
std::optional<std::pair<std::string, std::string>> parse_meta(std::string_view line);

/// Gets metadata value or "" .
std::string meta_get(const std::map<std::string, std::string>& meta, const std::string& key);

/// Checks the value of a metadata key loom reads as a number: `#sms=` a whole number 1 to 4096, `#clock_mhz=` 1 to
/// 10000 MHz, `#resolution_us=` in (0, 1e6] us; other keys pass. With `zero_unrecorded`, `#sms=0` and `#clock_mhz=0`
/// pass too (what the collector and the sweeps write when the device query failed: not recorded). Throws
/// InputError(where, ...).
void check_meta_value(const std::string& key, const std::string& value, const std::string& where,
                      bool zero_unrecorded = false);

/// Adds one `#key=value` line (at `where`, "FILE:LINE") to `meta`, its line to `meta_where`: a key given twice or a
/// value check_meta_value refuses throws InputError(where, ...). The corpus, case-list and .lct readers use it (the
/// cuBLASLt sweep reader, wave/lt_sweep.cpp, still reads its own `#` lines).
void add_meta(std::map<std::string, std::string>& meta, std::map<std::string, std::string>& meta_where,
              const std::pair<std::string, std::string>& kv, const std::string& where, bool zero_unrecorded = false);

/// Writes text to `path`, gzip-compressed when `path` ends in ".gz". Throws InputError(path, ...) on failure.
void write_text(const std::string& path, const std::string& text);

/// True when `s` ends with `suffix`.
bool ends_with(std::string_view s, std::string_view suffix);

/// Collects per-record problems of a lenient read: counts all, keeps the first few messages.
struct SkipLog {
  int64_t count = 0;
  std::vector<std::string> messages;
  void add(std::string msg, size_t keep = 20) {
    ++count;
    if (messages.size() < keep) messages.push_back(std::move(msg));
  }
};

}  // namespace loom::trace_io
