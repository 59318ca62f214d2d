#include "glassbox/etdump/data_sink.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

TEST(BufferDataSinkTest, RejectsAlignmentsThatAreNotPowersOfTwo) {
  std::vector<std::uint8_t> buffer(128);
  for (std::size_t bad : {0, 3, 5, 7, 100, 127}) {
    EXPECT_THAT(BufferDataSink::create(buffer, bad), ErrorIs(Error::kInvalidArgument)) << bad;
  }
  for (std::size_t good = 1; good <= 128; good *= 2) {
    EXPECT_TRUE(BufferDataSink::create(buffer, good).ok()) << good;
  }
}

TEST(BufferDataSinkTest, AlignsOffsetsFromTheBufferStartAndFillsUp) {
  constexpr std::size_t kAlignment = 64;
  std::vector<std::uint8_t> buffer(128, 0xff);
  Result<BufferDataSink> sink = BufferDataSink::create(buffer, kAlignment);
  ASSERT_THAT(sink, IsOk());
  const std::uint8_t chunk[32] = {1, 2, 3};
  EXPECT_EQ(*sink->write(chunk, sizeof(chunk)), 0u);
  EXPECT_EQ(*sink->write(chunk, sizeof(chunk)), kAlignment);
  EXPECT_EQ(buffer[32], 0) << "padding is zeroed";
  EXPECT_EQ(buffer[kAlignment], 1);
  // A third aligned write would start at 128: no room.
  EXPECT_THAT(sink->write(chunk, sizeof(chunk)), ErrorIs(Error::kOutOfResources));
  EXPECT_EQ(sink->used_bytes(), kAlignment + sizeof(chunk));
  EXPECT_EQ(sink->storage_size(), 128u);
}

TEST(FileDataSinkTest, WritesAppendAndCloseEnds) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "glassbox_sink_test.bin";
  Result<FileDataSink> sink = FileDataSink::create(path.c_str());
  ASSERT_THAT(sink, IsOk());
  const char first[] = "abc";
  const char second[] = "defgh";
  EXPECT_EQ(*sink->write(first, 3), 0u);
  EXPECT_EQ(*sink->write(second, 5), 3u);
  EXPECT_EQ(sink->close(), Error::kOk);
  EXPECT_THAT(sink->write(first, 3), ErrorIs(Error::kAccessFailed));
  std::ifstream in(path, std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "abcdefgh");
  std::filesystem::remove(path);
}

TEST(FileDataSinkTest, BadPathIsAccessFailed) {
  EXPECT_THAT(FileDataSink::create("/nonexistent-dir/x.bin"), ErrorIs(Error::kAccessFailed));
}

}  // namespace
}  // namespace glassbox::etdump
