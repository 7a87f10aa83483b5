// Reads a gzip file (every member) or a plain file through zlib's inflate, refusing bytes after the gzip data.
#pragma once

#include <zlib.h>

#include <cstdio>
#include <string>

namespace loom::trace_io {

/// A file read as gzip when it starts with the gzip magic (1f 8b), else as plain bytes. gzread, which this replaces,
/// silently skipped whatever followed the last gzip member: a file with bytes appended (two files joined, a copy
/// resumed in the wrong place) read as its first part only, and the answer was computed from part of the data.
class GzStream {
 public:
  /// Opens `path`; throws InputError(path, "cannot open: ...") when it cannot.
  explicit GzStream(const std::string& path);
  ~GzStream();
  GzStream(const GzStream&) = delete;
  GzStream& operator=(const GzStream&) = delete;

  /// Reads up to `n` bytes into `out`; 0 at the end of the data. Throws InputError(where, ...) on damaged or
  /// truncated gzip data and on bytes after the last gzip member.
  size_t read(char* out, size_t n, const std::string& where);

 private:
  bool refill();  // more raw bytes into in_ (keeping unread ones); false at the end of the file

  std::FILE* f_ = nullptr;
  z_stream z_{};
  bool gz_ = false, raw_eof_ = false, done_ = false;
  unsigned char in_[1 << 17];
};

}  // namespace loom::trace_io
