#include "backends/demo/aot/demo_backend.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/demo/aot/demo_model.h"
#include "backends/demo/aot/demo_program.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/ops.h"
#include "glassbox/aot/to_backend.h"
#include "src/testing/status_matchers.h"

namespace glassbox::backends::demo {
namespace {

using ::glassbox::testing::ErrorIs;

using ::glassbox::testing::IsOk;

using aot::DebugHandleMap;
using aot::DelegateDebugIdentifier;
using aot::Graph;

// The demo model's handles: conv1, relu1, conv2, relu2, tan.
constexpr DebugHandle kConv1(1), kRelu1(2), kConv2(3), kRelu2(4), kTan(5);

Graph model() {
  StatusOr<Graph> graph = build_conv_relu_tan_model();
  EXPECT_THAT(graph, IsOk());
  return graph.ok() ? std::move(graph).value() : Graph{};
}

// Lowers `graph` with the demo backend and returns its single delegate call.
StatusOr<aot::Node> lower(const Graph& graph, const char* identifiers) {
  DemoBackend backend;
  const aot::Partitioner partitioner = make_demo_partitioner(backend);
  std::vector<aot::CompileSpec> specs;
  if (identifiers != nullptr)
    specs.push_back(aot::CompileSpec::from_string(kIdentifiersSpecKey, identifiers));
  GLASSBOX_ASSIGN_OR_RETURN(Graph lowered, aot::to_backend(graph, partitioner, specs));
  if (lowered.nodes.size() != 1 || !lowered.nodes[0].is_delegate_call()) {
    return Status(Error::kInternal, "expected the whole graph in one delegate call");
  }
  return lowered.nodes[0];
}

DemoProgram decode(const aot::Node& call) {
  StatusOr<DemoProgram> program = decode_demo_program(call.delegate->processed_bytes);
  EXPECT_THAT(program, IsOk());
  return program.ok() ? std::move(program).value() : DemoProgram{};
}

TEST(DemoModelTest, MatchesTheSeedModel) {
  const Graph graph = model();
  std::vector<std::string> ops;
  for (const aot::Node& node : graph.nodes) ops.push_back(node.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"conv2d", "relu", "conv2d", "relu", "tan"}));
  EXPECT_EQ(graph.nodes[0].debug_handle, kConv1);
  EXPECT_EQ(graph.nodes[4].debug_handle, kTan);
  const std::vector<aot::ModuleFrame> conv1{{"conv_layer", "SimpleConvNet"},
                                            {"conv_layer.conv1", "Conv2d"}};
  EXPECT_EQ(graph.nodes[0].module_hierarchy, conv1);
  EXPECT_EQ(graph.nodes[3].module_hierarchy.back(), (aot::ModuleFrame{"conv_layer.relu2", "ReLU"}));
  EXPECT_TRUE(graph.nodes[4].module_hierarchy.empty());
  const std::vector<int64_t> kInputShape{4, 3, 64, 64};
  const std::vector<int64_t> kOutputShape{4, 32, 64, 64};
  EXPECT_EQ(graph.find_value(graph.inputs[0])->shape, kInputShape);
  EXPECT_EQ(graph.find_value(graph.outputs[0])->shape, kOutputShape);
}

TEST(DemoModelTest, WeightsDependOnlyOnTheSeed) {
  constexpr uint32_t kOtherSeed = 7;
  const Graph a = model();
  const Graph b = model();
  StatusOr<Graph> c = build_conv_relu_tan_model(kOtherSeed);
  ASSERT_THAT(c, IsOk());
  const aot::Value* weight = a.find_value(a.nodes[0].inputs[1]);
  EXPECT_EQ(weight->data, b.find_value(b.nodes[0].inputs[1])->data);
  EXPECT_NE(weight->data, c->find_value(c->nodes[0].inputs[1])->data);
  // PyTorch's default bound for conv1: 1/sqrt(3 * 3 * 3).
  const float bound = 1.0f / std::sqrt(27.0f);
  for (float w : weight->data) EXPECT_LE(std::abs(w), bound);
}

// The delegate-debugging guide's example: {0: (conv1, relu1), 1: (conv2, relu2), 2..4: (tan)}.
TEST(DemoBackendTest, GeneratedIdentifiersMapFusionAndDecomposition) {
  StatusOr<aot::Node> call = lower(model(), nullptr);
  ASSERT_THAT(call, IsOk());
  const DebugHandleMap expected = {
      {int64_t{0}, {kConv1, kRelu1}}, {int64_t{1}, {kConv2, kRelu2}}, {int64_t{2}, {kTan}},
      {int64_t{3}, {kTan}},           {int64_t{4}, {kTan}},
  };
  EXPECT_EQ(call->delegate->debug_handle_map, expected);
  EXPECT_EQ(call->delegate->backend, kDemoBackendName);
  EXPECT_EQ(call->debug_handle, DebugHandle(kTan.value + 1));
  EXPECT_EQ(lower(model(), "generated")->delegate->debug_handle_map, expected);
}

TEST(DemoBackendTest, ManualIntIdentifiersStartAtOneHundred) {
  StatusOr<aot::Node> call = lower(model(), "int");
  ASSERT_THAT(call, IsOk());
  const int64_t first = kFirstManualIntIdentifier;
  const DebugHandleMap expected = {
      {first, {kConv1, kRelu1}}, {first + 1, {kConv2, kRelu2}}, {first + 2, {kTan}},
      {first + 3, {kTan}},       {first + 4, {kTan}},
  };
  EXPECT_EQ(call->delegate->debug_handle_map, expected);
}

TEST(DemoBackendTest, ManualStringIdentifiersNameTheOps) {
  StatusOr<aot::Node> call = lower(model(), "string");
  ASSERT_THAT(call, IsOk());
  const DebugHandleMap expected = {
      {std::string("conv_relu_1"), {kConv1, kRelu1}},
      {std::string("conv_relu_2"), {kConv2, kRelu2}},
      {std::string("tan.sin"), {kTan}},
      {std::string("tan.cos"), {kTan}},
      {std::string("tan.div"), {kTan}},
  };
  EXPECT_EQ(call->delegate->debug_handle_map, expected);
}

TEST(DemoBackendTest, RejectsAnUnknownIdentifierMode) {
  EXPECT_THAT(lower(model(), "uuid"), ErrorIs(Error::kInvalidArgument));
}

TEST(DemoBackendTest, ProcessedBytesCarryOpsIdentifiersSlotsAndWeights) {
  const Graph graph = model();
  StatusOr<aot::Node> call = lower(graph, "string");
  ASSERT_THAT(call, IsOk());
  const DemoProgram program = decode(*call);
  EXPECT_EQ(program.input_count, 1u);
  ASSERT_EQ(program.ops.size(), 5u);
  const std::vector<DemoOpKind> kinds{DemoOpKind::kConvRelu, DemoOpKind::kConvRelu,
                                      DemoOpKind::kSin, DemoOpKind::kCos, DemoOpKind::kDiv};
  // Slot 0 is the input; op i writes slot 1 + i.
  const std::vector<std::vector<uint32_t>> operands{{0}, {1}, {2}, {2}, {3, 4}};
  for (size_t i = 0; i < program.ops.size(); ++i) {
    EXPECT_EQ(program.ops[i].kind, kinds[i]) << i;
    EXPECT_EQ(program.ops[i].operand_slots, operands[i]) << i;
    // Every identifier in the bytes is a key of the map.
    EXPECT_TRUE(call->delegate->debug_handle_map->contains(program.ops[i].identifier)) << i;
  }
  EXPECT_EQ(program.output_slots, std::vector<uint32_t>{5});
  const DemoConvParams& conv1 = program.ops[0].conv;
  EXPECT_EQ(conv1.weight, graph.find_value(graph.nodes[0].inputs[1])->data);
  EXPECT_EQ(conv1.bias, graph.find_value(graph.nodes[0].inputs[2])->data);
  EXPECT_EQ(conv1.weight_shape, (std::array<int64_t, 4>{16, 3, 3, 3}));
  EXPECT_EQ(conv1.padding, (std::array<int64_t, 2>{1, 1}));
  // Re-encoding what was decoded gives the same bytes.
  EXPECT_EQ(encode_demo_program(program), call->delegate->processed_bytes);
}

// ExecuTorch's conceptual example {a: (1, 2), b: (3,), c: (3,), d: (3,)}, and a
// conv whose output has two users, so it cannot be fused.
TEST(DemoBackendTest, FusesOnlyWhenReluIsTheOnlyUser) {
  aot::GraphBuilder b;
  aot::ValueId x = b.input("x", ScalarType::kFloat, {1, 1, 2, 2});
  aot::ValueId w = b.constant("w", {1, 1, 1, 1}, {2.0f});
  aot::ValueId c = b.conv2d(x, w, std::nullopt);
  b.output(b.tan(b.relu(c)));
  StatusOr<Graph> fused = b.build();
  ASSERT_THAT(fused, IsOk());
  const DebugHandleMap conceptual = {
      {int64_t{0}, {DebugHandle(1), DebugHandle(2)}},
      {int64_t{1}, {DebugHandle(3)}},
      {int64_t{2}, {DebugHandle(3)}},
      {int64_t{3}, {DebugHandle(3)}},
  };
  EXPECT_EQ(lower(*fused, nullptr)->delegate->debug_handle_map, conceptual);

  b.output(c);  // Now the conv output is also a graph output.
  StatusOr<Graph> unfused = b.build();
  ASSERT_THAT(unfused, IsOk());
  StatusOr<aot::Node> call = lower(*unfused, "string");
  ASSERT_THAT(call, IsOk());
  const DebugHandleMap expected = {
      {std::string("conv_1"), {DebugHandle(1)}},  {std::string("relu_1"), {DebugHandle(2)}},
      {std::string("tan.sin"), {DebugHandle(3)}}, {std::string("tan.cos"), {DebugHandle(3)}},
      {std::string("tan.div"), {DebugHandle(3)}},
  };
  EXPECT_EQ(call->delegate->debug_handle_map, expected);
  EXPECT_EQ(decode(*call).output_slots.size(), 2u);
}

TEST(DemoBackendTest, PartitionerSkipsConvWithNonConstantWeights) {
  aot::GraphBuilder b;
  aot::ValueId x = b.input("x", ScalarType::kFloat, {1, 1, 2, 2});
  aot::ValueId w = b.input("w", ScalarType::kFloat, {1, 1, 1, 1});
  b.output(b.relu(b.conv2d(x, w, std::nullopt)));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  DemoBackend backend;
  StatusOr<std::vector<aot::Partition>> partitions =
      make_demo_partitioner(backend).partition(*graph);
  ASSERT_THAT(partitions, IsOk());
  ASSERT_EQ(partitions->size(), 1u);
  EXPECT_EQ((*partitions)[0].node_indices, std::vector<size_t>{1});  // Only the relu.
}

TEST(DemoBackendTest, PreprocessRejectsOpsItCannotRun) {
  aot::GraphBuilder b;
  b.output(b.sigmoid(b.input("x", ScalarType::kFloat, {2})));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  DemoBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(*graph, {});
  EXPECT_THAT(result, ErrorIs(Error::kNotSupported));
  EXPECT_NE(result.message().find("'sigmoid'"), std::string::npos);
}

TEST(DemoBackendTest, RegistersOnceByName) {
  aot::BackendRegistry registry;
  ASSERT_THAT(register_demo_backend(registry), IsOk());
  EXPECT_THAT(register_demo_backend(registry), ErrorIs(Error::kInvalidArgument));
  StatusOr<aot::BackendDetails*> backend = registry.lookup(kDemoBackendName);
  ASSERT_THAT(backend, IsOk());
  EXPECT_EQ((*backend)->name(), kDemoBackendName);
  EXPECT_THAT(registry.lookup("nope"), ErrorIs(Error::kNotFound));
}

TEST(DemoProgramTest, DecodeRejectsDamagedBytes) {
  StatusOr<aot::Node> call = lower(model(), "int");
  ASSERT_THAT(call, IsOk());
  const std::vector<uint8_t>& bytes = call->delegate->processed_bytes;

  std::vector<uint8_t> bad_magic = bytes;
  bad_magic[0] = 'X';
  EXPECT_THAT(decode_demo_program(bad_magic), ErrorIs(Error::kCorruptData));

  std::vector<uint8_t> future = bytes;
  constexpr size_t kVersionOffset = 4;
  future[kVersionOffset] = static_cast<uint8_t>(kDemoFormatVersion + 1);
  EXPECT_THAT(decode_demo_program(future), ErrorIs(Error::kVersionMismatch));

  // Every truncation is caught, never read past.
  for (size_t size : {size_t{0}, size_t{kDemoHeaderSize - 1}, size_t{kDemoHeaderSize + 1},
                      bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_THAT(decode_demo_program(std::span(bytes).first(size)), ErrorIs(Error::kCorruptData))
        << size;
  }
  std::vector<uint8_t> trailing = bytes;
  trailing.push_back(0);
  EXPECT_THAT(decode_demo_program(trailing), ErrorIs(Error::kCorruptData));
}

// A small program (one 1x1 conv) keeps this exhaustive: every single-byte
// change either decodes or is rejected, and never reads out of bounds.
TEST(DemoProgramTest, DecodeSurvivesEveryByteFlip) {
  aot::GraphBuilder b;
  aot::ValueId x = b.input("x", ScalarType::kFloat, {1, 1, 2, 2});
  b.output(b.tan(b.relu(b.conv2d(x, b.constant("w", {1, 1, 1, 1}, {2.0f}), std::nullopt))));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  StatusOr<aot::Node> call = lower(*graph, "string");
  ASSERT_THAT(call, IsOk());
  const std::vector<uint8_t>& bytes = call->delegate->processed_bytes;
  ASSERT_THAT(decode_demo_program(bytes), IsOk());
  constexpr uint8_t kFlips[] = {0x01, 0x80, 0xFF};
  size_t rejected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t flip : kFlips) {
      std::vector<uint8_t> damaged = bytes;
      damaged[i] ^= flip;
      // Flips in weights or identifier text still decode; the sanitizer
      // builds check that nothing is read out of bounds either way.
      if (!decode_demo_program(damaged).ok()) ++rejected;
    }
  }
  // Header, kinds, tags, counts and slots: most flips are caught.
  EXPECT_GT(rejected, bytes.size());
}

}  // namespace
}  // namespace glassbox::backends::demo
