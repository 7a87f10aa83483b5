// Negative tests for GPU YAML files: each bad file must fail with InputError whose where() is the right FILE:LINE.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/gpu_yaml.h"
#include "scratch_dir.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

class YamlErrors : public ::testing::Test {
 protected:
  std::string write(const std::string& file, const std::string& text) {
    const std::string p = (dir_ / file).string();
    std::ofstream(p) << text;
    return p;
  }
  // Loads `path` through the real catalogue (so `extends: h100-sxm` works); returns the error.
  InputError load_error(const std::string& path) {
    try {
      Catalog::load().get(path);
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "no error loading " << path;
    return InputError("", "");
  }
  // The catalogue's own h100-sxm.yaml text with the lines containing `drop` removed.
  static std::string h100_without(const std::string& drop) {
    std::ifstream in(data_dir() + "/gpus/h100-sxm.yaml");
    std::string out;
    for (std::string l; std::getline(in, l);)
      if (l.find(drop) == std::string::npos) out += l + "\n";
    return out;
  }
  const test::ScratchDir scratch_;  // this test's files
  const fs::path& dir_ = scratch_.path();
};

#define EXPECT_WHERE(err, file_line) \
  EXPECT_TRUE(err.where().ends_with(file_line)) << err.where() << ": " << err.detail()
#define EXPECT_DETAIL(err, text) EXPECT_NE(err.detail().find(text), std::string::npos) << err.detail()

TEST_F(YamlErrors, MalformedYaml) {
  const auto e = load_error(write("malformed.yaml", "name: Broken\nsms: [132\n  clock: {boost: 1980 MHz\n"));
  EXPECT_TRUE(std::regex_search(e.where(), std::regex("malformed\\.yaml:[0-9]+$"))) << e.where();
  EXPECT_DETAIL(e, "malformed YAML");
}

TEST_F(YamlErrors, MalformedIndentationPointsAtTheLine) {
  const auto e = load_error(write("indent.yaml", "extends: h100-sxm\nclock:\n  boost: 1 GHz\n sustained: 1 GHz\n"));
  EXPECT_TRUE(std::regex_search(e.where(), std::regex("indent\\.yaml:[34]$"))) << e.where() << " " << e.detail();
}

TEST_F(YamlErrors, UnknownTopLevelKeyListsValidKeys) {
  const auto e =
      load_error(write("unknown_key.yaml", "extends: h100-sxm\nname: Edited\nsms: 120\nwarp_schedulers: 4\n"));
  EXPECT_WHERE(e, "unknown_key.yaml:4");
  EXPECT_DETAIL(e, "warp_schedulers");
  EXPECT_DETAIL(e, "extends, name, architecture");
}

TEST_F(YamlErrors, UnknownNestedKey) {
  const auto e = load_error(write("nested.yaml", "extends: h100-sxm\nclock:\n  boost: 2 GHz\n  turbo: 2 GHz\n"));
  EXPECT_WHERE(e, "nested.yaml:4");
  EXPECT_DETAIL(e, "clock.turbo");
  EXPECT_DETAIL(e, "boost, sustained");
}

TEST_F(YamlErrors, WrongUnit) {
  const auto e = load_error(write("unit.yaml", "extends: h100-sxm\ndram:\n  bandwidth: 4.8 GHz  # oops\n"));
  EXPECT_WHERE(e, "unit.yaml:3");
  EXPECT_DETAIL(e, "frequency");
  EXPECT_DETAIL(e, "bandwidth");
}

TEST_F(YamlErrors, NegativeSize) {
  const auto e = load_error(write("neg.yaml", "extends: h100-sxm\nl2:\n  size: -50 MiB\n"));
  EXPECT_WHERE(e, "neg.yaml:3");
  EXPECT_DETAIL(e, "negative");
}

TEST_F(YamlErrors, ZeroWhereNotAllowed) {
  const auto e = load_error(write("zero.yaml", "extends: h100-sxm\nsms: 0\n"));
  EXPECT_WHERE(e, "zero.yaml:2");
  EXPECT_DETAIL(e, "zero");
}

TEST_F(YamlErrors, MissingRequiredTopLevelKey) {
  const auto e = load_error(write("no_tdp.yaml", h100_without("tdp:")));
  EXPECT_WHERE(e, "no_tdp.yaml:1");  // the document (no line of its own to point at)
  EXPECT_DETAIL(e, "missing required key 'tdp'");
}

TEST_F(YamlErrors, MissingRequiredNestedKeyPointsAtItsGroup) {
  const std::string text = h100_without("sustained:");
  const auto e = load_error(write("no_sustained.yaml", text));
  // The group `clock:` is on the line after `sms:` in h100-sxm.yaml.
  int clock_line = 0, n = 0;
  for (size_t i = 0, s = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') {
      ++n;
      if (text.compare(s, 6, "clock:") == 0) clock_line = n;
      s = i + 1;
    }
  ASSERT_GT(clock_line, 0);
  EXPECT_WHERE(e, "no_sustained.yaml:" + std::to_string(clock_line));
  EXPECT_DETAIL(e, "clock.sustained");
}

TEST_F(YamlErrors, CircularExtends) {
  write("a.yaml", "extends: b.yaml\nsms: 10\n");
  write("b.yaml", "# b\nextends: a.yaml\n");
  const auto e = load_error((dir_ / "a.yaml").string());
  EXPECT_WHERE(e, "b.yaml:2");
  EXPECT_DETAIL(e, "circular extends");
  const auto self = load_error(write("self.yaml", "extends: self.yaml\n"));
  EXPECT_WHERE(self, "self.yaml:1");
  EXPECT_DETAIL(self, "circular");
}

TEST_F(YamlErrors, UnknownExtends) {
  const auto e = load_error(write("ext.yaml", "name: X\nextends: h999\n"));
  EXPECT_WHERE(e, "ext.yaml:2");
  EXPECT_DETAIL(e, "h999");
  EXPECT_DETAIL(e, "h100-sxm");
}

TEST_F(YamlErrors, ShapeErrors) {
  auto e = load_error(write("g.yaml", "extends: h100-sxm\nclock: 1980 MHz\n"));
  EXPECT_WHERE(e, "g.yaml:2");
  EXPECT_DETAIL(e, "group");
  e = load_error(write("l.yaml", "extends: h100-sxm\nsms: [1, 2]\n"));
  EXPECT_WHERE(e, "l.yaml:2");
  e = load_error(write("n.yaml", "extends: h100-sxm\n\nsms:\n"));
  EXPECT_WHERE(e, "n.yaml:3");
  EXPECT_DETAIL(e, "no value");
  e = load_error(write("d.yaml", "extends: h100-sxm\nsms: 100\nsms: 120\n"));
  EXPECT_WHERE(e, "d.yaml:3");
  EXPECT_DETAIL(e, "duplicate");
  e = load_error(write("w.yaml", "extends: h100-sxm\nsms: 13.5\n"));
  EXPECT_WHERE(e, "w.yaml:2");
  EXPECT_DETAIL(e, "whole number");
  e = load_error(write("e.yaml", "# nothing here\n"));
  EXPECT_WHERE(e, "e.yaml:1");
  e = load_error(write("s.yaml", "- h100\n- h200\n"));
  EXPECT_WHERE(e, "s.yaml:1");
  e = load_error(write("arch.yaml", "extends: h100-sxm\narchitecture: kepler\n"));
  EXPECT_WHERE(e, "arch.yaml:2");
  EXPECT_DETAIL(e, "hopper");
}

TEST_F(YamlErrors, ValidUserFileExtendingTheCatalogue) {
  const std::string p = write("mine.yaml", "extends: h100-sxm\nname: Half H100\nsms: 66  # green context\n");
  const GpuSpec g = Catalog::load().get(p, {"tdp=350W"});
  EXPECT_EQ(g.sms, 66);
  EXPECT_EQ(g.name, p);
  EXPECT_EQ(g.full_name, "Half H100");
  EXPECT_EQ(g.tdp_w, 350);
  EXPECT_NE(g.key_sources.at("sms").find("mine.yaml:3  # green context"), std::string::npos);
}

TEST_F(YamlErrors, BadFileInCatalogueFailsLoad) {
  fs::copy_file(data_dir() + "/gpus/h100-sxm.yaml", dir_ / "h100-sxm.yaml");
  write("broken.yaml", "extends: h100-sxm\nl1: 1 GHz\n");
  try {
    Catalog::load(dir_.string());
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_WHERE(e, "broken.yaml:2");
  }
}

TEST_F(YamlErrors, InMemoryText) {
  EXPECT_THROW(read_gpu_text("sms: [", "mem", data_dir() + "/gpus"), InputError);
  const RawSpec r = read_gpu_text("extends: h100-sxm\nsms: 7\n", "mem", data_dir() + "/gpus");
  EXPECT_EQ(r.values.at("sms").where, "mem:2");
  EXPECT_EQ(r.values.at("tdp").where.rfind("gpus/h100-sxm.yaml:", 0), 0u);
}

}  // namespace
}  // namespace loom
