// Bad input: every corruption gives one clear error naming the source (and
// the entry when one is at fault), never a crash or a partial record.

#include <gtest/gtest.h>

#include <random>

#include "glassbox/etrecord/etrecord.h"
#include "src/etrecord/test_records.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

using internal::ZipEntries;
using testing::demo_record;
using testing::ErrorIs;
using testing::value_of;

constexpr std::string_view kSource = "bad.etrecord";

std::vector<std::uint8_t> good_bytes() { return value_of(demo_record().to_bytes()); }

ZipEntries good_entries() { return value_of(internal::read_zip(good_bytes(), "good")); }

StatusOr<ETRecord> load(const std::vector<std::uint8_t>& bytes) {
  return ETRecord::load_from_memory(bytes, kSource);
}

StatusOr<ETRecord> load(const ZipEntries& entries) {
  return load(value_of(internal::write_zip(entries)));
}

std::vector<std::uint8_t> text(std::string_view s) {
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

TEST(ETRecordBadInputTest, MissingFile) {
  EXPECT_THAT(ETRecord::load("/nonexistent/none.etrecord"),
              ErrorIs(Error::kAccessFailed, {"/nonexistent/none.etrecord"}));
}

TEST(ETRecordBadInputTest, NotAZip) {
  EXPECT_THAT(load(std::vector<std::uint8_t>{}), ErrorIs(Error::kCorruptData, {kSource, "zip"}));
  EXPECT_THAT(load(text("hello, this is not a zip archive at all")),
              ErrorIs(Error::kCorruptData, {kSource, "not a valid zip"}));
}

TEST(ETRecordBadInputTest, TruncatedAtManyLengths) {
  const std::vector<std::uint8_t> bytes = good_bytes();
  // Every length would be slow under sanitizers; a spread of cuts covers
  // the local headers, the data, the central directory and its end record.
  for (std::size_t cut :
       {std::size_t{1}, std::size_t{4}, std::size_t{30}, bytes.size() / 4, bytes.size() / 2,
        bytes.size() - 100, bytes.size() - 22, bytes.size() - 1}) {
    const std::vector<std::uint8_t> truncated(bytes.begin(),
                                              bytes.begin() + static_cast<long>(cut));
    EXPECT_THAT(load(truncated), ErrorIs(Error::kCorruptData, {kSource})) << "cut at " << cut;
  }
}

TEST(ETRecordBadInputTest, RandomByteFlipsNeverCrash) {
  const std::vector<std::uint8_t> bytes = good_bytes();
  std::mt19937 engine(12345);  // Fixed: a failure must reproduce.
  std::uniform_int_distribution<std::size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> bit(0, 7);
  constexpr int kTrials = 300;
  int rejected = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<std::uint8_t> flipped = bytes;
    for (int k = 0; k < 1 + trial % 4; ++k) {
      flipped[position(engine)] ^= static_cast<std::uint8_t>(1u << bit(engine));
    }
    StatusOr<ETRecord> result = load(flipped);
    if (!result.ok()) {
      ++rejected;
      EXPECT_NE(result.message().find(kSource), std::string::npos) << result.message();
    }
  }
  // Flips in unchecked fields (timestamps, comments) may load; most may not.
  EXPECT_GT(rejected, kTrials / 2);
}

TEST(ETRecordBadInputTest, ZipWithoutMarker) {
  ZipEntries entries = good_entries();
  entries.erase(std::string(kMarkerEntry));
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, "not an ETRecord",
                                                           "glassbox_etrecord", "ETRECORD_V0"}));
}

TEST(ETRecordBadInputTest, WrongVersion) {
  ZipEntries entries = good_entries();
  entries[std::string(kMarkerEntry)] = text("2");
  EXPECT_THAT(load(entries), ErrorIs(Error::kVersionMismatch, {kSource, "version 2"}));
  entries[std::string(kMarkerEntry)] = text("one");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"glassbox_etrecord"}));
}

TEST(ETRecordBadInputTest, MissingEntries) {
  for (const char* name :
       {"debug_handle_map.json", "delegate_map.json", "instruction_id_to_num_outs_map.json",
        "fingerprint", "methods/forward/edge_graph.json"}) {
    ZipEntries entries = good_entries();
    entries.erase(name);
    EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, "missing entry", name}))
        << name;
  }
}

TEST(ETRecordBadInputTest, BadJsonNamesTheEntry) {
  for (const char* name :
       {"debug_handle_map.json", "delegate_map.json", "instruction_id_to_num_outs_map.json",
        "methods/forward/edge_graph.json"}) {
    ZipEntries entries = good_entries();
    entries[name] = text("{\"forward\": [");
    EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, name})) << name;
  }
}

// Copying or walking a JSON value recurses once per level: a document
// nested 100,000 deep crashed the reader.
TEST(ETRecordBadInputTest, DeeplyNestedJsonIsRefusedNotACrash) {
  constexpr std::size_t kDepth = 100'000;
  const std::string deep =
      "{\"forward\": " + std::string(kDepth, '[') + std::string(kDepth, ']') + "}";
  for (const char* name :
       {"debug_handle_map.json", "delegate_map.json", "instruction_id_to_num_outs_map.json",
        "methods/forward/edge_graph.json"}) {
    ZipEntries entries = good_entries();
    entries[name] = text(deep);
    EXPECT_THAT(load(entries),
                ErrorIs(Error::kCorruptData, {kSource, name, "JSON nested deeper than 256 levels"}))
        << name;
  }
}

TEST(ETRecordBadInputTest, BadShapesNameTheEntryAndPath) {
  struct Case {
    const char* entry;
    const char* json;
    const char* fragment;
  };
  const Case cases[] = {
      {"debug_handle_map.json", R"({"forward": {"0": 5}})", "forward.0"},
      {"debug_handle_map.json", R"({"forward": {"0": [2, 1]}})", "sorted"},
      {"debug_handle_map.json", R"({"forward": {"-1": [1]}})", "\"-1\""},
      {"debug_handle_map.json", R"({"forward": {"01": [1]}})", "\"01\""},
      {"debug_handle_map.json", R"([1, 2])", "object keyed by method"},
      {"delegate_map.json", R"({"forward": {"0": {"name": "DemoBackend"}}})",
       "delegate_map: missing"},
      {"delegate_map.json",
       R"({"forward": {"0": {"name": "DemoBackend", "delegate_map": {"0": [1]}}}})", "key_type"},
      {"delegate_map.json",
       R"({"forward": {"0": {"name": "DemoBackend", "key_type": "int", "delegate_map": {"x": [1]}}}})",
       "\"x\""},
      {"delegate_map.json",
       R"({"forward": {"0": {"name": "", "key_type": "int", "delegate_map": {}}}})", "name"},
      {"instruction_id_to_num_outs_map.json", R"({"forward": {"0": -1}})", "non-negative"},
      {"instruction_id_to_num_outs_map.json", R"({"forward": {"0": 1.5}})", "non-negative"},
  };
  for (const Case& c : cases) {
    ZipEntries entries = good_entries();
    entries[c.entry] = text(c.json);
    EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, c.entry, c.fragment}))
        << c.json;
  }
}

TEST(ETRecordBadInputTest, ImplausibleInstructionIdsAndHandles) {
  ZipEntries entries = good_entries();
  entries["debug_handle_map.json"] = text(R"({"forward": {"9": [1]}})");
  EXPECT_THAT(load(entries),
              ErrorIs(Error::kCorruptData, {kSource, "instruction 9", "no such instruction"}));
  entries = good_entries();
  entries["debug_handle_map.json"] = text(R"({"forward": {"0": [1, 99]}})");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"debug handle 99"}));
  entries = good_entries();
  entries["instruction_id_to_num_outs_map.json"] = text(R"({"forward": {"0": 1, "5": 1}})");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"0, 1, 2"}));
  entries = good_entries();
  entries["debug_handle_map.json"] = text(R"({"backward": {"0": [1]}})");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"'backward'", "no edge graph"}));
}

TEST(ETRecordBadInputTest, BadFingerprintAndReferences) {
  ZipEntries entries = good_entries();
  entries["fingerprint"] = text("not-hex");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"fingerprint"}));
  entries = good_entries();
  entries["reference/inputs/0.bin"] = text("abc");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"reference/inputs/0.json"}));
  entries["reference/inputs/0.json"] = text(R"({"dtype": "FLOAT", "sizes": [1]})");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"float32"}));
  entries["reference/inputs/0.bin"] = text("abcd");
  entries["reference/inputs/2.bin"] = text("abcd");  // A gap in the numbering.
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {"numbered"}));
  entries.erase("reference/inputs/2.bin");
  EXPECT_TRUE(value_of(load(entries)).reference_inputs.size() == 1);
}

}  // namespace
}  // namespace glassbox::etrecord
