// The quantization ops' type rules, narrow integer constants, and the
// grouping of quantization nodes under the float op they serve.

#include "glassbox/aot/quantization.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "glassbox/aot/ops.h"
#include "src/testing/status_matchers.h"

namespace glassbox::aot {
namespace {

using ::glassbox::testing::ErrorIs;
using Shape = std::vector<std::int64_t>;

TensorType t(ScalarType dtype, Shape shape) { return TensorType{dtype, std::move(shape)}; }

TEST(QuantizationOpsTest, QuantizeTakesItsTypeFromTheZeroPoint) {
  const TensorType in[] = {t(ScalarType::kFloat, {1, 3, 4, 4}), t(ScalarType::kFloat, {}),
                           t(ScalarType::kByte, {})};
  StatusOr<TensorType> out = infer_output_type(op::kQuantizeLinear, in, {{"axis", 1}});
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(*out, t(ScalarType::kByte, {1, 3, 4, 4}));
}

TEST(QuantizationOpsTest, DequantizePerAxisGivesFloat) {
  const TensorType in[] = {t(ScalarType::kChar, {8, 3, 3, 3}), t(ScalarType::kFloat, {8}),
                           t(ScalarType::kChar, {8})};
  StatusOr<TensorType> out = infer_output_type(op::kDequantizeLinear, in, {{"axis", 0}});
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(*out, t(ScalarType::kFloat, {8, 3, 3, 3}));
  // int32 (a bias) without a zero point.
  const TensorType bias[] = {t(ScalarType::kInt, {8}), t(ScalarType::kFloat, {8})};
  EXPECT_TRUE(infer_output_type(op::kDequantizeLinear, bias, {{"axis", 0}}).ok());
}

TEST(QuantizationOpsTest, MismatchesAreRefused) {
  const TensorType wrong_axis[] = {t(ScalarType::kChar, {8, 3}), t(ScalarType::kFloat, {3}),
                                   t(ScalarType::kChar, {3})};
  EXPECT_THAT(infer_output_type(op::kDequantizeLinear, wrong_axis, {{"axis", 0}}),
              ErrorIs(Error::kInvalidArgument, {"3 scales for axis 0 of size 8"}));
  const TensorType zp_type[] = {t(ScalarType::kChar, {8}), t(ScalarType::kFloat, {}),
                                t(ScalarType::kByte, {})};
  EXPECT_THAT(infer_output_type(op::kDequantizeLinear, zp_type, {}),
              ErrorIs(Error::kInvalidArgument, {"zero point has dtype BYTE"}));
  const TensorType long_zp[] = {t(ScalarType::kFloat, {8}), t(ScalarType::kFloat, {}),
                                t(ScalarType::kLong, {})};
  EXPECT_THAT(infer_output_type(op::kQuantizeLinear, long_zp, {}),
              ErrorIs(Error::kInvalidArgument, {"CHAR (int8) or BYTE (uint8)"}));
  const TensorType int8_into_conv[] = {t(ScalarType::kChar, {1, 1, 2, 2}),
                                       t(ScalarType::kFloat, {1, 1, 1, 1})};
  EXPECT_THAT(infer_output_type(op::kConv2d, int8_into_conv,
                                {{"stride", Shape{1, 1}},
                                 {"padding", Shape{0, 0}},
                                 {"dilation", Shape{1, 1}},
                                 {"groups", std::int64_t{1}}}),
              ErrorIs(Error::kInvalidArgument, {"dequantize it first"}));
}

TEST(QuantizationOpsTest, NarrowConstantsMustHoldTheirTypesValues) {
  Graph g;
  Value c;
  c.id = ValueId(0);
  c.name = "w";
  c.dtype = ScalarType::kChar;
  c.shape = {2};
  c.kind = ValueKind::kConstant;
  c.int_data = {-128, 200};
  g.values.push_back(c);
  EXPECT_THAT(verify(g), ErrorIs(Error::kInvalidArgument, {"CHAR data holds 200"}));
  g.values[0].int_data = {-128, 127};
  EXPECT_TRUE(verify(g).ok());
}

// x -> quantize -> dequantize -> conv2d(w: dequantize of a constant) ->
// quantize -> dequantize -> output.
TEST(QuantizationGroupsTest, QuantizationNodesJoinTheirFloatOp) {
  Graph g;
  auto value = [&](const char* name, ScalarType dtype, ValueKind kind) {
    Value v;
    v.id = ValueId(static_cast<std::int32_t>(g.values.size()));
    v.name = name;
    v.dtype = dtype;
    v.shape = {1};
    v.kind = kind;
    g.values.push_back(v);
    return v.id;
  };
  auto node = [&](const char* name, std::string_view op, std::vector<ValueId> in, ValueId out) {
    Node n;
    n.name = name;
    n.op = std::string(op);
    n.inputs = std::move(in);
    n.outputs = {out};
    n.debug_handle = DebugHandle(static_cast<std::uint32_t>(g.nodes.size() + 1));
    n.module_hierarchy = {{name, "T"}};
    g.nodes.push_back(n);
  };
  const ValueId x = value("x", ScalarType::kFloat, ValueKind::kInput);
  const ValueId s = value("s", ScalarType::kFloat, ValueKind::kConstant);
  const ValueId z = value("z", ScalarType::kChar, ValueKind::kConstant);
  const ValueId w = value("w", ScalarType::kChar, ValueKind::kConstant);
  const ValueId xq = value("xq", ScalarType::kChar, ValueKind::kNodeOutput);
  const ValueId xf = value("xf", ScalarType::kFloat, ValueKind::kNodeOutput);
  const ValueId wf = value("wf", ScalarType::kFloat, ValueKind::kNodeOutput);
  const ValueId c = value("c", ScalarType::kFloat, ValueKind::kNodeOutput);
  const ValueId cq = value("cq", ScalarType::kChar, ValueKind::kNodeOutput);
  const ValueId y = value("y", ScalarType::kFloat, ValueKind::kNodeOutput);
  node("q_in", op::kQuantizeLinear, {x, s, z}, xq);
  node("dq_in", op::kDequantizeLinear, {xq, s, z}, xf);
  node("dq_w", op::kDequantizeLinear, {w, s, z}, wf);
  node("conv", op::kConv2d, {xf, wf}, c);
  node("q_out", op::kQuantizeLinear, {c, s, z}, cq);
  node("dq_out", op::kDequantizeLinear, {cq, s, z}, y);
  group_quantization_nodes(&g);
  auto handle = [&](std::size_t i) { return g.nodes[i].debug_handle.value; };
  EXPECT_EQ(handle(0), 1u);  // The input's quantize: its own.
  EXPECT_EQ(handle(1), 1u);  // Its dequantize follows it.
  EXPECT_EQ(handle(2), 4u);  // The weight's dequantize: the conv's.
  EXPECT_EQ(handle(3), 4u);
  EXPECT_EQ(handle(4), 4u);  // The conv output's quantize and dequantize.
  EXPECT_EQ(handle(5), 4u);
  EXPECT_EQ(g.nodes[5].module_hierarchy, g.nodes[3].module_hierarchy);
}

// A fused ConvReLU: the quantized relu carries the conv's handle, the
// float twin's two ops have handles of their own.
TEST(AlignFloatTwinTest, PairsKeepEveryFloatOpOfAFusedGroup) {
  auto node = [](const char* name, const char* op, std::uint32_t handle) {
    Node n;
    n.name = name;
    n.op = op;
    n.debug_handle = DebugHandle(handle);
    return n;
  };
  Graph quantized;
  quantized.nodes = {node("q", "quantize_linear", 1), node("conv", "conv2d", 2),
                     node("relu", "relu", 2), node("q_out", "quantize_linear", 2)};
  Graph float_model;
  float_model.nodes = {node("f_conv", "conv2d", 10), node("f_relu", "relu", 11)};
  StatusOr<std::vector<std::pair<DebugHandle, DebugHandle>>> pairs =
      align_float_twin_pairs(quantized, float_model);
  ASSERT_TRUE(pairs.ok()) << pairs.message();
  EXPECT_EQ(*pairs, (std::vector<std::pair<DebugHandle, DebugHandle>>{
                        {DebugHandle(2), DebugHandle(10)}, {DebugHandle(2), DebugHandle(11)}}));
  // align_float_twin keeps the group's last float op.
  StatusOr<std::map<DebugHandle, DebugHandle>> last = align_float_twin(quantized, float_model);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, (std::map<DebugHandle, DebugHandle>{{DebugHandle(2), DebugHandle(11)}}));
  float_model.nodes[1].op = "sigmoid";
  EXPECT_THAT(align_float_twin_pairs(quantized, float_model),
              ErrorIs(Error::kInvalidArgument, {"at operator 1", "'relu' (relu)"}));
}

}  // namespace
}  // namespace glassbox::aot
