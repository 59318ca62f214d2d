#include "glassbox/etdump/internal/large_buffer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "glassbox/etdump/internal/etdump_gen_storage.h"

namespace glassbox::etdump::internal {
namespace {

using Pages = LargeBuffer::Pages;
using Fill = LargeBuffer::Fill;

bool all_zero(const LargeBuffer& b) {
  return std::all_of(b.data(), b.data() + b.size(), [](std::uint8_t v) { return v == 0; });
}

// Whether the mapping holding `address` was advised for huge pages (the
// "hg" flag in /proc/self/smaps); nullopt where that cannot be read.
std::optional<bool> advised_huge(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return std::nullopt;
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return std::nullopt;
}

// Whether this kernel has transparent huge pages at all, and shows the
// advice in smaps: a mapping of our own, advised directly, must carry the
// flag. qemu-user (make test-aarch64) accepts madvise and drops it.
bool kernel_has_huge_pages() {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) return false;
  const std::size_t bytes = 2 * LargeBuffer::kHugePageBytes;
  void* probe = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool shown =
      madvise(probe, bytes, MADV_HUGEPAGE) == 0 && advised_huge(probe) == std::optional<bool>(true);
  munmap(probe, bytes);
  return shown;
}

TEST(LargeBufferTest, FreshHugePagesAreZeroAlignedAndWritable) {
  LargeBuffer buffer;
  // Not a multiple of the huge page: the tail is ordinary pages.
  const std::size_t bytes = LargeBuffer::kHugePageBytes + 12345;
  ASSERT_TRUE(buffer.allocate(bytes, Pages::kFreshHuge, Fill::kZero));
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), bytes);
#if defined(__linux__)
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % LargeBuffer::kHugePageBytes, 0u)
      << "only aligned ranges can be huge pages";
#endif
  EXPECT_TRUE(all_zero(buffer));
  std::fill(buffer.data(), buffer.data() + bytes, std::uint8_t{0xab});
  EXPECT_EQ(buffer.data()[bytes - 1], 0xab);
  buffer.release();
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(LargeBufferTest, ReusableZeroFillIsZeroEvenOverUsedMemory) {
  LargeBuffer buffer;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(buffer.allocate(64 * 1024, Pages::kReusable, Fill::kZero));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 16, 0u);
    EXPECT_TRUE(all_zero(buffer)) << "round " << round;
    std::fill(buffer.data(), buffer.data() + buffer.size(), std::uint8_t{0xcd});
  }
}

TEST(LargeBufferTest, AllocatingAgainReplacesAndZeroBytesIsEmpty) {
  LargeBuffer buffer;
  ASSERT_TRUE(buffer.allocate(LargeBuffer::kHugePageBytes, Pages::kFreshHuge, Fill::kAny));
  ASSERT_TRUE(buffer.allocate(100, Pages::kReusable, Fill::kAny));
  EXPECT_EQ(buffer.size(), 100u);
  ASSERT_TRUE(buffer.allocate(0, Pages::kReusable, Fill::kZero));
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(LargeBufferTest, OnlyFreshHugeBuffersAreAdvisedForHugePages) {
  if (!kernel_has_huge_pages()) GTEST_SKIP() << "no transparent huge pages here";
  LargeBuffer huge;
  LargeBuffer reusable;
  ASSERT_TRUE(huge.allocate(LargeBuffer::kHugePageBytes, Pages::kFreshHuge, Fill::kZero));
  ASSERT_TRUE(reusable.allocate(LargeBuffer::kHugePageBytes, Pages::kReusable, Fill::kZero));
  EXPECT_EQ(advised_huge(huge.data()), std::optional<bool>(true));
  EXPECT_EQ(advised_huge(reusable.data()), std::optional<bool>(false));
}

// The record store's slabs (chunks 16 and up) take the pages it was told
// to: a store told kReusable once took huge pages regardless.
TEST(LargeBufferTest, RecordSlabsTakeThePagesTheStoreWasGiven) {
  if (!kernel_has_huge_pages()) GTEST_SKIP() << "no transparent huge pages here";
  constexpr std::uint64_t kSlabRecords = RecordStore::kChunkSize << RecordStore::kSlabShift;
  for (const Pages pages : {Pages::kFreshHuge, Pages::kReusable}) {
    RecordStore store;
    store.init_heap(2 * kSlabRecords, std::int64_t{1} << 30, pages);
    store.reserve(kSlabRecords + 1);  // the first slab's chunks, and one of the second slab
    const Record* first = store.peek(0);
    const Record* second = store.peek(kSlabRecords);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(advised_huge(first), std::optional<bool>(false)) << "the first slab is malloc's";
    EXPECT_EQ(advised_huge(second), std::optional<bool>(pages == Pages::kFreshHuge));
  }
}

}  // namespace
}  // namespace glassbox::etdump::internal
