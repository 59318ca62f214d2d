// ETDumpGen's record store in heap mode: its slabs take the pages the store
// was told to (internal::LargeBuffer's huge-page advice, or malloc's).

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "glassbox/etdump/internal/etdump_gen_storage.h"
#include "src/testing/huge_pages.h"

namespace glassbox::etdump::internal {
namespace {

using ::glassbox::testing::advised_huge;
using ::glassbox::testing::kernel_has_huge_pages;
using Pages = LargeBuffer::Pages;

// The record store's slabs (chunks 16 and up) take the pages it was told
// to: a store told kReusable once took huge pages regardless.
TEST(RecordStorePagesTest, RecordSlabsTakeThePagesTheStoreWasGiven) {
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
