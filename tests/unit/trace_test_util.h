// Helpers shared by the trace tests: a per-test temporary directory and file writers (plain or gzip).
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace loom::test {

inline std::string temp_dir(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() / ("loom_trace_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

inline std::string write_file(const std::string& path, const std::string& text) {
  if (path.size() > 3 && path.substr(path.size() - 3) == ".gz") {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, text.data(), unsigned(text.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary) << text;
  }
  return path;
}

}  // namespace loom::test
