// A private temporary directory for one test: made by mkdtemp under the system's temporary directory and removed,
// with everything in it, when the test ends. Tests that write files use it instead of fixed /tmp names, so parallel
// runs (ctest -j, two checkouts) cannot collide and nothing is left behind.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace loom::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "loom-test-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
    path_ = templ;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// Removes the directory; only in the process that made it (a forked child that exits leaves it to its parent).
  ~ScratchDir() {
    std::error_code ec;
    if (::getpid() == owner_) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  /// The path of `name` inside the directory.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
  pid_t owner_ = ::getpid();
};

/// The whole content of a file ("" when it cannot be read), bytes as they are.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace loom::test
