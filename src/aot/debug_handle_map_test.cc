#include "glassbox/aot/debug_handle_map.h"

#include <gtest/gtest.h>

#include "glassbox/aot/graph_json.h"
#include "glassbox/aot/internal/debug_handle_map_json.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

// The two example maps of ExecuTorch's delegate-debugging guide.
const DebugHandleMap kIntMap = {
    {int64_t{0}, {DebugHandle(10), DebugHandle(11)}},
    {int64_t{1}, {DebugHandle(11), DebugHandle(12)}},
};
const DebugHandleMap kStringMap = {
    {std::string("Fancy Fusion"), {DebugHandle(11), DebugHandle(12), DebugHandle(15)}},
};

TEST(DebugHandleMapTest, WritesExecuTorchShapeWithExplicitKeyType) {
  EXPECT_EQ(*debug_handle_map_to_json(kIntMap),
            R"({"key_type":"int","entries":{"0":[10,11],"1":[11,12]}})");
  EXPECT_EQ(*debug_handle_map_to_json(kStringMap),
            R"({"key_type":"string","entries":{"Fancy Fusion":[11,12,15]}})");
  EXPECT_EQ(*debug_handle_map_to_json({}), R"({"key_type":"int","entries":{}})");
}

TEST(DebugHandleMapTest, OrdersIntKeysNumerically) {
  const DebugHandleMap map = {{int64_t{10}, {DebugHandle(1)}}, {int64_t{9}, {DebugHandle(2)}}};
  EXPECT_EQ(*debug_handle_map_to_json(map), R"({"key_type":"int","entries":{"9":[2],"10":[1]}})");
}

TEST(DebugHandleMapTest, RoundTrips) {
  for (const DebugHandleMap& map : {kIntMap, kStringMap, DebugHandleMap{}}) {
    StatusOr<std::string> json = debug_handle_map_to_json(map);
    ASSERT_THAT(json, IsOk());
    StatusOr<DebugHandleMap> parsed = debug_handle_map_from_json(*json);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ(*parsed, map);
  }
  // A string key that looks like a number stays a string.
  StatusOr<DebugHandleMap> parsed =
      debug_handle_map_from_json(R"({"key_type":"string","entries":{"7":[1]}})");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_TRUE(parsed->contains(std::string("7")));
}

TEST(DebugHandleMapTest, ValidationCatchesEveryBrokenInvariant) {
  EXPECT_THAT(validate_debug_handle_map(kIntMap), IsOk());
  const DebugHandleMap mixed = {{int64_t{0}, {DebugHandle(1)}},
                                {std::string("a"), {DebugHandle(1)}}};
  EXPECT_THAT(validate_debug_handle_map(mixed), ErrorIs(Error::kInvalidArgument, {"mixes"}));
  EXPECT_THAT(debug_handle_map_to_json(mixed), ErrorIs(Error::kInvalidArgument, {"mixes"}));
  const DebugHandleMap unsorted = {{int64_t{0}, {DebugHandle(2), DebugHandle(1)}}};
  EXPECT_THAT(validate_debug_handle_map(unsorted),
              ErrorIs(Error::kInvalidArgument, {"not sorted"}));
  const DebugHandleMap unset = {{int64_t{0}, {kUnsetDebugHandle}}};
  EXPECT_THAT(validate_debug_handle_map(unset),
              ErrorIs(Error::kInvalidArgument, {"debug handle 0"}));
  const DebugHandleMap negative = {{int64_t{-1}, {DebugHandle(1)}}};
  EXPECT_THAT(validate_debug_handle_map(negative), ErrorIs(Error::kInvalidArgument, {"INT32_MAX"}));
}

TEST(DebugHandleMapTest, RejectsBadJson) {
  EXPECT_THAT(debug_handle_map_from_json("{"), ErrorIs(Error::kCorruptData, {"malformed JSON"}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"entries":{}})"),
              ErrorIs(Error::kCorruptData, {"key_type: missing"}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"key_type":"float","entries":{}})"),
              ErrorIs(Error::kCorruptData, {"\"int\" or \"string\""}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"key_type":"int","entries":{"01":[1]}})"),
              ErrorIs(Error::kCorruptData, {"canonical decimal int"}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"key_type":"int","entries":{"0":[2,1]}})"),
              ErrorIs(Error::kCorruptData, {"not sorted"}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"key_type":"int","entries":{"0":["1"]}})"),
              ErrorIs(Error::kCorruptData, {"[\"0\"][0]", "expected an integer"}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"key_type":"int","entries":{"0":[4294967296]}})"),
              ErrorIs(Error::kCorruptData, {"out of range"}));
}

TEST(JsonDepthTest, RefusesDocumentsNestedDeeperThanTheLimit) {
  const auto nested = [](int depth) {
    return std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']');
  };
  EXPECT_THAT(internal::check_json_depth(nested(internal::kMaxJsonDepth), "doc"), IsOk());
  EXPECT_THAT(internal::check_json_depth(nested(internal::kMaxJsonDepth + 1), "doc"),
              ErrorIs(Error::kCorruptData, {"doc: JSON nested deeper than 256 levels"}));
  // Brackets inside strings, escaped quotes included, open nothing.
  const std::string in_strings =
      "[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]";
  EXPECT_THAT(internal::check_json_depth(in_strings, "doc"), IsOk());
  // 100,000 levels overflowed the stack of the readers that walk the value.
  const std::string deep = nested(100'000);
  EXPECT_THAT(internal::parse_json_fast(deep, "doc"),
              ErrorIs(Error::kCorruptData, {"JSON nested deeper than 256 levels"}));
  EXPECT_THAT(debug_handle_map_from_json(R"({"key_type":"int","entries":)" + deep + "}"),
              ErrorIs(Error::kCorruptData, {"JSON nested deeper than 256 levels"}));
  EXPECT_THAT(graph_from_json(deep),
              ErrorIs(Error::kCorruptData, {"JSON nested deeper than 256 levels"}));
}

}  // namespace
}  // namespace glassbox::aot
