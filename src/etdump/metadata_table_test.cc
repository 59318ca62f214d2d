#include "glassbox/etdump/internal/metadata_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "glassbox/etdump/internal/etdump_gen_storage.h"

namespace glassbox::etdump::internal {
namespace {

class MetadataTableTest : public ::testing::Test {
 protected:
  MetadataTableTest() {
    store_.init_heap(1 << 12, std::int64_t{1} << 30);
    table_.init(&store_);
  }
  std::uint32_t intern(const std::string& s) { return table_.intern(s.data(), s.size()); }
  std::string bytes_of(std::uint32_t number) const {
    const MetadataTable::Entry& e = table_.entry(number);
    return std::string(reinterpret_cast<const char*>(e.bytes), e.length);
  }

  RecordStore store_;
  MetadataTable table_;
};

TEST_F(MetadataTableTest, EqualBytesAtOtherAddressesShareOneEntry) {
  const std::string a = "softmax: jit:avx512_core";
  const std::string b = a;  // another buffer, the same bytes
  const std::uint32_t n = intern(a);
  ASSERT_NE(n, 0u);
  EXPECT_EQ(intern(b), n);
  EXPECT_EQ(intern(a), n);
  EXPECT_EQ(table_.size(), 1u);
  EXPECT_EQ(bytes_of(n), a);
}

TEST_F(MetadataTableTest, RewrittenBufferGetsItsNewBytes) {
  char buffer[] = "pool: ref";
  const std::uint32_t first = table_.intern(buffer, std::strlen(buffer));
  buffer[0] = 'P';
  const std::uint32_t second = table_.intern(buffer, std::strlen(buffer));
  ASSERT_NE(second, 0u);
  EXPECT_NE(second, first) << "the cached address must not stand for the old bytes";
  EXPECT_EQ(bytes_of(second), "Pool: ref");
  buffer[0] = 'p';
  EXPECT_EQ(table_.intern(buffer, std::strlen(buffer)), first);
  EXPECT_EQ(table_.intern(buffer, 4), table_.intern("pool", 4)) << "the length is part of the key";
  EXPECT_NE(table_.intern(buffer, 4), first);
}

TEST_F(MetadataTableTest, EmptyAndTooLongAreNotInterned) {
  EXPECT_EQ(table_.intern("x", 0), 0u);
  const std::string longest(MetadataTable::kMaxLength, 'a');
  EXPECT_NE(intern(longest), 0u);
  EXPECT_EQ(intern(longest + "a"), 0u);
}

TEST_F(MetadataTableTest, FullTableKeepsItsEntriesAndInternsNothingNew) {
  std::vector<std::string> all;
  for (std::uint32_t i = 0; i < MetadataTable::kMaxEntries; ++i) {
    all.push_back("op_" + std::to_string(i));
    EXPECT_EQ(intern(all.back()), i + 1);
  }
  EXPECT_EQ(intern("one more"), 0u);
  EXPECT_EQ(table_.size(), MetadataTable::kMaxEntries);
  // Other buffers with the same bytes: found by content, not by the cache.
  const std::vector<std::string> copies = all;
  for (std::uint32_t i = 0; i < MetadataTable::kMaxEntries; ++i) {
    EXPECT_EQ(intern(copies[i]), i + 1);
  }
  // A cached buffer rewritten with other bytes (a delegate logging a
  // counter): once the table is full it is not searched, so even bytes the
  // table holds are then copied, never misnamed.
  char buffer[] = "op_0";
  EXPECT_EQ(table_.intern(buffer, 4), 1u);
  buffer[3] = '1';
  EXPECT_EQ(table_.intern(buffer, 4), 0u);
}

TEST_F(MetadataTableTest, ShortBudgetInternsNothing) {
  RecordStore empty;
  empty.init_heap(1 << 12, 0);
  MetadataTable table;
  table.init(&empty);
  EXPECT_EQ(table.intern("abc", 3), 0u);
  EXPECT_EQ(table.size(), 0u);
}

TEST_F(MetadataTableTest, ClearForgetsEveryEntry) {
  const std::string a = "a", b = "b";
  ASSERT_EQ(intern(a), 1u);
  table_.clear();
  EXPECT_EQ(table_.size(), 0u);
  EXPECT_EQ(intern(b), 1u);
  EXPECT_EQ(bytes_of(1), "b") << "a cached address from before must not resolve to the old entry";
  EXPECT_EQ(intern(a), 2u);
}

TEST_F(MetadataTableTest, ThreadsAgreeOnEveryNumber) {
  std::vector<std::string> names;
  for (int i = 0; i < 20; ++i) names.push_back("kernel_" + std::to_string(i));
  std::vector<std::vector<std::uint32_t>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        for (std::size_t i = 0; i < names.size(); ++i) {
          const std::string& s = names[(i + static_cast<std::size_t>(t) * 5) % names.size()];
          seen[t].push_back(table_.intern(s.data(), s.size()));
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(table_.size(), names.size());
  for (int t = 0; t < 4; ++t) {
    for (std::size_t k = 0; k < seen[t].size(); ++k) {
      const std::string& s =
          names[(k % names.size() + static_cast<std::size_t>(t) * 5) % names.size()];
      ASSERT_NE(seen[t][k], 0u);
      EXPECT_EQ(bytes_of(seen[t][k]), s);
    }
  }
}

}  // namespace
}  // namespace glassbox::etdump::internal
