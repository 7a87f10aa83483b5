// Reads and writes the packed (binary) forest cache; the only file that knows where the build tree's cache lives.
#include "learned/packed.h"

#include <cstdlib>
#include <fstream>

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
  // The header first, then the forest straight into one buffer of its size (a what-if table loads ~10 forests of
  // ~0.3-1 MB: reading through a stringstream and a substr copied each several times).
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  const std::string expect = std::string(kHeader) + json_hash + " " + std::to_string(gz_size) + "\n";
  if (size < static_cast<std::streamoff>(expect.size())) return std::nullopt;
  std::string header(expect.size(), '\0');
  in.seekg(0);
  if (!in.read(header.data(), static_cast<std::streamsize>(header.size())) || header != expect) return std::nullopt;
  std::string bytes(static_cast<size_t>(size) - expect.size(), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) return std::nullopt;
  try {
    return Forest::from_binary(bytes);
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache file: the JSON is the source of truth
  }
}

}  // namespace loom
