// Helpers shared by the trace tests: a per-test temporary directory and file writers (plain or gzip).
#pragma once

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "scratch_dir.h"

namespace loom::test {

/// A fresh directory named `tag` in a private temporary directory (ScratchDir), removed when the test program exits.
inline std::string temp_dir(const std::string& tag) {
  static std::vector<std::unique_ptr<ScratchDir>> dirs;
  const std::filesystem::path p = dirs.emplace_back(std::make_unique<ScratchDir>())->path() / tag;
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
