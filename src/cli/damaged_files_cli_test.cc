// Damaged files of every kind through every command that reads them, as a
// user would type them (run_cli in-process; the ASan build runs it too).
// Each damaged file either still works (a flipped weight is still a
// program) or the command fails with exit 1 and ONE line on stderr naming
// the file, and leaves the output folder exactly as it was: no new file,
// no changed file, no temporary left behind.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "glassbox/etdump/etdump_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/cli/cli_test_util.h"
#include "src/testing/sanitizer_build.h"

namespace glassbox::cli {
namespace {

namespace fs = std::filesystem;
using Bytes = std::string;

Bytes slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Under a sanitizer every command runs several times slower: half of the
// damages (still one per kind of reader check) keep the suite in minutes.
// The library-level corpus (damaged_inputs_integrationtest) runs hundreds
// more per reader in that build.
constexpr bool kFewerDamages =
    glassbox::testing::kAddressSanitizer || glassbox::testing::kThreadSanitizer;

// A handful of damages per file, from a fixed recipe: each kind of reader
// check (size, header, offsets, lengths) is hit by at least one.
std::map<std::string, Bytes> damaged_variants(const Bytes& good) {
  std::map<std::string, Bytes> out;
  if (kFewerDamages) {
    Bytes huge = good;
    for (std::size_t i = 12; i < 16 && i < huge.size(); ++i) huge[i] = '\x7F';
    Bytes header = good;
    for (std::size_t i = 0; i < std::min<std::size_t>(header.size(), 16); ++i) header[i] ^= 0x5A;
    return {{"empty", ""},
            {"half", good.substr(0, good.size() / 2)},
            {"header_flipped", header},
            {"huge_word_at_12", huge},
            {"garbage", Bytes(good.size(), '\xA7')}};
  }
  out["empty"] = "";
  out["first8"] = good.substr(0, 8);
  out["half"] = good.substr(0, good.size() / 2);
  out["last_byte_cut"] = good.substr(0, good.size() - 1);
  Bytes header = good;
  for (std::size_t i = 0; i < std::min<std::size_t>(header.size(), 16); ++i) header[i] ^= 0x5A;
  out["header_flipped"] = header;
  // 32-bit words claiming gigabytes, where offsets and lengths live.
  for (std::size_t at : {std::size_t{4}, std::size_t{12}, good.size() / 3, good.size() / 2}) {
    Bytes huge = good;
    if (at + 4 > huge.size()) continue;
    huge[at] = '\xF0';
    huge[at + 1] = huge[at + 2] = huge[at + 3] = '\x7F';
    out["huge_word_at_" + std::to_string(at)] = huge;
  }
  out["garbage"] = Bytes(good.size(), '\xA7');
  return out;
}

// A snapshot of a folder: every file's name and bytes.
std::map<std::string, Bytes> snapshot(const fs::path& dir) {
  std::map<std::string, Bytes> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    files[entry.path().filename().string()] = slurp(entry.path());
  }
  return files;
}

class DamagedFilesCliTest : public ::testing::Test {
 protected:
  // The good files, made once by the commands themselves.
  // Folders named per process: ctest runs each test in its own process, in
  // parallel, so a shared folder would be made and removed under another.
  static void SetUpTestSuite() {
    good_ =
        fs::path(::testing::TempDir()) / ("damaged_files_cli_good_" + std::to_string(::getpid()));
    fs::remove_all(good_);
    fs::create_directories(good_);
    const auto g = [](const std::string& name) { return (good_ / name).string(); };
    // The small committed CNN: every command runs in milliseconds, also
    // under ASan, and its files are a few KB.
    fs::copy_file(std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/tiny_cnn.onnx", g("m.onnx"));
    ASSERT_EQ(run_glassbox({"lower", g("m.onnx"), "--backend", "demo", "-o", g("m.gbx"),
                            "--etrecord", g("m.etrecord"), "--reference-seed", "3"})
                  .exit_code,
              0);
    ASSERT_EQ(
        run_glassbox({"run", g("m.gbx"), "--etdump", g("m.etdp"), "--seed", "3", "--debug-level",
                      "intermediates", "--debug-data", g("m.bin"), "-o", g("y.npy")})
            .exit_code,
        0);
  }

  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("damaged_files_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::copy(good_, dir_);
    // Outputs that already exist must survive a failed command untouched.
    fs::copy_file(dir_ / "m.etdp", dir_ / "old.etdp");
    spit(dir_ / "old.txt", "an earlier output\n");
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `command` (where "@" stands for the damaged file) on every damaged
  // variant of the good file `name`.
  void check_every_variant(const std::string& name, const std::vector<std::string>& command) {
    const Bytes good = slurp(dir_ / name);
    ASSERT_FALSE(good.empty()) << name;
    const std::string extension = fs::path(name).extension().string();
    int failures = 0;
    for (const auto& [damage, bytes] : damaged_variants(good)) {
      const std::string damaged_name = "damaged_" + damage + extension;
      spit(dir_ / damaged_name, bytes);
      std::vector<std::string> args = command;
      for (std::string& a : args) {
        if (a == "@") a = path(damaged_name);
      }
      const std::map<std::string, Bytes> before = snapshot(dir_);
      const CliResult r = run_glassbox(args);
      SCOPED_TRACE(args.front() + " with " + damaged_name);
      if (r.exit_code == 0) {
        fs::remove(dir_ / damaged_name);
        fs::remove(dir_ / "new.out");
        fs::remove(dir_ / "new.etdp");
        fs::remove(dir_ / "new.etrecord");
        continue;
      }
      ++failures;
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_THAT(r.err, ::testing::HasSubstr(damaged_name));
      EXPECT_LT(r.err.size(), 1000u);
      EXPECT_EQ(snapshot(dir_), before) << "a failed command changed the folder";
      fs::remove(dir_ / damaged_name);
    }
    // Not a test that cannot fail: most damages must be caught.
    EXPECT_GE(failures, kFewerDamages ? 3 : 5) << "too few damaged variants were refused";
  }

  static fs::path good_;
  fs::path dir_;
};

fs::path DamagedFilesCliTest::good_;

// Removes the per-process folders (they hold a few MB each).
class CleanUp : public ::testing::Environment {
 public:
  void TearDown() override {
    fs::remove_all(fs::path(::testing::TempDir()) /
                   ("damaged_files_cli_good_" + std::to_string(::getpid())));
    fs::remove_all(fs::path(::testing::TempDir()) /
                   ("damaged_files_cli_" + std::to_string(::getpid())));
  }
};
const ::testing::Environment* const kCleanUp = ::testing::AddGlobalTestEnvironment(new CleanUp);

TEST_F(DamagedFilesCliTest, Programs) {
  check_every_variant("m.gbx", {"run", "@", "--etdump", path("old.etdp"), "--seed", "1"});
  check_every_variant("m.gbx", {"run", "@", "--etdump", path("new.etdp"), "-o", path("new.out")});
}

TEST_F(DamagedFilesCliTest, ETDumps) {
  check_every_variant("m.etdp", {"etdump", "show", "@", "--format", "json"});
  check_every_variant("m.etdp", {"inspect", "--etdump", "@", "--etrecord", path("m.etrecord"), "-o",
                                 path("old.txt")});
  check_every_variant("m.etdp", {"inspect", "--etdump", "@", "--etrecord", path("m.etrecord"),
                                 "--numeric", "--debug-data", path("m.bin")});
  check_every_variant("m.etdp", {"report", "--etdump", "@", "--etrecord", path("m.etrecord"), "-o",
                                 path("new.out")});
  check_every_variant("m.etdp", {"inspect", "--etdump", path("m.etdp"), "--baseline", "@"});
  // --strict: a damaged dump is fatal (one line) rather than skipped.
  check_every_variant("m.etdp", {"export", "--etdump", "@", "--etrecord", path("m.etrecord"),
                                 "--rows", "ops", "--strict", "-o", path("old.txt")});
}

TEST_F(DamagedFilesCliTest, ETRecords) {
  check_every_variant("m.etrecord", {"etrecord", "show", "@"});
  check_every_variant("m.etrecord", {"inspect", "--etdump", path("m.etdp"), "--etrecord", "@", "-o",
                                     path("old.txt")});
  check_every_variant("m.etrecord", {"report", "--etdump", path("m.etdp"), "--etrecord", "@", "-o",
                                     path("new.out")});
  check_every_variant("m.etrecord", {"export", "--etdump", path("m.etdp"), "--etrecord", "@",
                                     "--rows", "events", "-o", path("old.txt")});
}

TEST_F(DamagedFilesCliTest, DebugData) {
  // Values are not checked (a flipped float is a float), sizes are: a short
  // file is refused, by name.
  const std::map<std::string, Bytes> before = snapshot(dir_);
  spit(dir_ / "short.bin", slurp(dir_ / "m.bin").substr(0, 10));
  const CliResult r =
      run_glassbox({"inspect", "--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"),
                    "--numeric", "--debug-data", path("short.bin"), "-o", path("old.txt")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, ::testing::HasSubstr("short.bin"));
  fs::remove(dir_ / "short.bin");
  EXPECT_EQ(snapshot(dir_), before);
}

// The file at fault is the one named: here the ETRecord, not the ETDump.
TEST_F(DamagedFilesCliTest, AnETRecordWithoutReferencesIsNamedAsTheFault) {
  ASSERT_EQ(run_glassbox({"lower", path("m.onnx"), "--backend", "demo", "-o", path("plain.gbx"),
                          "--etrecord", path("plain.etrecord")})
                .exit_code,
            0);
  for (const char* command : {"inspect", "report"}) {
    std::vector<std::string> args = {
        command,        "--etdump",    path("m.etdp"), "--etrecord",   path("plain.etrecord"),
        "--debug-data", path("m.bin"), "-o",           path("new.out")};
    if (std::string(command) == "inspect") args.push_back("--numeric");
    const CliResult r = run_glassbox(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("glassbox: " + path("plain.etrecord") + ": "));
    EXPECT_FALSE(fs::exists(path("new.out")));
  }
}

// Damaged tensor metadata (here: a negative size) in a dump that still
// parses is the ETDump's fault, not the debug data's it was blamed on.
TEST_F(DamagedFilesCliTest, DamagedTensorMetadataIsBlamedOnTheETDump) {
  Bytes dump = slurp(dir_ / "m.etdp");
  const StatusOr<etdump::ETDumpFile> parsed = etdump::parse_etdump(
      {reinterpret_cast<const std::uint8_t*>(dump.data()), dump.size()}, "m.etdp");
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  // The sizes of the first logged tensor with data, as the file stores them
  // (int64, little-endian); every tensor of that shape gets size -1 first.
  std::vector<std::int64_t> sizes;
  for (const etdump::RunData& run : parsed->runs) {
    for (const etdump::Event& event : run.events) {
      const etdump::DebugEvent* debug = event.debug();
      if (sizes.empty() && debug != nullptr && debug->value.tensor.has_value() &&
          debug->value.tensor->offset >= 0 && !debug->value.tensor->sizes.empty()) {
        sizes = debug->value.tensor->sizes;
      }
    }
  }
  ASSERT_FALSE(sizes.empty());
  const Bytes pattern(reinterpret_cast<const char*>(sizes.data()), sizes.size() * 8);
  int patched = 0;
  for (std::size_t at = dump.find(pattern); at != Bytes::npos; at = dump.find(pattern, at + 1)) {
    std::fill_n(dump.begin() + static_cast<std::ptrdiff_t>(at), 8, '\xFF');
    ++patched;
  }
  ASSERT_GT(patched, 0);
  spit(dir_ / "bad_sizes.etdp", dump);
  const std::map<std::string, Bytes> before = snapshot(dir_);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", "--etdump", path("bad_sizes.etdp"), "--etrecord",
                                 path("m.etrecord"), "--numeric", "--debug-data", path("m.bin"),
                                 "-o", path("old.txt")},
        std::vector<std::string>{"etdump", "show", path("bad_sizes.etdp"), "--debug-data",
                                 path("m.bin")}}) {
    const CliResult r = run_glassbox(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("glassbox: " + path("bad_sizes.etdp") + ": "));
    EXPECT_THAT(r.err, ::testing::HasSubstr("is negative"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(snapshot(dir_), before);
}

TEST_F(DamagedFilesCliTest, OnnxModels) {
  check_every_variant("m.onnx", {"lower", "@", "--backend", "portable", "-o", path("new.etdp"),
                                 "--etrecord", path("new.etrecord")});
}

TEST_F(DamagedFilesCliTest, NpyFiles) {
  check_every_variant("y.npy",
                      {"run", path("m.gbx"), "--etdump", path("old.etdp"), "--input", "@"});
  check_every_variant("y.npy", {"run", path("m.gbx"), "--etdump", path("old.etdp"), "--seed", "3",
                                "--expect", "@"});
  check_every_variant(
      "y.npy", {"lower", path("m.onnx"), "--backend", "demo", "-o", path("new.etdp"), "--etrecord",
                path("new.etrecord"), "--reference-inputs", "@"});
}

}  // namespace
}  // namespace glassbox::cli
