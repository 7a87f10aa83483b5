// Reads and writes the packed (binary) forest cache; the only file that knows where the build tree's cache lives.
#include "learned/packed.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string_view>

namespace loom {

namespace {
constexpr char kHeader[] = "loom-packed-forest 2\n";

/// The file's first lines: the format, then the JSON's hash and .gz size, padded with spaces so that the binary form
/// starts at a multiple of 8 bytes (its arrays then lie 4-byte aligned in the mapping, and are walked in place).
std::string header(const std::string& json_hash, uint64_t gz_size) {
  std::string h = std::string(kHeader) + json_hash + " " + std::to_string(gz_size);
  h.append((8 - (h.size() + 1) % 8) % 8, ' ');
  return h + "\n";
}
}  // namespace

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
  return header(json_hash, gz_size) + forest.to_binary();
}

std::optional<Forest> load_packed(const std::string& path, const std::string& json_hash, uint64_t gz_size) {
  // The file is mapped (populated in one call, no page fault per 4 KiB) and the forest walks its arrays where they
  // lie in the mapping, which it keeps: a what-if table loads ~10 forests of 0.2-6 MB, and copying them into
  // arrays of their own faulted in every page a second time (56% of such a run's page faults).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  const std::string expect = header(json_hash, gz_size);
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(expect.size())) {
    ::close(fd);
    return std::nullopt;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return std::nullopt;
  const std::shared_ptr<const void> keep(map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  const std::string_view bytes(static_cast<const char*>(map), size);
  if (bytes.substr(0, expect.size()) != expect) return std::nullopt;
  try {
    return Forest::from_binary_in_place(bytes.substr(expect.size()), keep);
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache file: the JSON is the source of truth
  }
}

}  // namespace loom
