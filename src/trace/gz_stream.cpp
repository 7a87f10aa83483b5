// Reads a gzip file (every member) or a plain file through zlib's inflate (see trace/gz_stream.h).
#include "trace/gz_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace loom::trace_io {

namespace {

std::string damaged(const char* msg) {
  return std::string("read error: ") + (msg ? msg : "?") + "; the file is damaged (truncated gzip?)";
}

}  // namespace

GzStream::GzStream(const std::string& path) {
  errno = 0;
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_)
    throw InputError(path, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory") +
                               "; check the path");
  refill();
  gz_ = z_.avail_in >= 2 && in_[0] == 0x1f && in_[1] == 0x8b;
  if (gz_ && inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
    std::fclose(f_);
    throw InputError(path, "cannot open: out of memory");
  }
}

GzStream::~GzStream() {
  if (gz_) inflateEnd(&z_);
  if (f_) std::fclose(f_);
}

bool GzStream::refill() {
  if (raw_eof_) return false;
  if (z_.avail_in > 0 && z_.next_in != in_) std::memmove(in_, z_.next_in, z_.avail_in);
  z_.next_in = in_;
  const size_t got = std::fread(in_ + z_.avail_in, 1, sizeof in_ - z_.avail_in, f_);
  z_.avail_in += static_cast<uInt>(got);
  if (got == 0) raw_eof_ = true;
  return got > 0;
}

size_t GzStream::read(char* out, size_t n, const std::string& where) {
  if (done_ || n == 0) return 0;
  if (!gz_) {  // plain bytes: what is buffered first, then the file
    if (z_.avail_in == 0 && !refill()) return done_ = true, 0;
    const size_t k = std::min<size_t>(n, z_.avail_in);
    std::memcpy(out, z_.next_in, k);
    z_.next_in += k, z_.avail_in -= static_cast<uInt>(k);
    return k;
  }
  z_.next_out = reinterpret_cast<Bytef*>(out);
  z_.avail_out = static_cast<uInt>(n);
  while (z_.avail_out == n) {
    if (z_.avail_in == 0) refill();
    const int ret = inflate(&z_, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {  // end of one member: another member, the end of the file, or stray bytes
      if (z_.avail_in < 2) refill();
      if (z_.avail_in == 0) {
        done_ = true;
        break;
      }
      if (z_.avail_in < 2 || z_.next_in[0] != 0x1f || z_.next_in[1] != 0x8b)
        throw InputError(where, "bytes after the end of the gzip data; the file is damaged or two files were joined: "
                                "keep the gzip data only");
      inflateReset(&z_);
      continue;
    }
    if (ret == Z_BUF_ERROR && z_.avail_in == 0 && raw_eof_)
      throw InputError(where, damaged("unexpected end of file"));
    if (ret != Z_OK && ret != Z_BUF_ERROR) throw InputError(where, damaged(z_.msg));
  }
  return n - z_.avail_out;
}

}  // namespace loom::trace_io
