// Checked whole-file writes and reads: every file loom writes (--out, -o, --trace-out, --json-out, tables, exports)
// goes through write_file, so a full disk or a read-only folder is one clear error instead of a silently short file;
// whole-file readers check what they are given (a directory, device or named pipe) before they open it.
#pragma once

#include <string>
#include <string_view>

namespace loom {

/// Writes `text` to `path` (binary, replacing it), flushes and closes it, and checks every step. Throws
/// InputError(path, "write failed: <reason>; ...") when the file cannot be opened, written or flushed. A regular
/// file is replaced atomically (see begin_output): a failed write leaves the old file whole.
void write_file(const std::string& path, std::string_view text);

/// Where a writer puts the new bytes of `path`. For a regular file (or a new one) that is a temporary file beside it
/// (or beside a symbolic link's target), opened as `fd`, which commit_output renames over the file: a write cut short
/// (full disk, file-size limit, a kill) leaves the old file whole instead of half of a new one. For a device or
/// pipe (/dev/stdout, /dev/full) and a folder that cannot hold a temporary file, `fd` is -1 and the writer opens
/// `write_to` == `path` itself.
struct OutputFile {
  std::string path;      ///< as given (messages)
  std::string write_to;  ///< where the bytes go
  std::string target;    ///< the file replaced on commit (empty: written in place)
  int fd = -1;           ///< open on write_to when it is a temporary file
};
OutputFile begin_output(const std::string& path);
/// Renames the temporary file over the target (nothing for an in-place write). Throws InputError(path, ...).
void commit_output(const OutputFile& f);
/// Removes the temporary file of a write that failed (nothing for an in-place write); never throws.
void discard_output(const OutputFile& f) noexcept;

/// The "write failed: <strerror(errno)>; check ..." message write_file uses (for writers that use other streams).
std::string write_failed_message(int errnum);

/// Throws InputError(path, "is a named pipe ...") when `path` itself is a FIFO: open() would wait for the other end
/// forever. Readers (check_input_file) and writers (write_file, check_output_file, trace_io::write_text) call it.
void refuse_named_pipe(const std::string& path);

/// Throws InputError(path, "is a device ...") for a character or block device (/dev/zero, /dev/urandom, /dev/null,
/// a disk): such a "file" never ends or holds no text, and a reader would consume memory and time before failing.
/// A directory, a symbolic-link loop and an empty path are refused too, each by what it is (not as "no lines" or
/// "not valid JSON"), and so is a named pipe (FIFO: open() waits for a writer forever). Regular files, the pipes a
/// shell hands over (/dev/stdin, process substitution) and missing paths pass (the reader
/// says what is wrong); a regular file is recorded as an input (refuse_input_overwrite).
void check_input_file(const std::string& path);
/// The same checks for loom's own data files (models/, kernels/ under LOOM_HOME), without recording them as inputs:
/// `loom train` and `loom trace paths` rewrite the files a prediction on the way has read.
void check_data_file(const std::string& path);

/// All of `path`'s bytes after check_input_file. Throws InputError(where, cannot_open) when it cannot be opened
/// (`where` empty: the path); each reader says what the file should be and what to do.
std::string read_input_file(const std::string& path, const std::string& cannot_open, const std::string& where = "");
/// The same after check_data_file, for loom's own data files (not recorded as inputs).
std::string read_data_file(const std::string& path, const std::string& cannot_open);

/// Throws InputError(where, "... CR-only line ends ...") when `line` (one line, '\n' removed) holds a carriage
/// return before its last byte: a file saved with classic-Mac line ends reads as one line, and a reader would
/// otherwise report a column named "output_tokens\r0" or a duplicate header cell instead of what is wrong.
void refuse_cr_line_ends(std::string_view line, const std::string& where);

/// Turns on (or off, forgetting them) the recording of input files for refuse_input_overwrite. The CLI turns it on
/// for its one command; library callers that rewrite files they read (a test, a script over the C API) leave it off.
void track_input_files(bool on);

/// Throws InputError(path, "is also an input of this command ...") when tracking is on and `path` is a regular file
/// this process has read as input (check_input_file records each one by device, inode, size and mtime, so links and
/// other spellings count). write_file, check_output_file and trace_io::write_text call it: no writer truncates the
/// file it was given.
void refuse_input_overwrite(const std::string& path);

/// Throws InputError(path, ...) before any long work when `path` cannot be a file loom writes: an existing
/// directory, or a path whose folder does not exist or is not writable. Devices and pipes pass (write_file checks
/// the write itself: /dev/full still fails only there).
void check_output_file(const std::string& path);

}  // namespace loom
