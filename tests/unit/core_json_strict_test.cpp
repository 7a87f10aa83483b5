// parse_strict_json and the checked whole-file readers: each failure in the reader's own words (core/json_strict.h,
// core/file_io.h).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_strict.h"
#include "input_error_util.h"
#include "scratch_dir.h"

namespace loom {
namespace {

TEST(ParseStrictJson, ReadsStrictJson) {
  const auto j = parse_strict_json("{\"a\": {\"b\": 1}, \"c\": [1, 2]}", "f.json", StrictJsonMessages::for_hint(""));
  EXPECT_EQ(j["a"]["b"], 1);
  EXPECT_EQ(j["c"].size(), 2u);
}

TEST(ParseStrictJson, HintWording) {
  const auto m = StrictJsonMessages::for_hint("; retrain");
  EXPECT_EQ(std::string(error_of([&] { parse_strict_json("{\n\"k\": 1,\n\"k\": 2}", "f.json", m); }).what()),
            "f.json:3: duplicate key 'k'; give it once; retrain");
  EXPECT_EQ(std::string(error_of([&] { parse_strict_json("{\n\"k\": ", "f.json", m); }).what()),
            "f.json:2: not valid JSON; retrain");
  EXPECT_EQ(std::string(error_of([&] { parse_strict_json("{\"k\": 1e999}", "f.json", m); }).what()),
            "f.json: a number beyond double range; retrain");
  // A long duplicate key is quoted up to 80 bytes.
  const std::string key(100, 'x');
  EXPECT_IN(error_of([&] { parse_strict_json("{\"" + key + "\": 1, \"" + key + "\": 2}", "f", m); }).what(),
            "'" + key.substr(0, 80) + "'; give it once");
}

TEST(ParseStrictJson, ByteAndWhatPlaceholders) {
  const StrictJsonMessages m{"; once", 2, "bad at {byte}: {what}", false, "unreadable ({what})"};
  const std::string bad = error_of([&] { parse_strict_json("[1,", "f", m); }).what();
  EXPECT_EQ(bad.rfind("f: bad at ", 0), 0u) << bad;
  EXPECT_IN(bad, ": [json.exception.parse_error");
  EXPECT_EQ(bad.find("{byte}"), std::string::npos) << bad;
  EXPECT_IN(error_of([&] { parse_strict_json("[1e999]", "f", m); }).what(),
            "f: unreadable ([json.exception.out_of_range");
  EXPECT_EQ(std::string(error_of([&] { parse_strict_json("{\"abc\":1,\"abc\":2}", "f", m); }).what()),
            "f:1: duplicate key 'ab'; once");
}

TEST(ReadCheckedFile, MissingFileInTheReadersWords) {
  test::ScratchDir dir;
  const std::string missing = dir.file("nope.json");
  EXPECT_EQ(std::string(error_of([&] { read_data_file(missing, "missing; retrain"); }).what()),
            missing + ": missing; retrain");
  EXPECT_EQ(std::string(error_of([&] { read_input_file(missing, "cannot read; check", "--flag"); }).what()),
            "--flag: cannot read; check");
  EXPECT_IN(error_of([&] { read_input_file(dir.path().string(), "unused"); }).what(), "is a directory");
}

TEST(ReadCheckedFile, ReadsEveryByte) {
  test::ScratchDir dir;
  const std::string path = dir.file("a.bin");
  const std::string bytes("a\0b\r\nc", 6);
  write_file(path, bytes);
  EXPECT_EQ(read_input_file(path, "unused"), bytes);
  EXPECT_EQ(read_data_file(path, "unused"), bytes);
}

}  // namespace
}  // namespace loom
