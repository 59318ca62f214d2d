#include "glassbox/io/file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/testing/huge_pages.h"
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

// read_file_bytes: the same bytes; a file of huge-page size and more is
// read into memory advised for huge pages (where the kernel shows it), small
// ones into malloc's, and an empty file gives no bytes.
TEST(ReadFileBytesTest, ReadsEveryByteIntoHugePagesWhenLarge) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{1000}, std::size_t{5} << 20}) {
    std::vector<std::uint8_t> bytes(size);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 13);
    const std::string path = write_temp("read_file_bytes_test.bin", bytes);
    StatusOr<FileBytes> read = read_file_bytes(path);
    ASSERT_THAT(read, IsOk());
    ASSERT_EQ(read->size, size);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), read->bytes().begin()));
    if (size > 0) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(read->bytes().data()) % 16, 0u);
    }
    if (size > 0 && ::glassbox::testing::kernel_has_huge_pages()) {
      EXPECT_EQ(::glassbox::testing::advised_huge(read->bytes().data()),
                std::optional<bool>(size >= (std::size_t{2} << 20)))
          << size << " bytes";
    }
    std::remove(path.c_str());
  }
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

TEST(ReadFileTest, DirectoryIsRefusedByKind) {
  StatusOr<std::vector<std::uint8_t>> read = read_file(::testing::TempDir());
  ASSERT_THAT(read, ErrorIs(Error::kAccessFailed, {"is not a regular file (a directory)"}));
}

// /dev/zero never ends: reading it would exhaust memory.
TEST(ReadFileTest, DeviceIsRefusedWithoutReading) {
  StatusOr<std::vector<std::uint8_t>> read = read_file("/dev/zero");
  ASSERT_THAT(read, ErrorIs(Error::kAccessFailed,
                            {"/dev/zero: is not a regular file", "character device"}));
}

// A FIFO with no writer would block a plain open or read forever; if this
// regresses the test hangs and ctest's timeout fails it.
TEST(ReadFileTest, FifoIsRefusedWithoutBlocking) {
  const std::string path = ::testing::TempDir() + "/read_file_fifo";
  std::remove(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  StatusOr<std::vector<std::uint8_t>> read = read_file(path);
  EXPECT_THAT(read, ErrorIs(Error::kAccessFailed, {"is not a regular file (a FIFO)"}));
  std::remove(path.c_str());
}

TEST(ReadFileTest, FileLargerThanTheCapIsRefused) {
  const std::string path = write_temp("read_file_cap.bin", std::vector<std::uint8_t>(100, 1));
  EXPECT_THAT(read_file(path, 99),
              ErrorIs(Error::kOutOfResources, {"read_file_cap.bin: is 100 bytes", "99"}));
  EXPECT_THAT(read_file(path, 100), IsOk());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace glassbox::io
