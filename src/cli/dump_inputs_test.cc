#include "src/cli/dump_inputs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "src/testing/status_matchers.h"

namespace glassbox::cli {
namespace {

namespace fs = std::filesystem;
using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOkAndHolds;

class DumpInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("glassbox_dump_inputs_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "b");
    fs::create_directories(dir_ / "a");
    for (const char* f : {"b/2.etdp", "b/1.etdp", "a/1.etdp", "a/notes.txt"}) {
      std::ofstream(dir_ / f) << "x";
    }
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(DumpInputsTest, ExpandsFoldersAndGlobsSortedAndOnce) {
  EXPECT_THAT(
      expand_dump_paths({path("b"), path("*/*.etdp"), path("a/1.etdp")}),
      IsOkAndHolds(std::vector<std::string>{path("a/1.etdp"), path("b/1.etdp"), path("b/2.etdp")}));
}

TEST_F(DumpInputsTest, NamesTheValueThatFindsNothing) {
  EXPECT_THAT(expand_dump_paths({path("*/*.bin")}).status(),
              ErrorIs(Error::kNotFound, {path("*/*.bin"), "matches no ETDump"}));
  fs::create_directories(dir_ / "empty");
  EXPECT_THAT(expand_dump_paths({path("empty")}).status(),
              ErrorIs(Error::kNotFound, {path("empty"), "no *.etdp"}));
  EXPECT_THAT(expand_dump_paths({path("gone.etdp")}).status(),
              ErrorIs(Error::kNotFound, {path("gone.etdp")}));
}

TEST_F(DumpInputsTest, AnUnreadableFolderIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every folder";
  fs::permissions(dir_ / "b", fs::perms::none);
  EXPECT_THAT(expand_dump_paths({path("b")}).status(),
              ErrorIs(Error::kAccessFailed, {path("b"), "cannot read"}));
  EXPECT_THAT(expand_dump_paths({path("b/*.etdp")}).status(),
              ErrorIs(Error::kAccessFailed, {"cannot read"}));
  fs::permissions(dir_ / "b", fs::perms::owner_all);
}

// A loop of links is not "no such file": the system's reason is given.
TEST_F(DumpInputsTest, ALoopOfLinksIsNamedAsSuch) {
  fs::create_symlink("loop_b.etdp", path("loop_a.etdp"));
  fs::create_symlink("loop_a.etdp", path("loop_b.etdp"));
  EXPECT_THAT(
      expand_dump_paths({path("loop_a.etdp")}).status(),
      ErrorIs(Error::kAccessFailed, {path("loop_a.etdp") + ": Too many levels of symbolic links"}));
}

TEST_F(DumpInputsTest, SeveralValuesFoldersAndGlobsNameManyDumps) {
  EXPECT_FALSE(names_many_dumps({path("a/1.etdp")}));
  EXPECT_TRUE(names_many_dumps({path("a")}));
  EXPECT_TRUE(names_many_dumps({path("*.etdp")}));
  EXPECT_TRUE(names_many_dumps({path("a/1.etdp"), path("b/1.etdp")}));
}

TEST(PathTagPatternTest, NamesBecomeTagsAndTheEndOfThePathMustMatch) {
  const PathTagPattern pattern = *PathTagPattern::parse("runs/{device}/{app_version}/*.etdp");
  EXPECT_EQ(pattern.match("/data/runs/pixel/1.2/x.etdp"),
            (Tags{{"device", "pixel"}, {"app_version", "1.2"}}));
  EXPECT_EQ(pattern.match("runs/pixel/1.2/x.etdp"),
            (Tags{{"device", "pixel"}, {"app_version", "1.2"}}));
  EXPECT_EQ(pattern.match("myruns/pixel/1.2/x.etdp"), std::nullopt);
  EXPECT_EQ(pattern.match("runs/pixel/x.etdp"), std::nullopt);
  EXPECT_EQ(pattern.match("runs/pixel/1.2/x.etdp.json"), std::nullopt);
}

TEST(PathTagPatternTest, StarsAndTagsTakeTheLongestValueThatLetsTheRestMatch) {
  const PathTagPattern pattern = *PathTagPattern::parse("{a}-{b}/*x?{c}.etdp");
  EXPECT_EQ(pattern.match("r/x-y-z/axbxcd.etdp"), (Tags{{"a", "x-y"}, {"b", "z"}, {"c", "d"}}));
  EXPECT_EQ(pattern.match("x-y/ab.etdp"), std::nullopt);
  EXPECT_EQ(pattern.match("xy/xab.etdp"), std::nullopt);
  EXPECT_EQ(PathTagPattern::parse("/{a}/**")->match("/p/q"), (Tags{{"a", "p"}}));
  EXPECT_EQ(PathTagPattern::parse("/{a}/**")->match("o/p/q"), std::nullopt);
}

// A backtracking regex took minutes per path here (8 stars that almost
// match a 64-character name); matching is now linear in each.
TEST(PathTagPatternTest, ManyStarsAgainstALongNameAreQuick) {
  const PathTagPattern pattern = *PathTagPattern::parse("{d}/*a*a*a*a*a*a*a*a*b");
  const std::string name(64, 'a');
  EXPECT_EQ(pattern.match("runs/" + name), std::nullopt);
  EXPECT_EQ(pattern.match("runs/" + name + "b"), (Tags{{"d", "runs"}}));
}

// std::regex compiled a 100,000-character pattern recursively, and
// overflowed the stack.
TEST(PathTagPatternTest, HugePatternsAreNoCrash) {
  std::string components = "{d}";
  std::string path = "x";
  for (int i = 0; i < 50'000; ++i) {
    components += "/*";
    path += "/a";
  }
  const StatusOr<PathTagPattern> deep = PathTagPattern::parse(components);
  ASSERT_TRUE(deep.ok());
  EXPECT_EQ(deep->match(path), (Tags{{"d", "x"}}));
  EXPECT_EQ(deep->match(path.substr(2)), std::nullopt);
  std::string wide = "{d}/";
  for (int i = 0; i < 25'000; ++i) wide += "a*?*";
  const StatusOr<PathTagPattern> long_name = PathTagPattern::parse(wide);
  ASSERT_TRUE(long_name.ok());
  constexpr std::size_t kNameMax = 255;  // The longest file name Linux allows.
  EXPECT_EQ(long_name->match("x/" + std::string(kNameMax, 'a')), std::nullopt);
}

TEST(PathTagPatternTest, RefusesPatternsWithoutUsableNames) {
  for (const char* bad :
       {"runs/*.etdp", "runs/{device/*.etdp", "runs/{}/*.etdp", "{a}/{a}/*.etdp"}) {
    EXPECT_THAT(PathTagPattern::parse(bad).status(), ErrorIs(Error::kInvalidArgument, {bad}));
  }
}

TEST_F(DumpInputsTest, SidecarIsAFlatObjectOfStrings) {
  EXPECT_THAT(read_sidecar_tags(path("a/1.etdp")), IsOkAndHolds(Tags{}));
  std::ofstream(path("a/1.etdp.json")) << R"({"device": "pixel", "os": "14"})";
  EXPECT_THAT(read_sidecar_tags(path("a/1.etdp")),
              IsOkAndHolds(Tags{{"device", "pixel"}, {"os", "14"}}));
  std::ofstream(path("b/1.etdp.json")) << R"({"device": 3})";
  EXPECT_THAT(read_sidecar_tags(path("b/1.etdp")).status(),
              ErrorIs(Error::kCorruptData, {path("b/1.etdp.json"), "not a string"}));
  std::ofstream(path("b/2.etdp.json")) << "[1, 2";
  EXPECT_THAT(read_sidecar_tags(path("b/2.etdp")).status(),
              ErrorIs(Error::kCorruptData, {path("b/2.etdp.json")}));
}

// A sidecar that never ends (a link to a zero device aborted on bad_alloc)
// or never starts (a FIFO without a writer hung) is refused unread, as is
// one larger than any tag list. The device is the test's own node.
TEST_F(DumpInputsTest, ASidecarIsReadOnlyFromABoundedRegularFile) {
  ASSERT_EQ(::mkfifo(path("a/1.etdp.json").c_str(), 0600), 0);
  EXPECT_THAT(read_sidecar_tags(path("a/1.etdp")).status(),
              ErrorIs(Error::kAccessFailed, {path("a/1.etdp.json"), "(a FIFO)"}));
  std::ofstream(path("b/1.etdp.json")) << std::string(kMaxSidecarBytes + 1, ' ');
  EXPECT_THAT(read_sidecar_tags(path("b/1.etdp")).status(),
              ErrorIs(Error::kOutOfResources, {path("b/1.etdp.json"), "bytes"}));
  if (::mknod(path("zero").c_str(), S_IFCHR | 0666, makedev(1, 5)) != 0) {
    GTEST_SKIP() << "mknod: " << std::strerror(errno);
  }
  fs::create_symlink(path("zero"), path("b/2.etdp.json"));
  EXPECT_THAT(read_sidecar_tags(path("b/2.etdp")).status(),
              ErrorIs(Error::kAccessFailed, {path("b/2.etdp.json"), "(a character device)"}));
}

TEST(SidecarTagsTest, DeeplyNestedJsonIsRefused) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_THAT(parse_sidecar_tags(R"({"a": )" + deep + "}", "x.etdp.json").status(),
              ErrorIs(Error::kCorruptData, {"x.etdp.json: JSON nested deeper than 256 levels"}));
}

}  // namespace
}  // namespace glassbox::cli
