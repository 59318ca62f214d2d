#include "glassbox/io/output_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "glassbox/io/file.h"
#include "src/testing/status_matchers.h"

namespace glassbox::io {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using ::testing::StartsWith;

class OutputFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("output_files_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::size_t files() const {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir_), {}));
  }
  std::filesystem::path dir_;
};

TEST_F(OutputFilesTest, NothingReachesTheDestinationBeforeCommit) {
  write(path("old.bin"), "old");
  {
    OutputFiles outputs;
    StatusOr<std::string> temporary = outputs.add(path("old.bin"));
    ASSERT_THAT(temporary, IsOk());
    EXPECT_NE(*temporary, path("old.bin"));
    EXPECT_EQ(std::filesystem::path(*temporary).parent_path(), dir_) << "same folder: atomic";
    write(*temporary, "half-writ");
    StatusOr<std::string> fresh = outputs.add(path("new.bin"));
    ASSERT_THAT(fresh, IsOk());
    write(*fresh, "new");
    // The command fails here: no commit.
  }
  EXPECT_EQ(read(path("old.bin")), "old");
  EXPECT_FALSE(std::filesystem::exists(path("new.bin")));
  EXPECT_EQ(files(), 1u) << "temporary files are removed";
}

TEST_F(OutputFilesTest, CommitRenamesEveryOutputIntoPlace) {
  write(path("a"), "old");
  OutputFiles outputs;
  const std::string a = *outputs.add(path("a"));
  const std::string b = *outputs.add(path("b"));
  write(a, "A");
  write(b, "B");
  ASSERT_THAT(outputs.commit(), IsOk());
  EXPECT_EQ(read(path("a")), "A");
  EXPECT_EQ(read(path("b")), "B");
  EXPECT_EQ(files(), 2u);
}

TEST_F(OutputFilesTest, AnOutputNeverWrittenFailsTheCommitAndRenamesNothing) {
  OutputFiles outputs;
  write(*outputs.add(path("written")), "x");
  ASSERT_THAT(outputs.add(path("forgotten")), IsOk());
  EXPECT_THAT(outputs.commit(), ErrorIs(Error::kInternal, {"forgotten", "not written"}));
  EXPECT_FALSE(std::filesystem::exists(path("written")));
}

TEST_F(OutputFilesTest, AnInputIsNeverAnOutput) {
  write(path("in.gbx"), "program");
  OutputFiles outputs;
  ASSERT_THAT(outputs.refuse_inputs({path("in.gbx"), ""}), IsOk());
  EXPECT_THAT(outputs.add(path("in.gbx")),
              ErrorIs(Error::kInvalidArgument, {"in.gbx", "both an input and an output"}));
  // Spelled differently, the same file.
  EXPECT_THAT(outputs.add(dir_.string() + "/./sub/../in.gbx"),
              ErrorIs(Error::kInvalidArgument, {"both an input and an output"}));
  // Outputs added before the inputs are known are checked too.
  OutputFiles later;
  ASSERT_THAT(later.add(path("in.gbx")), IsOk());
  EXPECT_THAT(later.refuse_inputs({path("in.gbx")}), ErrorIs(Error::kInvalidArgument));
  EXPECT_EQ(read(path("in.gbx")), "program");
}

TEST_F(OutputFilesTest, TwoOutputsToOneFileAndDirectoriesAreRefused) {
  OutputFiles outputs;
  ASSERT_THAT(outputs.add(path("x")), IsOk());
  EXPECT_THAT(outputs.add(path("x")), ErrorIs(Error::kInvalidArgument, {"two outputs"}));
  EXPECT_THAT(outputs.add(dir_.string()), ErrorIs(Error::kInvalidArgument, {"directory"}));
  EXPECT_THAT(outputs.add(""), ErrorIs(Error::kInvalidArgument, {"empty"}));
}

// A device node of the test's own, in its folder: never a real one.
bool make_device(const std::string& path, mode_t kind, unsigned major, unsigned minor) {
  return ::mknod(path.c_str(), kind | 0666, makedev(major, minor)) == 0;
}

// As root, renaming a temporary over /dev/full replaced the machine's
// device with a regular file. A character device is written into, and
// stays the device, whether the command commits or fails.
TEST_F(OutputFilesTest, ACharacterDeviceIsWrittenIntoNeverReplaced) {
  const std::string null_device = path("null");
  if (!make_device(null_device, S_IFCHR, 1, 3)) GTEST_SKIP() << "mknod: " << std::strerror(errno);
  for (const bool commit : {true, false}) {
    OutputFiles outputs;
    StatusOr<std::string> target = outputs.add(null_device);
    ASSERT_THAT(target, IsOk());
    ASSERT_THAT(write_file(*target, "discarded"), IsOk());
    if (commit) {
      ASSERT_THAT(outputs.commit(), IsOk());
    }
  }
  struct stat st;
  ASSERT_EQ(::lstat(null_device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced";
  EXPECT_EQ(files(), 1u);
  ASSERT_THAT(write_file_atomically(null_device, "discarded"), IsOk());
  ASSERT_EQ(::lstat(null_device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFilesTest, AFifoIsWrittenIntoNeverReplaced) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read(fifo); });
  const Status written = write_file_atomically(fifo, "through the pipe");
  reader.join();
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(received, "through the pipe");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(files(), 1u);
}

TEST_F(OutputFilesTest, ABlockDeviceIsRefused) {
  const std::string block = path("block");
  if (!make_device(block, S_IFBLK, 7, 200)) GTEST_SKIP() << "mknod: " << std::strerror(errno);
  OutputFiles outputs;
  EXPECT_THAT(outputs.add(block), ErrorIs(Error::kInvalidArgument, {"block", "block device"}));
}

// The file a link names is replaced atomically; the link stays a link.
TEST_F(OutputFilesTest, ASymlinkKeepsPointingAtTheReplacedFile) {
  std::filesystem::create_directory(dir_ / "real");
  write(path("real/out.txt"), "old");
  std::filesystem::create_symlink("real/out.txt", dir_ / "link");
  std::filesystem::create_symlink(dir_ / "link", dir_ / "link_to_link");
  std::filesystem::create_symlink("real/new.txt", dir_ / "dangling");
  for (const char* name : {"link", "link_to_link", "dangling"}) {
    ASSERT_THAT(write_file_atomically(path(name), name), IsOk());
    EXPECT_TRUE(std::filesystem::is_symlink(dir_ / name)) << name;
    EXPECT_EQ(read(path(name)), name);
  }
  EXPECT_EQ(read(path("real/out.txt")), "link_to_link");
  EXPECT_EQ(read(path("real/new.txt")), "dangling");
  EXPECT_EQ(static_cast<std::size_t>(
                std::distance(std::filesystem::directory_iterator(dir_ / "real"), {})),
            2u)
      << "no temporary left beside the target";
}

TEST_F(OutputFilesTest, ALoopOfLinksIsNamedAsSuch) {
  std::filesystem::create_symlink("b", dir_ / "a");
  std::filesystem::create_symlink("a", dir_ / "b");
  OutputFiles outputs;
  EXPECT_THAT(
      outputs.add(path("a")),
      ErrorIs(Error::kAccessFailed, {"/a: cannot write: Too many levels of symbolic links"}));
}

TEST_F(OutputFilesTest, WriteErrorsNameTheOutputNotItsTemporary) {
  OutputFiles outputs;
  StatusOr<std::string> temporary = outputs.add(path("out.bin"));
  ASSERT_THAT(temporary, IsOk());
  const Status named =
      outputs.name_outputs(Status(Error::kAccessFailed, "cannot write " + *temporary + ": full"));
  EXPECT_THAT(named, ErrorIs(Error::kAccessFailed));
  EXPECT_EQ(named.message(), "cannot write " + path("out.bin") + ": full");
  EXPECT_THAT(outputs.name_outputs(Status()), IsOk());
}

TEST(SameFileTest, ComparesExistingFilesByInodeAndOthersByPath) {
  const std::string dir = ::testing::TempDir();
  EXPECT_TRUE(same_file(dir + "/nope/../x.bin", dir + "/x.bin"));
  EXPECT_FALSE(same_file(dir + "/x.bin", dir + "/y.bin"));
}

TEST(WriteFileAtomicallyTest, ReplacesTheFileAndLeavesNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/atomic_write";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/out.html";
  ASSERT_THAT(write_file_atomically(path, "old contents, longer than the new"), IsOk());
  ASSERT_THAT(write_file_atomically(path, "new"), IsOk());
  const std::vector<std::uint8_t> bytes = read_file(path).value();
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "new");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "out.html");
  }
  EXPECT_EQ(files, 1);
}

TEST(WriteFileAtomicallyTest, MissingFolderNamesThePath) {
  const Status status = write_file_atomically("/nonexistent/dir/out.html", "x");
  ASSERT_THAT(status, ErrorIs(Error::kAccessFailed));
  EXPECT_THAT(status.message(), StartsWith("/nonexistent/dir/out.html: cannot write: "));
}

}  // namespace
}  // namespace glassbox::io

namespace glassbox::io {
namespace {

TEST(WriteFileChunksTest, WritesEveryChunkInOrder) {
  const std::string dir = ::testing::TempDir() + "/chunks";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/trace.json";
  ASSERT_THAT(write_file_chunks(path,
                                [](const ChunkSink& write) {
                                  for (const char* piece : {"{\"a\":", "1", "}\n"}) {
                                    GLASSBOX_RETURN_IF_ERROR(write(piece));
                                  }
                                  return Status();
                                }),
              IsOk());
  const std::vector<std::uint8_t> bytes = read_file(path).value();
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "{\"a\":1}\n");
}

TEST(WriteFileChunksTest, TheProducersErrorIsReturned) {
  const std::string dir = ::testing::TempDir() + "/chunks_error";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const Status status = write_file_chunks(dir + "/out", [](const ChunkSink& write) {
    GLASSBOX_RETURN_IF_ERROR(write("partial"));
    return Status(Error::kCorruptData, "run.etdp: truncated");
  });
  EXPECT_THAT(status, ErrorIs(Error::kCorruptData, {"run.etdp: truncated"}));
}

}  // namespace
}  // namespace glassbox::io
