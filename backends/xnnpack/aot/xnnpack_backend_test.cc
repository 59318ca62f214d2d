// The AOT half: which nodes the partitioner takes, what one fused
// operator's identifier maps to, identifier naming, compile-spec checks.

#include "backends/xnnpack/aot/xnnpack_backend.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/aot/graph_builder.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::GraphBuilder;
using aot::ValueId;

std::vector<float> filled(std::size_t n, float v) { return std::vector<float>(n, v); }

// x -> conv -> bn -> relu -> output: one convolution for three nodes.
aot::Graph conv_bn_relu() {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 5, 5});
  ValueId y = b.conv2d(x, b.constant("w", {3, 2, 3, 3}, filled(54, 0.1f)), std::nullopt,
                       {.padding = {1, 1}});
  y = b.batch_norm(y, b.constant("m", {3}, filled(3, 0.f)), b.constant("v", {3}, filled(3, 1.f)),
                   b.constant("g", {3}, filled(3, 1.f)), b.constant("b", {3}, filled(3, 0.f)));
  b.output(b.relu(y));
  return std::move(b.build()).value();
}

TEST(XnnpackBackendTest, FusedOperatorMapsToEverySourceNode) {
  const aot::Graph graph = conv_bn_relu();
  XnnpackBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(graph, {});
  ASSERT_TRUE(result.ok()) << result.message();
  ASSERT_TRUE(result->debug_handle_map.has_value());
  const aot::DebugHandleMap& map = *result->debug_handle_map;
  // to_nhwc (input), conv+bn+relu, to_nchw (output): generated ids 0, 1, 2.
  ASSERT_EQ(map.size(), 3u);
  const std::vector<DebugHandle> all = {graph.nodes[0].debug_handle, graph.nodes[1].debug_handle,
                                        graph.nodes[2].debug_handle};
  EXPECT_EQ(map.at(std::int64_t{1}), all);
  EXPECT_EQ(map.at(std::int64_t{0}), all)
      << "the input conversion is charged to the fused operator that needed it";
  EXPECT_EQ(map.at(std::int64_t{2}), all) << "the output conversion, to the fused producer";
}

// x -> matmul -> add bias -> relu: one fully connected operator for the
// three nodes, the bias add's constant becoming its bias.
TEST(XnnpackBackendTest, BiasAddFusesIntoFullyConnected) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 4});
  ValueId y = b.matmul(x, b.constant("w", {4, 5}, filled(20, 0.1f)));
  b.output(b.relu(b.add(y, b.constant("bias", {1, 1, 5}, filled(5, 0.5f)))));
  const aot::Graph graph = std::move(b.build()).value();
  for (const aot::Node& node : graph.nodes) EXPECT_TRUE(xnnpack_supports(graph, node)) << node.op;
  XnnpackBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(graph, {});
  ASSERT_TRUE(result.ok()) << result.message();
  const aot::DebugHandleMap& map = *result->debug_handle_map;
  ASSERT_EQ(map.size(), 1u);
  EXPECT_EQ(map.at(std::int64_t{0}),
            (std::vector<DebugHandle>{graph.nodes[0].debug_handle, graph.nodes[1].debug_handle,
                                      graph.nodes[2].debug_handle}));
}

// hardsigmoid: a multiply by alpha and an add of beta clamped to [0, 1],
// one identifier for both, mapped to the hardsigmoid alone.
TEST(XnnpackBackendTest, HardsigmoidIsTwoOperatorsUnderOneIdentifier) {
  GraphBuilder b;
  b.output(b.hardsigmoid(b.input("x", ScalarType::kFloat, {2, 5}), 1.0 / 6.0, 0.5));
  const aot::Graph graph = std::move(b.build()).value();
  XnnpackBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(graph, {});
  ASSERT_TRUE(result.ok()) << result.message();
  const aot::DebugHandleMap& map = *result->debug_handle_map;
  ASSERT_EQ(map.size(), 1u);
  EXPECT_EQ(map.at(std::int64_t{0}), std::vector<DebugHandle>{graph.nodes[0].debug_handle});
  runtime::MemoryAllocator memory;
  const std::vector<std::uint8_t>& blob = result->processed_bytes;
  Result<ParsedProgram*> program =
      parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  const ParsedProgram& p = **program;
  ASSERT_EQ(p.num_ops, 2u);
  EXPECT_EQ(p.num_constants, 2u) << "alpha and beta";
  EXPECT_EQ(p.ops[0].kind, XnnOpKind::kMultiply);
  EXPECT_EQ(p.ops[1].kind, XnnOpKind::kAdd);
  EXPECT_EQ(p.ops[1].output_min, 0.f);
  EXPECT_EQ(p.ops[1].output_max, 1.f);
  EXPECT_EQ(p.ops[0].int_id.value, 0);
  EXPECT_EQ(p.ops[1].int_id.value, 0);
}

TEST(XnnpackBackendTest, StringIdentifiersJoinNodeNames) {
  const aot::Graph graph = conv_bn_relu();
  XnnpackBackend backend;
  const aot::CompileSpec spec = aot::CompileSpec::from_string(kIdentifiersSpecKey, "string");
  StatusOr<aot::PreprocessResult> result = backend.preprocess(graph, {&spec, 1});
  ASSERT_TRUE(result.ok()) << result.message();
  std::set<std::string> names;
  for (const auto& [id, handles] : *result->debug_handle_map)
    names.insert(std::get<std::string>(id));
  const std::string fused =
      graph.nodes[0].name + "+" + graph.nodes[1].name + "+" + graph.nodes[2].name;
  EXPECT_TRUE(names.contains(fused)) << fused;
  EXPECT_TRUE(names.contains("x.to_nhwc"));
}

TEST(XnnpackBackendTest, BadCompileSpecsFailAtExport) {
  const aot::Graph graph = conv_bn_relu();
  XnnpackBackend backend;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"identifiers", "names"},
                                                        {"threads", "0"},
                                                        {"threads", "two"},
                                                        {"profiling", "often"}}) {
    const aot::CompileSpec spec = aot::CompileSpec::from_string(key, value);
    EXPECT_EQ(backend.preprocess(graph, {&spec, 1}).error(), Error::kInvalidArgument)
        << key << "=" << value;
  }
}

TEST(XnnpackPartitionerTest, LeavesUnsupportedNodesOnPortable) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 6, 6});
  const ValueId t = b.tan(x);                                                // no XNNPACK op
  const ValueId p = b.avg_pool2d(x, {.kernel = {3, 3}, .padding = {1, 1}});  // counts padding
  const ValueId s = b.softmax(x, 1);                                         // not the last axis
  const ValueId a = b.add(b.constant("c", {2, 6, 6}, filled(72, 1.f)),
                          b.constant("d", {1}, filled(1, 1.f)));  // constants only
  const ValueId bn =
      b.batch_norm(x, b.constant("m", {2}, filled(2, 0.f)), b.constant("v", {2}, filled(2, 1.f)),
                   b.constant("g", {2}, filled(2, 1.f)),
                   b.constant("bb", {2}, filled(2, 0.f)));  // taken: a depthwise 1x1 conv
  const ValueId one = b.avg_pool2d(  // XNNPACK refuses 1x1; a strided one is no copy
      x, {.kernel = {1, 1}, .stride = std::array<std::int64_t, 2>{2, 2}});
  const ValueId r = b.relu(b.mul(x, b.constant("k", {2, 1, 1}, filled(2, 2.f))));  // taken
  for (ValueId v : {t, p, s, a, bn, one, r}) b.output(v);
  const aot::Graph graph = std::move(b.build()).value();
  std::vector<std::string> taken;
  for (const aot::Node& node : graph.nodes) {
    if (xnnpack_supports(graph, node)) taken.push_back(node.op);
  }
  EXPECT_EQ(taken, (std::vector<std::string>{"batch_norm", "mul", "relu"}));
}

// The partition report names, per node, why XNNPACK leaves it.
TEST(XnnpackPartitionerTest, ReportSaysWhyEachNodeStaysPortable) {
  GraphBuilder b;
  const ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 6, 6});
  const ValueId m = b.input("m", ScalarType::kFloat, {3, 4});
  const ValueId i = b.input("i", ScalarType::kLong, {3});
  using Attrs = aot::AttributeMap;
  using Ints = std::vector<std::int64_t>;
  const ValueId clip = b.input("clip", ScalarType::kFloat, {1, 2, 3, 4, 4});
  const Attrs conv3d_attrs{{"stride", Ints{1, 1, 1}},
                           {"padding", Ints{0, 0, 0}},
                           {"dilation", Ints{1, 1, 1}},
                           {"groups", std::int64_t{1}}};
  const std::vector<std::pair<ValueId, std::string>> expected = {
      {b.matmul(m, b.reshape(m, {4, 3})), ""},  // format 1.4: batch matmul
      {b.matmul(b.input("m3", ScalarType::kFloat, {2, 3, 4}), b.reshape(m, {4, 3})),
       "activation x activation matmul with broadcast batch dims"},
      {b.op("layer_norm", {m, b.constant("s", {4}, filled(4, 1.f))},
            Attrs{{"axis", std::int64_t{-1}}, {"eps", 1e-5}}),
       ""},
      {b.op("layer_norm", {m, b.constant("s2", {3, 4}, filled(12, 1.f))},
            Attrs{{"axis", std::int64_t{0}}, {"eps", 1e-5}}),
       "layer_norm over more than the last axis"},
      {b.op("erf", {m}, {}), ""},
      {b.add(i, i), "int64 tensor"},
      {b.max_pool2d(
           x, {.kernel = {3, 3}, .stride = std::array<std::int64_t, 2>{2, 2}, .ceil_mode = true}),
       ""},
      {b.avg_pool2d(x, {.kernel = {3, 3}, .padding = {1, 1}, .ceil_mode = true}),
       "average pooling counting the padding"},
      {b.avg_pool2d(x, {.kernel = {1, 1}, .stride = std::array<std::int64_t, 2>{2, 2}}),
       "1x1 pooling window with a stride or padding"},
      {b.max_pool2d(x, {.kernel = {1, 1}}), ""},
      {b.add(m, b.constant("c", {3, 4}, filled(12, 1.f))), ""},
      {b.concat({b.constant("row", {1, 4}, filled(4, 1.f)), m}, 0), ""},
      {b.mul(b.constant("lhs", {1}, {2.f}), b.constant("rhs", {3, 1}, {1.f, 2.f, 3.f})),
       "constant operand"},
      {b.op("resize", {x},
            Attrs{{"sizes", Ints{1, 2, 12, 12}},
                  {"mode", std::string("nearest")},
                  {"coordinate_transformation_mode", std::string("half_pixel")},
                  {"nearest_mode", std::string("floor")}}),
       "nearest resize"},
      {b.op("pad", {x},
            Attrs{{"pads", Ints{0, 0, 1, 1, 0, 0, 1, 1}},
                  {"mode", std::string("reflect")},
                  {"value", 0.0}}),
       "reflect pad mode"},
      {b.op("pow", {m, b.constant("three", {1}, {3.f})}, {}), "pow exponent not a constant 2"},
      {b.op("reduce_mean", {x}, Attrs{{"axes", Ints{1}}, {"keepdims", std::int64_t{1}}}),
       "mean not over the last axis, H, W or D, H, W"},
      // Format 1.8: 5-D (NDHWC inside the delegate).
      {b.op("reduce_mean", {clip}, Attrs{{"axes", Ints{2, 3, 4}}, {"keepdims", std::int64_t{0}}}),
       ""},
      {b.op("reduce_mean", {clip}, Attrs{{"axes", Ints{3, 4}}, {"keepdims", std::int64_t{1}}}),
       "mean not over the last axis, H, W or D, H, W"},
      {b.op("conv3d", {clip, b.constant("w3", {2, 2, 1, 1, 1}, filled(4, 0.5f))}, conv3d_attrs),
       ""},
      {b.op("conv3d", {clip, b.relu(b.constant("w3r", {2, 2, 1, 1, 1}, filled(4, 0.5f)))},
            conv3d_attrs),
       "non-constant weights"},
      {b.batch_norm(b.relu(clip), b.constant("bn.m", {2}, filled(2, 0.f)),
                    b.constant("bn.v", {2}, filled(2, 1.f)),
                    b.constant("bn.g", {2}, filled(2, 1.f)),
                    b.constant("bn.b", {2}, filled(2, 0.f)), 1e-5),
       "batch_norm of a 5-D input other than a conv3d's only reader"},
      {b.op("depth_to_space", {b.concat({x, x}, 1)},
            Attrs{{"blocksize", std::int64_t{2}}, {"mode", std::string("CRD")}}),
       "CRD depth_to_space"},
      {b.op("prelu", {x, b.constant("slope", {2, 1, 6}, filled(12, 0.1f))}, {}),
       "prelu slope not per channel"},
      {b.op("conv_transpose2d", {x, b.constant("wt", {2, 3, 3, 3}, filled(54, 0.1f))},
            Attrs{{"stride", Ints{1, 1}},
                  {"dilation", Ints{2, 2}},
                  {"padding", Ints{0, 0, 0, 0}},
                  {"output_padding", Ints{1, 1}},
                  {"groups", std::int64_t{1}}}),
       "output_padding >= stride"},
      {b.op("slice", {x},
            Attrs{{"starts", Ints{0, 0, 0, 0}},
                  {"steps", Ints{1, 1, 2, 1}},
                  {"shape", Ints{1, 2, 3, 6}}}),
       ""},
      {b.op("slice", {x},
            Attrs{{"starts", Ints{0, 0, 5, 0}},
                  {"steps", Ints{1, 1, -2, 1}},
                  {"shape", Ints{1, 2, 3, 6}}}),
       "slice with a negative step or a dim over 2^24"},
      {b.transpose(x, {0, 2, 1, 3}), ""},
      {b.relu(x), ""},
      {b.op("pow", {m, b.constant("two", {}, {2.f})}, {}), ""},
  };
  for (const auto& [v, why] : expected) b.output(v);
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  const std::vector<std::string> report = xnnpack_partition_report(*graph);
  ASSERT_EQ(report.size(), graph->nodes.size());
  std::map<std::string, std::string> by_output;  // output value name -> reason
  for (std::size_t n = 0; n < graph->nodes.size(); ++n) {
    by_output[graph->find_value(graph->nodes[n].outputs[0])->name] = report[n];
  }
  for (const auto& [v, why] : expected) {
    const std::string& name = graph->find_value(v)->name;
    EXPECT_EQ(by_output[name], why) << name;
  }
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
