// Output paths every writer shares: "-" is stdout, and no path loom writes (or echoes) holds a control byte.
#pragma once

#include <string>

namespace loom {

/// Whether an output path is "-": stdout, as every single-file `-o/--out` takes it (begin_output hands a duplicate
/// of descriptor 1, written in place).
bool is_stdout_path(const std::string& path);

/// Throws InputError(path, "holds a control character ...") for a newline, tab, escape or other control byte in a
/// path loom would write and echo in its success line. begin_output, write_file, check_output_file and
/// trace_io::write_text call it.
void refuse_control_bytes_in_path(const std::string& path);

/// Throws InputError(flag, "'-' is stdout, which <why>") when `path` is "-" where stdout cannot take what `flag`
/// writes (a folder of files, or stdout carries the command's own answer).
void refuse_stdout_output(const std::string& flag, const std::string& path, const std::string& why);

}  // namespace loom
