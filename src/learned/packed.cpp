// Reads and writes the packed (binary) forest cache; the only file that knows where the build tree's cache lives.
#include "learned/packed.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

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
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  const std::string expect = std::string(kHeader) + json_hash + " " + std::to_string(gz_size) + "\n";
  if (bytes.compare(0, expect.size(), expect) != 0) return std::nullopt;
  try {
    return Forest::from_binary(bytes.substr(expect.size()));
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache file: the JSON is the source of truth
  }
}

}  // namespace loom
