// Line reading (plain/gzip/in-memory), CSV splitting and strict number parsing for the trace readers.
#include "trace/text_io.h"

#include <filesystem>

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include <unistd.h>

#include "core/error.h"
#include "core/file_io.h"
#include "core/output_path.h"
#include "trace/gz_stream.h"

namespace loom::trace_io {

struct LineReader::Gz {
  explicit Gz(const std::string& path) : s(path) {}
  GzStream s;
};

std::string too_large_message(size_t max_bytes) {
  const bool gib = max_bytes % (size_t(1) << 30) == 0;
  return "more than " + (gib ? std::to_string(max_bytes >> 30) + " GiB" : std::to_string(max_bytes) + " bytes") +
         " (after gzip decompression); loom reads inputs up to that size: is this a gzip bomb or the wrong file?";
}

LineReader LineReader::open_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory; give a file");
  LineReader r;
  r.name_ = path;
  r.max_bytes_ = max_bytes;
  check_input_file(path);
  r.gz_ = std::make_unique<Gz>(path);
  return r;
}

LineReader LineReader::from_text(std::string_view text, std::string name) {
  LineReader r;
  r.name_ = std::move(name);
  r.text_ = text;
  r.from_text_ = true;
  return r;
}

LineReader::LineReader(LineReader&&) noexcept = default;
LineReader& LineReader::operator=(LineReader&&) noexcept = default;
LineReader::~LineReader() = default;

bool LineReader::fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  if (from_text_) {
    buf_.append(text_.data(), text_.size());
    text_ = {};
    eof_ = true;
    return !buf_.empty();
  }
  char chunk[1 << 16];
  const size_t n = gz_->s.read(chunk, sizeof chunk, name_ + ":" + std::to_string(line_no_ + 1));
  if (n == 0) {
    eof_ = true;
    return false;
  }
  read_bytes_ += size_t(n);
  if (read_bytes_ > max_bytes_)
    throw InputError(name_ + ":" + std::to_string(line_no_ + 1), too_large_message(max_bytes_));
  buf_.append(chunk, size_t(n));
  return true;
}

bool LineReader::next(std::string& line) {
  for (;;) {
    size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      if (nl - pos_ > kMaxLineBytes) break;
      line.assign(buf_, pos_, nl - pos_);
      pos_ = nl + 1;
      ++line_no_;
      refuse_cr_line_ends(line, where());
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line_no_ == 1) strip_bom(line);
      return true;
    }
    if (buf_.size() - pos_ > kMaxLineBytes) break;
    if (!fill()) {
      if (pos_ >= buf_.size()) return false;
      line.assign(buf_, pos_, std::string::npos);  // last line without '\n'
      pos_ = buf_.size();
      ++line_no_;
      refuse_cr_line_ends(line, where());
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line_no_ == 1) strip_bom(line);
      return true;
    }
  }
  throw InputError(name_ + ":" + std::to_string(line_no_ + 1),
                   "line longer than " + std::to_string(kMaxLineBytes) + " bytes; this is not a loom text file");
}

std::string read_all(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory; give a file");
  check_input_file(path);
  GzStream in(path);
  std::string out;
  char chunk[1 << 16];
  while (const size_t n = in.read(chunk, sizeof chunk, path)) {
    out.append(chunk, n);
    if (out.size() > max_bytes) throw InputError(path, too_large_message(max_bytes));
  }
  return out;
}

std::vector<std::string> split_csv(std::string_view line, const std::string& where) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  for (;;) {
    cur.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        cur.push_back(line[i++]);
      }
      if (!closed) throw InputError(where, "unterminated quote in CSV line; close the quoted field");
      if (i < line.size() && line[i] != ',')
        throw InputError(where, "text after a closing quote in CSV line; quote the whole field");
    } else {
      while (i < line.size() && line[i] != ',') cur.push_back(line[i++]);
    }
    out.push_back(cur);
    if (i >= line.size()) break;
    ++i;  // skip ','
  }
  return out;
}

void check_unique_columns(const std::vector<std::string>& header, const std::string& where) {
  std::vector<std::string> sorted = header;
  std::sort(sorted.begin(), sorted.end());
  if (auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end())
    throw InputError(where, "duplicate column '" + d->substr(0, 60) + "' in the CSV header; give each column once");
}

bool strip_bom(std::string& line) {
  if (line.rfind("\xEF\xBB\xBF", 0) != 0) return false;
  line.erase(0, 3);
  return true;
}

std::string csv_field(std::string_view s) {
  bool quote = s.find_first_of(",\"\n\r") != std::string_view::npos ||
               (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  out.push_back('"');
  return out;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t t = line.find('\t', start);
    if (t == std::string_view::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, t - start));
    start = t + 1;
  }
}

namespace {
/// The whole of `s` as one number (std::from_chars: no leading spaces, no trailing text).
template <typename T>
std::optional<T> parse_whole(std::string_view s) {
  T v{};
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

std::optional<int64_t> parse_i64(std::string_view s) { return parse_whole<int64_t>(s); }
std::optional<double> parse_f64(std::string_view s) { return parse_whole<double>(s); }

std::optional<std::pair<std::string, std::string>> parse_meta(std::string_view line) {
  if (line.size() < 2 || line[0] != '#') return std::nullopt;
  size_t eq = line.find('=');
  if (eq == std::string_view::npos || eq == 1) return std::nullopt;
  std::string_view key = line.substr(1, eq - 1);
  if (key.find_first_of(" \t") != std::string_view::npos) return std::nullopt;
  return std::make_pair(std::string(key), std::string(line.substr(eq + 1)));
}

std::string meta_get(const std::map<std::string, std::string>& meta, const std::string& key) {
  auto it = meta.find(key);
  return it == meta.end() ? std::string() : it->second;
}

// The numbers a corpus's readers use were checked only in the corpus: a case list's or a collector trace's `#sms=abc`
// or `#clock_mhz=nan` was dropped by `trace import` (a whole GPU at no clock), and `#clock_mhz=99999` was written
// into a corpus that no reader then took. Round 11: one check, in every reader of these lines.
void check_meta_value(const std::string& key, const std::string& value, const std::string& where,
                      bool zero_unrecorded) {
  const std::string shown = value.substr(0, 40);
  if (zero_unrecorded && (key == "sms" || key == "clock_mhz") && value == "0") return;
  if (key == "sms") {
    const auto v = parse_i64(value);
    if (!v || *v < 1 || *v > 4096)
      throw InputError(where, "'#sms=" + shown + "' is not an SM count (a whole number, 1 to 4096)");
  } else if (key == "clock_mhz") {
    const auto v = parse_f64(value);
    if (!v || !std::isfinite(*v) || *v < 1 || *v > 10000)
      throw InputError(where, "'#clock_mhz=" + shown + "' is not a clock in MHz (1 to 10000)");
  } else if (key == "resolution_us") {  // training skips rows finer than a source's timing resolution
    const auto v = parse_f64(value);
    if (!v || !std::isfinite(*v) || *v <= 0 || *v > 1e6)
      throw InputError(where, "#resolution_us=" + shown +
                                  ": the timing resolution must be a number of microseconds in (0, 1e6]");
  }
}

// A key given twice: which value is meant is unknowable (the last won silently: `#gpu_key=h200` then
// `#gpu_key=h100-sxm` trained H200 rows as H100's). Round 10 for corpora and case lists, round 11 for .lct files.
void add_meta(std::map<std::string, std::string>& meta, std::map<std::string, std::string>& meta_where,
              const std::pair<std::string, std::string>& kv, const std::string& where, bool zero_unrecorded) {
  if (auto it = meta_where.find(kv.first); it != meta_where.end())
    throw InputError(where, "metadata '#" + kv.first.substr(0, 40) + "=' is given twice (first at " + it->second +
                                "); give it once");
  check_meta_value(kv.first, kv.second, where, zero_unrecorded);
  meta[kv.first] = kv.second;
  meta_where[kv.first] = where;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void write_text(const std::string& path, const std::string& text) {
  refuse_control_bytes_in_path(path);
  const std::string label = is_stdout_path(path) ? "stdout" : path;  // `-o -` is stdout in the message
  if (!is_stdout_path(path)) refuse_named_pipe(path), refuse_input_overwrite(path);
  const bool gz = ends_with(path, ".gz");
  const OutputFile out = begin_output(path);  // a temporary file renamed over `path`: a failed write leaves it whole
  const char* mode = gz ? "wb6" : "wbT";      // "T": plain (transparent) write
  gzFile f = out.fd >= 0 ? gzdopen(out.fd, mode) : gzopen(path.c_str(), mode);
  if (!f) {
    const int err = errno;
    if (out.fd >= 0) ::close(out.fd);
    discard_output(out);
    throw InputError(label, write_failed_message(err));
  }
  size_t off = 0;
  while (off < text.size()) {
    unsigned n = unsigned(std::min<size_t>(text.size() - off, 1u << 20));
    if (gzwrite(f, text.data() + off, n) != int(n)) {
      const int err = errno;
      gzclose(f);
      discard_output(out);
      throw InputError(label, write_failed_message(err));
    }
    off += n;
  }
  if (gzclose(f) != Z_OK) {
    const int err = errno;
    discard_output(out);
    throw InputError(label, write_failed_message(err));
  }
  commit_output(out);
}

}  // namespace loom::trace_io
