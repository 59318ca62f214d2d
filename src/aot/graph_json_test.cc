#include "glassbox/aot/graph_json.h"

#include <gtest/gtest.h>

#include <limits>

#include "glassbox/aot/graph_builder.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

// A graph with every attribute kind, a constant, modules and a delegate call.
Graph sample() {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 4, 4});
  // 0.1f is not exact in binary: it checks that floats survive the text form.
  ValueId w = b.constant("w", {2, 2, 1, 1}, {0.1f, -2.5f, 3.0e-8f, 1.0f});
  {
    auto scope = b.module("block", "Block");
    x = b.conv2d(x, w, std::nullopt);
    x = b.clamp(x, 0.0, 6.0);
    x = b.relu(x);
  }
  x = b.reshape(x, {1, -1});
  b.output(b.op("softmax", {x}, {{"axis", int64_t{-1}}}));
  StatusOr<Graph> graph = b.build();
  EXPECT_THAT(graph, IsOk());
  Graph g = std::move(graph).value();
  // A delegate call as to_backend() would leave it, in place of the relu.
  Node& call = g.nodes[2];
  call.op = "delegate_call";
  call.attributes["note"] = std::string("kept");
  call.delegate =
      DelegateCall{"demo",
                   {0x00, 0xAB, 0xFF},
                   {CompileSpec::from_string("identifiers", "string")},
                   DebugHandleMap{{std::string("fused"), {DebugHandle(1), DebugHandle(2)}}}};
  return g;
}

TEST(GraphJsonTest, RoundTripsWithConstantData) {
  const Graph graph = sample();
  StatusOr<std::string> json = graph_to_json(graph, {.include_constant_data = true});
  ASSERT_THAT(json, IsOk());
  StatusOr<Graph> parsed = graph_from_json(*json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, graph);
}

TEST(GraphJsonTest, OmitsConstantDataByDefault) {
  const Graph graph = sample();
  StatusOr<std::string> json = graph_to_json(graph);
  ASSERT_THAT(json, IsOk());
  EXPECT_EQ(json->find("\"data\""), std::string::npos);
  StatusOr<Graph> parsed = graph_from_json(*json);
  ASSERT_THAT(parsed, IsOk());
  Graph expected = graph;
  for (Value& v : expected.values) v.data.clear();
  EXPECT_EQ(*parsed, expected);
}

TEST(GraphJsonTest, IsDeterministicAndVersioned) {
  StatusOr<std::string> first = graph_to_json(sample());
  StatusOr<std::string> second = graph_to_json(sample());
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(
      first->rfind("{\"version\":1,\"values\":[{\"id\":0,\"name\":\"x\",\"kind\":\"input\"", 0),
      0u);
  // Float attributes stay floats, ints stay ints, bytes are hex.
  EXPECT_NE(first->find("\"min\":0.0"), std::string::npos);
  EXPECT_NE(first->find("\"axis\":-1"), std::string::npos);
  EXPECT_NE(first->find("\"note\":\"kept\""), std::string::npos);
  EXPECT_NE(first->find("\"processed_bytes\":\"00abff\""), std::string::npos);
  EXPECT_NE(first->find(R"("debug_handle_map":{"key_type":"string","entries":{"fused":[1,2]}})"),
            std::string::npos);
}

TEST(GraphJsonTest, RejectsMalformedJson) {
  EXPECT_THAT(graph_from_json("{\"version\": 1,"),
              ErrorIs(Error::kCorruptData, {"malformed JSON"}));
  EXPECT_THAT(graph_from_json("[]"), ErrorIs(Error::kCorruptData, {"expected an object"}));
}

TEST(GraphJsonTest, RejectsEveryTruncation) {
  StatusOr<std::string> json = graph_to_json(sample(), {.include_constant_data = true});
  ASSERT_THAT(json, IsOk());
  for (size_t size = 0; size < json->size(); ++size) {
    EXPECT_THAT(graph_from_json(std::string_view(*json).substr(0, size)),
                ErrorIs(Error::kCorruptData))
        << size;
  }
}

TEST(GraphJsonTest, RejectsOtherVersions) {
  StatusOr<std::string> json = graph_to_json(sample());
  ASSERT_THAT(json, IsOk());
  std::string v2 = *json;
  v2.replace(v2.find("\"version\":1"), std::string("\"version\":1").size(), "\"version\":2");
  EXPECT_THAT(graph_from_json(v2), ErrorIs(Error::kVersionMismatch, {"version 2"}));
  EXPECT_THAT(graph_from_json(R"({"values": []})"),
              ErrorIs(Error::kCorruptData, {"version: missing"}));
}

// Replaces the first `from` in `text` by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(GraphJsonTest, NamesTheMissingOrMistypedField) {
  StatusOr<std::string> written = graph_to_json(sample());
  ASSERT_THAT(written, IsOk());
  const std::string& json = *written;
  EXPECT_THAT(graph_from_json(replaced(json, "\"op\":\"conv2d\",", "")),
              ErrorIs(Error::kCorruptData, {"nodes[0].op: missing"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"inputs\":[0,1]", "\"inputs\":[0,\"w\"]")),
              ErrorIs(Error::kCorruptData, {"nodes[0].inputs[1]", "expected an integer"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"dtype\":\"FLOAT\"", "\"dtype\":\"FLOAT7\"")),
              ErrorIs(Error::kCorruptData, {"values[0].dtype", "unknown dtype"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"kind\":\"input\"", "\"kind\":\"wire\"")),
              ErrorIs(Error::kCorruptData, {"values[0].kind"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"00abff\"", "\"0g\"")),
              ErrorIs(Error::kCorruptData, {"processed_bytes"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"key_type\":\"string\"", "\"key_type\":\"int\"")),
              ErrorIs(Error::kCorruptData, {"entries[\"fused\"]", "canonical decimal int"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"axis\":-1", "\"axis\":{}")),
              ErrorIs(Error::kCorruptData, {"attributes.axis"}));
  EXPECT_THAT(graph_from_json(replaced(json, "\"debug_handle\":1", "\"debug_handle\":-1")),
              ErrorIs(Error::kCorruptData, {"nodes[0].debug_handle", "out of range"}));
}

TEST(GraphJsonTest, VerifiesTheParsedGraph) {
  StatusOr<std::string> json = graph_to_json(sample());
  ASSERT_THAT(json, IsOk());
  EXPECT_THAT(graph_from_json(replaced(*json, "\"op\":\"conv2d\"", "\"op\":\"conv4d\"")),
              ErrorIs(Error::kInvalidArgument, {"graph JSON", "'conv2d' (conv4d)", "unknown op"}));
}

TEST(GraphJsonTest, RejectsNonFiniteFloats) {
  Graph graph = sample();
  graph.nodes[0].attributes["bad"] = std::numeric_limits<double>::infinity();
  EXPECT_THAT(graph_to_json(graph), ErrorIs(Error::kInvalidArgument, {"'bad'", "non-finite"}));
  graph = sample();
  graph.values[1].data[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THAT(graph_to_json(graph), IsOk());  // Data is not written by default.
  EXPECT_THAT(graph_to_json(graph, {.include_constant_data = true}),
              ErrorIs(Error::kInvalidArgument, {"'w'", "non-finite"}));
}

}  // namespace
}  // namespace glassbox::aot
