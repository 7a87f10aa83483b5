// Checked whole-file writes (see core/file_io.h).
#include "core/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/error.h"
#include "core/output_path.h"

namespace loom {

std::string write_failed_message(int errnum) {
  return std::string("write failed: ") + (errnum ? std::strerror(errnum) : "I/O error") +
         "; check that the folder exists, is writable and has free space";
}

namespace {

// The regular files this process read as input (device, inode: every spelling and link of one file), so that no
// writer truncates one: `calibrate R.json -o R.json`, `trace import --cases C -o C` and `report --json-in J -o J`
// destroyed their input and exited 0.
// Off unless a command turns it on (the CLI's main): a long-lived caller (Python, the C API, tests) may read a
// file and later rewrite it on purpose. The key holds size and mtime too, so a deleted file's reused inode is
// another file.
std::mutex inputs_mutex;
bool tracking = false;
using FileKey = std::tuple<dev_t, ino_t, off_t, int64_t>;
std::set<FileKey>& inputs() {
  static std::set<FileKey> s;
  return s;
}
FileKey key_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

}  // namespace

void track_input_files(bool on) {
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  tracking = on;
  if (!on) inputs().clear();
}

void refuse_input_overwrite(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  if (tracking && inputs().count(key_of(st)))
    throw InputError(path, "is also an input of this command; writing it would destroy that input: give another "
                           "output file");
}

bool is_stdout_path(const std::string& path) { return path == "-"; }

namespace {

/// `path` is the file this process's stdout writes to under another name (/dev/stdout, /dev/fd/1, a file stdout is
/// redirected to); /dev/null, where stdout may also go, is no output to mix.
bool is_stdout_file(const std::string& path) {
  struct stat a {}, out {}, null {};
  if (::stat(path.c_str(), &a) != 0 || ::fstat(1, &out) != 0) return false;
  if (S_ISCHR(a.st_mode) && ::stat("/dev/null", &null) == 0 && a.st_rdev == null.st_rdev) return false;
  return a.st_dev == out.st_dev && a.st_ino == out.st_ino;
}

}  // namespace

void refuse_stdout_output(const std::string& flag, const std::string& path, const std::string& why) {
  if (is_stdout_path(path)) throw InputError(flag, "'-' is stdout, which " + why);
  // `--per-shape /dev/stdout --format json` wrote the CSV into the JSON report (round 18).
  if (is_stdout_file(path)) throw InputError(flag, "'" + path + "' is stdout, which " + why);
}

void refuse_control_bytes_in_path(const std::string& path) {
  for (const char ch : path)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
      throw InputError(path, "holds a control character (a newline, tab or escape; shown as '?'); give a file name "
                             "without them");
}

OutputFile begin_output(const std::string& path) {
  refuse_control_bytes_in_path(path);
  OutputFile f{path, path, "", -1};
  if (is_stdout_path(path)) {  // `-o -`: stdout, after what the command printed there already
    std::cout.flush();
    std::fflush(stdout);
    f.fd = ::dup(STDOUT_FILENO);
    if (f.fd < 0) throw InputError("stdout", write_failed_message(errno));
    return f;
  }
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N name a descriptor someone opened (`-o /dev/stdout >> log`): written in
  // place, never replaced by a rename.
  if (path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0) return f;
  struct stat st{};
  std::string target = path;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {  // replace the link's target, keep the link
    std::error_code ec;
    const auto real = std::filesystem::canonical(path, ec);
    if (ec) return f;  // a dangling link: written in place, as before
    target = real.string();
  }
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return f;  // a device or pipe: no rename over it
  if (exists && ::access(target.c_str(), W_OK) != 0) return f;  // a read-only file stays refused, not replaced
  std::string tmpl = target + ".loom-tmp-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return f;  // a folder we may not create files in (the file itself may still be writable)
  // mkstemp makes the file 0600: give it the mode the file has, or a new file's (0666 less the umask).
  mode_t mode = st.st_mode & 07777;
  if (!exists) {
    static std::mutex umask_mutex;
    const std::lock_guard<std::mutex> lock(umask_mutex);
    const mode_t mask = ::umask(022);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  (void)::fchmod(fd, mode);
  f.write_to = tmpl, f.target = target, f.fd = fd;
  return f;
}

void commit_output(const OutputFile& f) {
  if (f.target.empty()) return;
  if (::rename(f.write_to.c_str(), f.target.c_str()) != 0) {
    const int err = errno;
    ::unlink(f.write_to.c_str());
    throw InputError(f.path, write_failed_message(err));
  }
}

void discard_output(const OutputFile& f) noexcept {
  if (!f.target.empty()) ::unlink(f.write_to.c_str());
}

void write_file(const std::string& path, std::string_view text) {
  refuse_control_bytes_in_path(path);
  const std::string label = is_stdout_path(path) ? "stdout" : path;  // `-o -`: "-: write failed" named no output
  if (!is_stdout_path(path)) refuse_named_pipe(path), refuse_input_overwrite(path);
  // stdio rather than ofstream: fwrite/fflush/fclose report errno, which says *why* (ENOSPC, EACCES, ...).
  errno = 0;
  const OutputFile out = begin_output(path);
  std::FILE* f = out.fd >= 0 ? ::fdopen(out.fd, "wb") : std::fopen(path.c_str(), "wb");
  if (!f) {
    const int err = errno;
    if (out.fd >= 0) ::close(out.fd);
    discard_output(out);
    throw InputError(label, write_failed_message(err));
  }
  const size_t n = text.empty() ? 0 : std::fwrite(text.data(), 1, text.size(), f);
  int err = n == text.size() ? 0 : (errno ? errno : EIO);
  if (!err && std::fflush(f) != 0) err = errno ? errno : EIO;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (err) {
    discard_output(out);
    throw InputError(label, write_failed_message(err));
  }
  commit_output(out);
}

void refuse_named_pipe(const std::string& path) {
  // A named pipe (mkfifo) blocks open() until the other end opens it: with no writer (or reader), loom hung. The path
  // itself being a FIFO is refused; the pipes a shell hands over (/dev/stdin, <(...), >(...)) are links and still work.
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode))
    throw InputError(path, "is a named pipe (FIFO), which blocks until its other end opens; give a regular file, or "
                           "redirect the pipe to stdin/stdout");
}

void check_data_file(const std::string& path) {
  if (path.empty()) throw InputError("''", "empty path; give a file");
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  // A link loop reads as "no such file" to every later check; say what it is.
  if (ec && ec.value() == ELOOP)
    throw InputError(path, "cannot open: " + ec.message() + " (a link loop?); check the path");
  if (!ec && (type == std::filesystem::file_type::character || type == std::filesystem::file_type::block))
    throw InputError(path, "is a device, not a file; give a regular file (a pipe such as /dev/stdin also works)");
  if (!ec && type == std::filesystem::file_type::directory) throw InputError(path, "is a directory; give a file");
  refuse_named_pipe(path);
}

void check_input_file(const std::string& path) {
  check_data_file(path);
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    const std::lock_guard<std::mutex> lock(inputs_mutex);
    if (tracking) inputs().insert(key_of(st));
  }
}

namespace {

std::string read_checked(const std::string& path, const std::string& cannot_open, const std::string& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(where.empty() ? path : where, cannot_open);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& cannot_open, const std::string& where) {
  check_input_file(path);
  return read_checked(path, cannot_open, where);
}

std::string read_data_file(const std::string& path, const std::string& cannot_open) {
  check_data_file(path);
  return read_checked(path, cannot_open, "");
}

void refuse_cr_line_ends(std::string_view line, const std::string& where) {
  const size_t cr = line.find('\r');
  if (cr != std::string_view::npos && cr + 1 < line.size())
    throw InputError(where, "a carriage return inside the line: the file has CR-only (classic Mac) line ends; save it "
                            "with LF (or CRLF) line ends");
}

namespace {

/// A folder can report itself writable and still hold no new file: access() grants root W_OK on /proc and /sys, so
/// `--per-shape /proc/x` was refused only when written, after the fit (round 18). Creating the file is the one sure
/// check; it is removed at once. An existing regular file is opened for writing without truncation.
void refuse_uncreatable_file(const std::string& path, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && !fs::is_regular_file(path, ec)) return;  // a device (/dev/null) or a link to one: written as such
  const int fd = exists ? ::open(path.c_str(), O_WRONLY | O_CLOEXEC)
                        : ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return;  // created by another process meanwhile: the writer reports what it finds
    throw InputError(path, std::string("cannot be written: ") + std::strerror(errno) + " (in folder '" + dir +
                               "'); give a file in a folder that can hold one");
  }
  ::close(fd);
  if (!exists) ::unlink(path.c_str());
}

}  // namespace

void check_output_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw InputError("-o", "empty output path");
  refuse_control_bytes_in_path(path);
  if (is_stdout_path(path)) return;
  refuse_named_pipe(path);
  refuse_input_overwrite(path);
  // /dev/full (or a link to it) takes no byte: refused when written, it was refused after the work (a fit's seconds).
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7))
    throw InputError(path, "write failed: No space left on device (it is /dev/full, checked before any work); give "
                           "a file to write");
  if (fs::is_directory(path, ec)) throw InputError(path, "is a folder; give a file name to write");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw InputError(path, "cannot be written: folder '" + dir.string() + "' does not exist; create it first");
  if (::access(dir.c_str(), W_OK) != 0 && !fs::exists(path, ec))
    throw InputError(path, "cannot be written: folder '" + dir.string() + "' is not writable");
  refuse_uncreatable_file(path, dir.string());
}

}  // namespace loom
