#include "glassbox/io/file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "src/testing/status_matchers.h"

namespace glassbox::io {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using ::testing::ElementsAreArray;
using ::testing::StartsWith;

// Larger than one read chunk (64 KiB), so the chunk loop runs more than once.
constexpr std::size_t kLargerThanOneChunk = (1 << 16) + 3;

std::string write_temp(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  return path;
}

TEST(ReadFileTest, ReadsEveryByte) {
  std::vector<std::uint8_t> bytes(kLargerThanOneChunk);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7);
  const std::string path = write_temp("read_file_test.bin", bytes);
  StatusOr<std::vector<std::uint8_t>> read = read_file(path);
  ASSERT_THAT(read, IsOk());
  EXPECT_THAT(*read, ElementsAreArray(bytes));
  std::remove(path.c_str());
}

TEST(ReadFileTest, ReadsAnEmptyFile) {
  const std::string path = write_temp("read_file_empty.bin", {});
  StatusOr<std::vector<std::uint8_t>> read = read_file(path);
  ASSERT_THAT(read, IsOk());
  EXPECT_TRUE(read->empty());
  std::remove(path.c_str());
}

TEST(ReadFileTest, MissingFileNamesThePath) {
  StatusOr<std::vector<std::uint8_t>> read = read_file("/nonexistent/x.bin");
  ASSERT_THAT(read, ErrorIs(Error::kAccessFailed));
  EXPECT_THAT(read.message(), StartsWith("/nonexistent/x.bin: cannot open: "));
}

TEST(ReadFileTest, DirectoryCannotBeRead) {
  StatusOr<std::vector<std::uint8_t>> read = read_file(::testing::TempDir());
  ASSERT_THAT(read, ErrorIs(Error::kAccessFailed));
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
