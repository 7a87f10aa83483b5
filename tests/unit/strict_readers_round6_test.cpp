// Hardening, round 6 (issue 17): quoted numbers in every YAML reader, kernels/ config-space lists (split_k_dtypes),
// config.json fields loom does not price, GPU YAML unit errors naming the field, and writes that replace a file
// atomically (a write cut short leaves the old file whole).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <vector>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/error.h"
#include "core/file_io.h"
#include "e2e/model_config.h"
#include "e2e/profile.h"
#include "hw/gpu_yaml.h"
#include "input_error_util.h"
#include "kernels/config_space.h"
#include "trace/chrome_trace.h"
#include "trace/text_io.h"
#include "scratch_dir.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

// This process's scratch directory (removed at exit with whatever a test left in it).
const test::ScratchDir& scratch() {
  static const test::ScratchDir dir;
  return dir;
}

std::string temp_path(const std::string& name) { return scratch().file(name); }

std::string slurp(const std::string& path) { return loom::test::read_text(path); }

TEST(QuotedNumbers, GpuYamlRefusesQuotesOnNumbersOnly) {
  for (const char* text : {"sms: \"132\"\n", "sms: '132'\n", "dram:\n  bandwidth: \"3.35 TB/s\"\n", "{sms: \"1\"}\n"}) {
    const InputError e = error_of([&] { read_gpu_text(text, "q.yaml", "/nonexistent"); });
    EXPECT_IN(e.where(), "q.yaml:");
    EXPECT_IN(e.what(), "without quotes");
  }
  EXPECT_NO_THROW(read_gpu_text("name: \"lab H200\"\nsms: 132\n", "ok.yaml", "/nonexistent"));
}

TEST(QuotedNumbers, ProfileAndSchedulerRefuseQuotedNumbersAndBooleans) {
  for (const char* text : {"graph_gap_us: \"1.2\"\n", "memory_utilization: '0.9'\n", "batch_padding: \"false\"\n",
                           "scheduler:\n  max_num_seqs: \"256\"\n", "scheduler:\n  chunked_prefill: 'true'\n"}) {
    const InputError e = error_of([&] { parse_profile(text, "p.yaml"); });
    EXPECT_IN(e.where(), "p.yaml:");
    EXPECT_IN(e.what(), "without quotes");
  }
}

// kernels/<family>.yaml lists: a config-space file with one list edited.
InputError table_error(const std::string& lists) {
  const std::string path = temp_path("table.yaml");
  std::ofstream(path) << "family: gemm\nnaming: tile\n" << lists;
  const InputError e = error_of([&] { load_config_table(path); });
  fs::remove(path);
  return e;
}

TEST(ConfigTable, SplitKDtypesAreAKnownNonEmptyListOfDistinctDtypes) {
  EXPECT_IN(table_error("split_k_dtypes: [fp32, fp99]\n").what(), "fp99");
  EXPECT_IN(table_error("split_k_dtypes: [bf16, fp16, bf16]\n").what(), "twice");
  EXPECT_IN(table_error("split_k_dtypes: []\n").what(), "empty list");
  for (const char* bad : {"split_k_dtypes: bf16\n", "split_k_dtypes: [[bf16]]\n", "split_k_dtypes:\n",
                          "split_k_dtypes: {bf16: 1}\n"})
    EXPECT_IN(table_error(bad).what(), "split_k_dtypes");
  const InputError e = table_error("split_k_dtypes: [fp32,\n  fp99]\n");
  EXPECT_IN(e.where(), ":4");  // the line of the bad item, not of the list
}

TEST(ConfigTable, IntegerListsNameTheirKeyAndRefuseQuotesRepeatsAndHugeValues) {
  EXPECT_IN(table_error("split_k: [1, 2, 2]\n").what(), "twice");
  EXPECT_IN(table_error("split_k: []\n").what(), "split_k");
  EXPECT_IN(table_error("split_k: [1, 99999999999]\n").what(), "split_k");
  EXPECT_IN(table_error("split_k: [1, 100000]\n").what(), "65536");
  EXPECT_IN(table_error("split_k: [1, \"2\"]\n").what(), "without quotes");
}

std::string llama_with(const nlohmann::json& extra) {
  const std::string preset = std::string(LOOM_TEST_DATA) + "/../../models/presets/llama-3-8b.json";
  nlohmann::json j = nlohmann::json::parse(slurp(preset));
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  return j.dump();
}

TEST(ModelConfig, FieldsThatWouldMakeAnotherModelAreRefused) {
  const std::pair<nlohmann::json, const char*> cases[] = {
      {{{"architectures", {"MambaForCausalLM"}}}, "architectures"},
      {{{"architectures", "LlamaForCausalLM"}}, "architectures"},
      {{{"rope_scaling", {{"rope_type", "warp"}, {"factor", 8.0}}}}, "rope_type"},
      {{{"mlp_bias", "false"}}, "mlp_bias"},
      {{{"num_local_experts", 8}}, "num_local_experts"},
      {{{"num_experts_per_tok", 2}}, "num_experts_per_tok"}};
  for (const auto& [extra, want] : cases) {
    const InputError e = error_of([&] { parse_model_config(llama_with(extra), "m.json"); });
    EXPECT_IN(e.what(), want);
    EXPECT_IN(e.what(), "m.json");
  }
  EXPECT_NO_THROW(parse_model_config(llama_with({{"architectures", {"LlamaForCausalLM"}}, {"mlp_bias", false},
                                                 {"rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}}}}),
                                     "ok.json"));
}

TEST(GpuYaml, UnitErrorsNameTheField) {
  const InputError e = error_of([&] {
    const std::string catalogue = std::string(LOOM_TEST_DATA) + "/../../gpus";
    build_gpu_spec(read_gpu_text("extends: h200\nsms: 1\xc2\xa0\n", "u.yaml", catalogue), "u", "u.yaml");
  });
  EXPECT_IN(e.what(), "sms");
}

// A write cut short by RLIMIT_FSIZE in a child process (SIGXFSZ ignored, so write() fails with EFBIG).
int cut_write(const std::string& path, bool gz) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    try {
      const std::string text(200000, 'n');
      gz ? trace_io::write_text(path, text) : write_file(path, text);
    } catch (const InputError&) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(AtomicWrites, AFailedWriteLeavesTheOldFileWhole) {
  for (const bool gz : {false, true}) {
    const std::string path = temp_path(gz ? "out.csv" : "out.json");
    std::ofstream(path) << "OLD\n";
    EXPECT_EQ(cut_write(path, gz), 2);
    EXPECT_EQ(slurp(path), "OLD\n");
    for (const auto& e : fs::directory_iterator(scratch().path()))  // no temporary file left behind
      EXPECT_EQ(e.path().string().find(path + ".loom-tmp-"), std::string::npos) << e.path();
    fs::remove(path);
  }
}

TEST(AtomicWrites, ALinkKeepsPointingAtTheReplacedFile) {
  const std::string target = temp_path("target.json"), link = temp_path("link.json");
  std::ofstream(target) << "OLD\n";
  fs::remove(link);
  fs::create_symlink(target, link);
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file(link, "NEW\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), "NEW\n");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::remove(link);
  fs::remove(target);
  EXPECT_THROW(write_file("/proc/loom-r6-cannot-write", "x"), InputError);
}

TEST(AtomicWrites, ADescriptorPathIsWrittenInPlace) {  // -o /dev/stdout > file: the shell's file, not a new one
  const std::string path = temp_path("fd.txt");
  std::ofstream(path) << "OLD\n";
  const int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  struct stat before{}, after{};
  ::stat(path.c_str(), &before);
  write_file("/dev/fd/" + std::to_string(fd), "NEW\n");
  ::stat(path.c_str(), &after);
  ::close(fd);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(slurp(path), "NEW\n");
  fs::remove(path);
}

std::string gz(const std::string& text) {
  const std::string path = temp_path("gz.tmp");
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  const std::string bytes = slurp(path);
  fs::remove(path);
  return bytes;
}

std::vector<std::string> lines_of(const std::string& bytes) {
  const std::string path = temp_path("in.csv.gz");
  std::ofstream(path, std::ios::binary) << bytes;
  std::vector<std::string> out;
  auto r = trace_io::LineReader::open_file(path);
  for (std::string line; r.next(line);) out.push_back(line);
  fs::remove(path);
  return out;
}

TEST(Gzip, EveryMemberIsReadAndBytesAfterTheDataAreRefused) {
  const std::vector<std::string> want = {"a,b", "1,2", "3,4"};
  EXPECT_EQ(lines_of(gz("a,b\n1,2\n3,4\n")), want);
  EXPECT_EQ(lines_of(gz("a,b\n1,") + gz("2\n3,4\n")), want);  // two members: one text
  EXPECT_EQ(lines_of("a,b\n1,2\n3,4\n"), want);                 // plain text under a .gz name
  EXPECT_IN(error_of([] { lines_of(gz("a,b\n1,2\n") + "junk"); }).what(), "after the end of the gzip data");
  EXPECT_IN(error_of([] { lines_of(gz("a,b\n1,2\n") + std::string(1, '\0')); }).what(), "after the end");
  const std::string path = temp_path("all.json.gz");
  std::ofstream(path, std::ios::binary) << gz("{\"a\": ") + gz("1}");
  EXPECT_EQ(trace_io::read_all(path), "{\"a\": 1}");
  std::ofstream(path, std::ios::binary | std::ios::app) << "junk";
  EXPECT_IN(error_of([&] { trace_io::read_all(path); }).what(), "after the end of the gzip data");
  fs::remove(path);
  const std::string whole = gz(std::string(100000, 'x') + "\n");
  EXPECT_IN(error_of([&] { lines_of(whole.substr(0, whole.size() / 2)); }).what(), "damaged");
  EXPECT_IN(error_of([&] { lines_of(whole.substr(0, whole.size() - 3)); }).what(), "damaged");
}

TEST(ChromeTrace, SkippedKernelEventsAreCountedApart) {
  const ChromeTrace t = parse_chrome_trace(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "ts": 0, "dur": 3},
          {"ph": "X", "cat": "kernel", "name": "b", "ts": 5, "dur": "300"},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": "x", "dur": 1}]})",
      "s.json");
  EXPECT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.skipped_events, 2);
  EXPECT_EQ(t.skipped_kernels, 1);
}

}  // namespace
}  // namespace loom
