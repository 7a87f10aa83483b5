// Checked whole-file writes (see core/file_io.h).
#include "core/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "core/error.h"

namespace loom {

std::string write_failed_message(int errnum) {
  return std::string("write failed: ") + (errnum ? std::strerror(errnum) : "I/O error") +
         "; check that the folder exists, is writable and has free space";
}

void write_file(const std::string& path, std::string_view text) {
  // stdio rather than ofstream: fwrite/fflush/fclose report errno, which says *why* (ENOSPC, EACCES, ...).
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw InputError(path, write_failed_message(errno));
  const size_t n = text.empty() ? 0 : std::fwrite(text.data(), 1, text.size(), f);
  int err = n == text.size() ? 0 : (errno ? errno : EIO);
  if (!err && std::fflush(f) != 0) err = errno ? errno : EIO;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : EIO;
  if (err) throw InputError(path, write_failed_message(err));
}

void check_input_file(const std::string& path) {
  if (path.empty()) throw InputError("''", "empty path; give a file");
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  // A link loop reads as "no such file" to every later check; say what it is.
  if (ec && ec.value() == ELOOP) throw InputError(path, "cannot open: " + ec.message() + " (a link loop?); check the path");
  if (!ec && (type == std::filesystem::file_type::character || type == std::filesystem::file_type::block))
    throw InputError(path, "is a device, not a file; give a regular file (a pipe such as /dev/stdin also works)");
  if (!ec && type == std::filesystem::file_type::directory) throw InputError(path, "is a directory; give a file");
}

void check_output_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw InputError("-o", "empty output path");
  if (fs::is_directory(path, ec)) throw InputError(path, "is a folder; give a file name to write");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw InputError(path, "cannot be written: folder '" + dir.string() + "' does not exist; create it first");
  if (::access(dir.c_str(), W_OK) != 0 && !fs::exists(path, ec))
    throw InputError(path, "cannot be written: folder '" + dir.string() + "' is not writable");
}

}  // namespace loom
