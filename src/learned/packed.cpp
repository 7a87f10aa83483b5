// Reads and writes the packed (binary) forest cache; the only file that knows where the build tree's cache lives.
#include "learned/packed.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace loom {

namespace {
constexpr char kHeader[] = "loom-packed-forest 1\n";
}

std::string packed_model_dir() {
  if (const char* env = std::getenv("LOOM_PACKED_DIR")) return env;
#ifdef LOOM_PACKED_DIR
  return LOOM_PACKED_DIR;
#else
  return "";
#endif
}

std::string packed_path(const std::string& dir, const std::string& json_hash) { return dir + "/" + json_hash + ".lfb"; }

std::string pack_forest(const Forest& forest, const std::string& json_hash, uint64_t gz_size) {
  return std::string(kHeader) + json_hash + " " + std::to_string(gz_size) + "\n" + forest.to_binary();
}

std::optional<Forest> load_packed(const std::string& path, const std::string& json_hash, uint64_t gz_size) {
  // The file is mapped (populated in one call, no page fault per 4 KiB) and the forest read from the mapping: a
  // what-if table loads ~10 forests of 0.2-0.6 MB, and reading each into a buffer first faulted in and copied it
  // twice.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  const std::string expect = std::string(kHeader) + json_hash + " " + std::to_string(gz_size) + "\n";
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(expect.size())) {
    ::close(fd);
    return std::nullopt;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return std::nullopt;
  const std::string_view bytes(static_cast<const char*>(map), size);
  std::optional<Forest> f;
  if (bytes.substr(0, expect.size()) == expect) {
    try {
      f = Forest::from_binary(bytes.substr(expect.size()));
    } catch (const std::exception&) {
      // a damaged cache file: the JSON is the source of truth
    }
  }
  ::munmap(map, size);
  return f;
}

}  // namespace loom
