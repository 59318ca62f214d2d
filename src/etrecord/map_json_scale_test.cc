// The map entries of a very large program round-trip in time linear in
// their size. ordered_json's member lookup is linear, so building or
// parsing these maps through it took seconds at this size; the test target
// has a ctest TIMEOUT, which fails this test if that comes back.

#include <gtest/gtest.h>

#include <string>

#include "glassbox/etrecord/etrecord_json.h"
#include "src/etrecord/map_json.h"
#include "src/testing/sanitizer_build.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etrecord::internal {
namespace {

using ::glassbox::testing::IsOk;

constexpr std::int32_t kInstructions = 100'000;

TEST(MapJsonScaleTest, HundredThousandInstructionsRoundTrip) {
  SKIP_IN_SANITIZER_BUILD();
  aot::PerMethod<aot::InstructionDebugHandles> handles;
  aot::PerMethod<aot::InstructionNumOuts> num_outs;
  for (std::int32_t i = 0; i < kInstructions; ++i) {
    handles["forward"][InstructionId(i)] = {DebugHandle(static_cast<std::uint32_t>(i) + 1)};
    num_outs["forward"][InstructionId(i)] = 1 + i % 3;
  }
  StatusOr<aot::PerMethod<aot::InstructionDebugHandles>> handles_back =
      parse_debug_handle_map_entry(debug_handle_map_entry(handles));
  ASSERT_THAT(handles_back, IsOk());
  EXPECT_EQ(*handles_back, handles);
  StatusOr<aot::PerMethod<aot::InstructionNumOuts>> num_outs_back =
      parse_num_outs_map_entry(num_outs_map_entry(num_outs));
  ASSERT_THAT(num_outs_back, IsOk());
  EXPECT_EQ(*num_outs_back, num_outs);
}

// One delegate whose own map has an identifier per instruction.
TEST(MapJsonScaleTest, DelegateMapOfHundredThousandIdentifiersRoundTrips) {
  SKIP_IN_SANITIZER_BUILD();
  aot::DebugHandleMap identifiers;
  for (std::int64_t i = 0; i < kInstructions; ++i) {
    identifiers["node_" + std::to_string(i)] = {DebugHandle(static_cast<std::uint32_t>(i) + 1)};
  }
  aot::PerMethod<aot::InstructionDelegateMap> delegates;
  delegates["forward"][InstructionId(0)] = aot::DelegateMapEntry{"XnnpackBackend", identifiers};
  StatusOr<aot::PerMethod<aot::InstructionDelegateMap>> back =
      parse_delegate_map_entry(delegate_map_entry(delegates));
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->at("forward").at(InstructionId(0)).delegate_map, identifiers);
}

// `etrecord show --format json` parsed each map's text back into
// ordered_json, whose member search made this take 20 seconds.
TEST(MapJsonScaleTest, RecordJsonOfTwoHundredThousandIdentifiers) {
  SKIP_IN_SANITIZER_BUILD();
  constexpr std::int64_t kIdentifiers = 200'000;
  aot::DebugHandleMap identifiers;
  for (std::int64_t i = 0; i < kIdentifiers; ++i) {
    identifiers["node_" + std::to_string(i)] = {DebugHandle(static_cast<std::uint32_t>(i) + 1)};
  }
  ETRecord record;
  record.fingerprint = "0123456789abcdef";
  record.edge_graphs["forward"] = aot::Graph{};
  record.delegate_map["forward"][InstructionId(0)] =
      aot::DelegateMapEntry{"XnnpackBackend", identifiers};
  record.instruction_id_to_num_outs_map["forward"][InstructionId(0)] = 1;
  const nlohmann::json shown = nlohmann::json::parse(etrecord_to_json(record));
  const nlohmann::json& forward = shown["methods"]["forward"];
  EXPECT_EQ(shown["fingerprint"], "0123456789abcdef");
  EXPECT_EQ(forward["delegate_map"]["0"]["name"], "XnnpackBackend");
  EXPECT_EQ(forward["delegate_map"]["0"]["delegate_map"].size(), std::size_t{kIdentifiers});
  EXPECT_EQ(forward["delegate_map"]["0"]["delegate_map"]["node_7"], nlohmann::json::array({8}));
  EXPECT_EQ(forward["instruction_id_to_num_outs_map"]["0"], 1);
  EXPECT_TRUE(forward["debug_handle_map"].empty());
}

}  // namespace
}  // namespace glassbox::etrecord::internal
