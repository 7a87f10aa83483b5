// loom_pack_models OUT_DIR MODEL_DIR... [--catalog GPU_DIR] [--yaml FILE...]: the build-time converter from committed
// XGBoost JSON models to the packed binary cache (learned/packed.h). Writes OUT_DIR/<json hash>.lfb for every forest
// each MODEL_DIR/model.json lists, with --catalog the packed GPU catalogue OUT_DIR/catalog.lcp (hw/catalog_pack.h),
// and with --yaml OUT_DIR/yaml-checked.txt, the hashes of the files' texts that pass load_one_yaml's checks.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/strict_yaml.h"
#include "hw/catalog_pack.h"
#include "learned/forest.h"
#include "learned/model.h"
#include "learned/packed.h"

namespace fs = std::filesystem;

namespace {

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot read");
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, n);
  gzclose(f);
  if (n < 0) throw std::runtime_error(path + ": bad gzip");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: loom_pack_models OUT_DIR MODEL_DIR... [--catalog GPU_DIR] [--yaml FILE...]\n");
    return 2;
  }
  try {
    fs::create_directories(argv[1]);
    size_t count = 0;
    for (int a = 2; a < argc; ++a) {
      if (std::string(argv[a]) == "--yaml") {  // the rest: YAML files whose texts pass load_one_yaml's checks
        std::string list;
        size_t checked = 0;
        for (++a; a < argc; ++a) {
          std::ifstream in(argv[a], std::ios::binary);
          const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
          try {
            loom::load_one_yaml(text, argv[a]);
          } catch (const std::exception&) {
            continue;  // a file that fails keeps failing at run time, with its message
          }
          char hex[17];
          std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(loom::yaml_text_hash(text)));
          list += std::string(hex) + "\n";
          ++checked;
        }
        const std::string out = fs::path(argv[1]) / "yaml-checked.txt", tmp = out + ".tmp";
        std::ofstream(tmp, std::ios::binary) << list;
        fs::rename(tmp, out);
        std::printf("loom_pack_models: %zu checked YAML texts listed in %s\n", checked, out.c_str());
        break;
      }
      if (std::string(argv[a]) == "--catalog" && a + 1 < argc) {
        const std::string out = fs::path(argv[1]) / "catalog.lcp", tmp = out + ".tmp";
        std::ofstream(tmp, std::ios::binary) << loom::pack_catalog(argv[++a]);
        fs::rename(tmp, out);
        std::printf("loom_pack_models: GPU catalogue %s packed into %s\n", argv[a], out.c_str());
        continue;
      }
      const fs::path dir = argv[a];
      std::ifstream in(dir / "model.json");
      if (!in) continue;  // a model directory that is not there (yet) has nothing to pack
      const auto index = nlohmann::json::parse(in);
      for (const auto& [key, entry] : index.at("models").items()) {
        const fs::path file = dir / entry.at("file").get<std::string>();
        const std::string hash = entry.at("hash").get<std::string>();
        const std::string json = gunzip(file.string());
        if (loom::fnv1a_hex(json) != hash)
          throw std::runtime_error(file.string() + ": does not match its hash in model.json");
        const std::string bytes = loom::pack_forest(loom::Forest::from_json(json), hash, fs::file_size(file));
        const std::string out = loom::packed_path(argv[1], hash);
        const std::string tmp = out + ".tmp";
        std::ofstream(tmp, std::ios::binary) << bytes;
        fs::rename(tmp, out);
        ++count;
      }
    }
    std::printf("loom_pack_models: %zu forests packed into %s\n", count, argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom_pack_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
