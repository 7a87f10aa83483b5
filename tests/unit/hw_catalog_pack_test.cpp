// The packed GPU catalogue (hw/catalog_pack.h): the same RawSpec as the YAML, and never used for a changed file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hw/catalog.h"
#include "hw/catalog_pack.h"
#include "hw/gpu_yaml.h"
#include "scratch_dir.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

void expect_same(const RawSpec& a, const RawSpec& b) {
  ASSERT_EQ(a.values.size(), b.values.size());
  for (const auto& [k, v] : a.values) {
    ASSERT_TRUE(b.values.count(k)) << k;
    const RawValue& w = b.values.at(k);
    EXPECT_EQ(v.text, w.text) << k;
    EXPECT_EQ(v.where, w.where) << k;
    EXPECT_EQ(v.comment, w.comment) << k;
  }
  EXPECT_EQ(a.group_where, b.group_where);
}

TEST(CatalogPack, EveryCommittedEntryMatchesItsYaml) {
  const std::string dir = (fs::path(data_dir()) / "gpus").string();
  const loom::test::ScratchDir scratch;
  const std::string tmp = scratch.file("catalog.lcp");
  std::ofstream(tmp, std::ios::binary) << pack_catalog(dir);
  std::map<std::string, PackedGpu> packed = load_catalog_pack(tmp, dir);
  fs::remove(tmp);
  ASSERT_EQ(packed.size(), Catalog::load().names().size());
  std::map<std::string, uint64_t> hashes;
  for (const auto& [name, g] : packed) {
    EXPECT_TRUE(packed_gpu_current(g, hashes)) << name;
    const RawSpec yaml = read_gpu_file((fs::path(dir) / (name + ".yaml")).string(),
                                       (fs::path(dir).filename() / (name + ".yaml")).string(), dir);
    expect_same(yaml, g.raw);
  }
  EXPECT_TRUE(load_catalog_pack(tmp, dir).empty());           // no file
}

TEST(CatalogPack, ChangedParentOrOtherDirectoryIsNotUsed) {
  const loom::test::ScratchDir scratch;
  const fs::path& dir = scratch.path();
  fs::copy_file(fs::path(data_dir()) / "gpus" / "h100-sxm.yaml", dir / "h100-sxm.yaml");
  std::ofstream(dir / "mine.yaml") << "extends: h100-sxm\nname: mine\n";
  const std::string pack = (dir / "catalog.lcp").string();
  std::ofstream(pack, std::ios::binary) << pack_catalog(dir.string());
  std::map<std::string, PackedGpu> packed = load_catalog_pack(pack, dir.string());
  ASSERT_EQ(packed.size(), 2u);
  EXPECT_EQ(packed.at("mine").files.size(), 2u);  // the entry and its parent
  EXPECT_EQ(packed.at("mine").raw.values.at("name").text, "mine");
  std::map<std::string, uint64_t> fresh;
  EXPECT_TRUE(packed_gpu_current(packed.at("mine"), fresh));
  std::ofstream(dir / "h100-sxm.yaml", std::ios::app) << "# edited\n";
  std::map<std::string, uint64_t> after;
  EXPECT_FALSE(packed_gpu_current(packed.at("mine"), after));  // the parent changed: read the YAML again
  EXPECT_TRUE(load_catalog_pack(pack, dir.string() + "/").empty());  // written for another directory string
  std::string bytes;
  {
    std::ifstream in(pack, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(pack, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  EXPECT_TRUE(load_catalog_pack(pack, dir.string()).empty());  // truncated
}

}  // namespace
}  // namespace loom
