#include "src/etrecord/zip_archive.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/testing/status_matchers.h"

namespace glassbox::etrecord::internal {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

std::vector<std::uint8_t> zip_of(const ZipEntries& entries) {
  StatusOr<std::vector<std::uint8_t>> bytes = write_zip(entries);
  EXPECT_THAT(bytes, IsOk());
  return bytes.ok() ? *bytes : std::vector<std::uint8_t>{};
}

// Zeros deflate about 1000:1, as in a zip bomb.
std::vector<std::uint8_t> zeros(std::size_t n) { return std::vector<std::uint8_t>(n, 0); }

TEST(ZipArchiveTest, RoundTripsWithinTheLimits) {
  const ZipEntries entries{{"a", zeros(1000)}, {"dir/b.json", {'{', '}'}}};
  StatusOr<ZipEntries> read = read_zip(zip_of(entries), "t.etrecord");
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, entries);
}

TEST(ZipArchiveTest, EntryLargerThanTheCapIsRefused) {
  const std::vector<std::uint8_t> bytes = zip_of({{"big", zeros(2000)}});
  EXPECT_THAT(read_zip(bytes, "t.etrecord", {.max_entry_bytes = 1999}),
              ErrorIs(Error::kCorruptData, {"t.etrecord: ", "'big' is too large"}));
  EXPECT_THAT(read_zip(bytes, "t.etrecord", {.max_entry_bytes = 2000}), IsOk());
}

// Many entries each under the per-entry cap: the declared total is refused
// from the central directory, before anything is inflated.
TEST(ZipArchiveTest, ArchiveExpandingBeyondTheTotalCapIsRefused) {
  ZipEntries entries;
  for (int i = 0; i < 8; ++i) entries["part" + std::to_string(i)] = zeros(1000);
  const std::vector<std::uint8_t> bytes = zip_of(entries);
  const ZipLimits limits{.max_entry_bytes = 1000, .max_total_bytes = 7999};
  EXPECT_THAT(
      read_zip(bytes, "bomb.etrecord", limits),
      ErrorIs(Error::kCorruptData, {"bomb.etrecord: the archive expands to more than 7999"}));
  EXPECT_THAT(read_zip(bytes, "bomb.etrecord", {.max_total_bytes = 8000}), IsOk());
  EXPECT_THAT(read_zip(bytes, "bomb.etrecord", {.max_entries = 7}),
              ErrorIs(Error::kCorruptData, {"too many entries"}));
}

// An ETRecord with one reference output per op of a 3,000-op detector
// (4,096 entries refused it): the limit that read_zip applies by default,
// as ArchiveExpandingBeyondTheTotalCapIsRefused shows it does, leaves room
// for models several times larger. (Writing and reading such an archive
// took 18 s under ASan.)
static_assert(kMaxZipEntries >= 16 * 4096);

TEST(ZipArchiveTest, UnsafeEntryNamesAreRefused) {
  const std::vector<std::string> unsafe = {"../up", "a/../../up", "/absolute", "back\\slash",
                                           "new\nline"};
  for (const std::string& name : unsafe) {
    EXPECT_THAT(read_zip(zip_of({{name, {'x'}}}), "t.etrecord"),
                ErrorIs(Error::kCorruptData, {"entry 0 has an unsafe name"}))
        << name;
  }
  EXPECT_THAT(read_zip(zip_of({{"a..b/..c", {'x'}}}), "t.etrecord"), IsOk());
}

}  // namespace
}  // namespace glassbox::etrecord::internal
