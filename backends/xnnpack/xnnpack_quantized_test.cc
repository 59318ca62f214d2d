// Format 1.6: QDQ graphs lowered to XNNPACK run as int8 operators.
//
// Per op: a tiny QDQ graph (input quantize, dequantize, the float op with
// int8 weights behind dequantizes, output quantize, dequantize) exported
// twice, on the portable kernels (which run it in float between the
// quantize / dequantize kernels) and through the XNNPACK partitioner (one
// int8 operator per group, xnnpack_int8_report); both run on the same
// random inputs. The delegate must be one, take every node in int8, log one
// event per group mapped to the group's handles and int8 (kChar / kByte)
// intermediate outputs, and agree with the portable run within kMaxSteps
// output quantization steps.
//
// kMaxSteps = 1: a step can flip where XNNPACK sums in int32 and
// requantizes once (fp32 multiplier, round half to even) while the
// portable kernels sum in float and quantize, or where XNNPACK's add and
// multiply requantize in fixed point; every case here is in fact exact
// (0 steps) but conv, add and mul may legitimately differ by one.
// The testdata QDQ models (testdata/onnx/quant) are each one delegate and
// within kMaxSteps of their portable run too.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "backends/xnnpack/testing/xnnpack_test_runner.h"
#include "frontends/onnx/importer.h"
#include "glassbox/aot/ops.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::ValueId;
using Ints = std::vector<std::int64_t>;

constexpr double kMaxSteps = 1.0;

// A QDQ graph under construction: values and nodes appended in order,
// output types from the op table.
class QdqGraph {
 public:
  ValueId input(Ints shape) {
    ValueId x = add("x" + std::to_string(graph_.inputs.size()), ScalarType::kFloat,
                    std::move(shape), aot::ValueKind::kInput);
    graph_.inputs.push_back(x);
    return x;
  }
  ValueId floats(Ints shape, std::vector<float> data) {
    ValueId c = add("c", ScalarType::kFloat, std::move(shape), aot::ValueKind::kConstant);
    graph_.values.back().data = std::move(data);
    return c;
  }
  ValueId ints(ScalarType dtype, Ints shape, std::vector<std::int64_t> data) {
    ValueId c = add("i", dtype, std::move(shape), aot::ValueKind::kConstant);
    graph_.values.back().int_data = std::move(data);
    return c;
  }
  ValueId op(std::string_view name, std::vector<ValueId> in, aot::AttributeMap attrs = {}) {
    std::vector<aot::TensorType> types;
    for (ValueId v : in) {
      const aot::Value& value = *graph_.find_value(v);
      types.push_back({value.dtype, value.shape});
    }
    StatusOr<aot::TensorType> type = aot::infer_output_type(name, types, attrs);
    if (!type.ok()) {
      ADD_FAILURE() << name << ": " << type.message();
      return in[0];
    }
    ValueId out = add(std::string(name), type->dtype, type->shape, aot::ValueKind::kNodeOutput);
    aot::Node n;
    n.name = std::string(name) + std::to_string(graph_.nodes.size());
    n.op = std::string(name);
    n.inputs = std::move(in);
    n.outputs = {out};
    n.attributes = std::move(attrs);
    n.debug_handle = DebugHandle(static_cast<std::uint32_t>(graph_.nodes.size() + 1));
    graph_.nodes.push_back(std::move(n));
    return out;
  }
  // quantize_linear then dequantize_linear with one scale and zero point.
  ValueId qdq(ValueId x, float scale, std::int64_t zero_point,
              ScalarType type = ScalarType::kChar) {
    const ValueId s = floats({}, {scale});
    const ValueId z = ints(type, {}, {zero_point});
    return op(aot::op::kDequantizeLinear, {op(aot::op::kQuantizeLinear, {x, s, z}), s, z});
  }
  // Symmetric int8 weights of `shape`, per channel along `axis` (scale per
  // channel, or one when `per_tensor`), behind a dequantize.
  ValueId weights(Ints shape, std::int64_t axis, bool per_tensor = false) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    std::vector<std::int64_t> q(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < q.size(); ++i)
      q[i] = static_cast<std::int64_t>((i * 37) % 255) - 127;
    const std::int64_t channels = per_tensor ? 1 : shape[static_cast<std::size_t>(axis)];
    std::vector<float> scales;
    for (std::int64_t c = 0; c < channels; ++c) scales.push_back(0.002f + 0.0005f * float(c));
    const ValueId w = ints(ScalarType::kChar, shape, q);
    const ValueId s = floats(per_tensor ? Ints{} : Ints{channels}, scales);
    const ValueId z = ints(ScalarType::kChar, per_tensor ? Ints{} : Ints{channels},
                           std::vector<std::int64_t>(static_cast<std::size_t>(channels), 0));
    return op(aot::op::kDequantizeLinear, {w, s, z}, {{"axis", axis}});
  }
  // An int32 bias at scale x_scale * w_scale (the weights' scales above).
  ValueId bias(std::int64_t channels, float x_scale) {
    std::vector<std::int64_t> q;
    std::vector<float> scales;
    for (std::int64_t c = 0; c < channels; ++c) {
      q.push_back(c * 301 - 500);
      scales.push_back(x_scale * (0.002f + 0.0005f * float(c)));
    }
    const ValueId b = ints(ScalarType::kInt, {channels}, q);
    return op(aot::op::kDequantizeLinear, {b, floats({channels}, scales)}, {{"axis", 0}});
  }
  aot::Graph build(ValueId out) {
    graph_.outputs = {out};
    aot::group_quantization_nodes(&graph_);
    return graph_;
  }

 private:
  ValueId add(std::string name, ScalarType dtype, Ints shape, aot::ValueKind kind) {
    aot::Value v;
    v.id = ValueId(static_cast<std::int32_t>(graph_.values.size()));
    v.name = std::move(name) + std::to_string(graph_.values.size());
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.kind = kind;
    graph_.values.push_back(std::move(v));
    return graph_.values.back().id;
  }
  aot::Graph graph_;
};

constexpr float kInScale = 2.0f / 255;  // random inputs are in [-1, 1)
constexpr float kOutScale = 0.05f;

aot::AttributeMap conv_attrs(std::int64_t groups = 1, Ints padding = {1, 1}, Ints stride = {1, 1}) {
  return {{"stride", std::move(stride)},
          {"padding", std::move(padding)},
          {"dilation", Ints{1, 1}},
          {"groups", groups}};
}

aot::AttributeMap pool_attrs(Ints kernel, Ints stride, Ints padding, bool average = false) {
  aot::AttributeMap attrs = {{"kernel", std::move(kernel)},
                             {"stride", std::move(stride)},
                             {"padding", std::move(padding)}};
  if (average) attrs["count_include_pad"] = std::int64_t{0};
  return attrs;
}

struct QCase {
  std::string name;
  std::function<ValueId(QdqGraph&)> build;  // returns the float output
};
void PrintTo(const QCase& c, std::ostream* os) { *os << c.name; }

// x [1, 8, 6, 6] quantized int8 (zero point 3), dequantized.
ValueId image(QdqGraph& g, Ints shape = {1, 8, 6, 6}, ScalarType type = ScalarType::kChar) {
  return g.qdq(g.input(std::move(shape)), kInScale, type == ScalarType::kByte ? 128 : 3, type);
}

std::vector<QCase> cases() {
  namespace op = aot::op;
  return {
      {"conv_per_channel_relu",
       [](QdqGraph& g) {
         ValueId c = g.op(op::kConv2d, {image(g), g.weights({4, 8, 3, 3}, 0), g.bias(4, kInScale)},
                          conv_attrs());
         return g.qdq(g.op(op::kRelu, {c}), kOutScale, -128);
       }},
      // PyTorch's export: conv -> Q -> DQ -> ReLU6 -> Q with the same
      // parameters; the clip fuses into the convolution's range.
      {"conv_then_relu6_quantized_alone",
       [](QdqGraph& g) {
         ValueId c =
             g.qdq(g.op(op::kConv2d,
                        {image(g, {1, 8, 6, 6}, ScalarType::kByte), g.weights({4, 8, 3, 3}, 0)},
                        conv_attrs()),
                   0.04f, 100, ScalarType::kByte);
         return g.qdq(g.op(op::kClamp, {c}, {{"min", 0.0}, {"max", 6.0}}), 0.04f, 100,
                      ScalarType::kByte);
       }},
      {"conv_uint8_stride2_clip",
       [](QdqGraph& g) {
         ValueId c = g.op(op::kConv2d,
                          {image(g, {1, 8, 7, 7}, ScalarType::kByte), g.weights({4, 8, 3, 3}, 0)},
                          conv_attrs(1, {1, 1}, {2, 2}));
         return g.qdq(g.op(op::kClamp, {c}, {{"min", 0.0}, {"max", 1.5}}), kOutScale, 0,
                      ScalarType::kByte);
       }},
      {"conv_depthwise",
       [](QdqGraph& g) {
         return g.qdq(g.op(op::kConv2d, {image(g), g.weights({8, 1, 3, 3}, 0)}, conv_attrs(8)),
                      kOutScale, 5);
       }},
      {"conv_grouped_per_tensor",
       [](QdqGraph& g) {
         return g.qdq(
             g.op(op::kConv2d, {image(g), g.weights({6, 4, 1, 1}, 0, true)}, conv_attrs(2, {0, 0})),
             kOutScale, -7);
       }},
      {"linear_per_channel_bias",
       [](QdqGraph& g) {
         ValueId x = image(g, {2, 16});
         return g.qdq(g.op(op::kLinear, {x, g.weights({10, 16}, 0), g.bias(10, kInScale)}),
                      kOutScale, 2);
       }},
      {"matmul_constant_uint8",
       [](QdqGraph& g) {
         ValueId x = image(g, {3, 16}, ScalarType::kByte);
         return g.qdq(g.op(op::kMatmul, {x, g.weights({16, 5}, 1)}), kOutScale, 100,
                      ScalarType::kByte);
       }},
      {"add_different_scales_relu",
       [](QdqGraph& g) {
         ValueId a = image(g);
         ValueId b = g.qdq(g.input({1, 8, 6, 6}), 0.01f, -20);
         return g.qdq(g.op(op::kRelu, {g.op(op::kAdd, {a, b})}), kOutScale, -128);
       }},
      {"add_uint8_nhwc",
       [](QdqGraph& g) {
         ValueId a =
             g.qdq(g.op(op::kConv2d,
                        {image(g, {1, 8, 6, 6}, ScalarType::kByte), g.weights({8, 8, 1, 1}, 0)},
                        conv_attrs(1, {0, 0})),
                   kOutScale, 120, ScalarType::kByte);
         ValueId b = g.qdq(g.input({1, 8, 6, 6}), 0.011f, 131, ScalarType::kByte);
         return g.qdq(g.op(op::kAdd, {a, b}), 0.07f, 125, ScalarType::kByte);
       }},
      // MobileNet v2's first residual add: its size and uint8 parameters.
      {"add_residual_uint8",
       [](QdqGraph& g) {
         ValueId a = g.qdq(g.input({1, 24, 56, 56}), 0.04377274960279465f, 124, ScalarType::kByte);
         ValueId b = g.qdq(g.input({1, 24, 56, 56}), 0.04496825858950615f, 125, ScalarType::kByte);
         return g.qdq(g.op(op::kAdd, {a, b}), 0.05884980410337448f, 129, ScalarType::kByte);
       }},
      {"mul_broadcast_nhwc",
       [](QdqGraph& g) {
         ValueId c =
             g.qdq(g.op(op::kConv2d, {image(g), g.weights({8, 8, 1, 1}, 0)}, conv_attrs(1, {0, 0})),
                   kOutScale, 0);
         ValueId gate = g.qdq(g.input({1, 8, 1, 1}), kInScale, 0);
         return g.qdq(g.op(op::kMul, {c, gate}), 0.02f, 1);
       }},
      {"max_pool_same_quantization",
       [](QdqGraph& g) {
         return g.qdq(g.op(op::kMaxPool2d, {image(g)}, pool_attrs({2, 2}, {2, 2}, {0, 0})),
                      kInScale, 3);
       }},
      {"avg_pool_padded",
       [](QdqGraph& g) {
         return g.qdq(g.op(op::kAvgPool2d, {image(g)}, pool_attrs({3, 3}, {1, 1}, {1, 1}, true)),
                      0.006f, -2);
       }},
      {"global_avg_pool_flatten",
       [](QdqGraph& g) {
         ValueId p = g.qdq(g.op(op::kGlobalAvgPool2d, {image(g)}), 0.004f, 1);
         return g.qdq(g.op(op::kFlatten, {p},
                           {{"start_dim", std::int64_t{1}}, {"end_dim", std::int64_t{-1}}}),
                      0.004f, 1);
       }},
      {"concat_requantizes",
       [](QdqGraph& g) {
         ValueId c =
             g.qdq(g.op(op::kConv2d, {image(g), g.weights({4, 8, 1, 1}, 0)}, conv_attrs(1, {0, 0})),
                   kOutScale, 0);
         ValueId other = g.qdq(g.input({1, 3, 6, 6}), 0.01f, 9);
         return g.qdq(g.op(op::kConcat, {c, other}, {{"axis", std::int64_t{1}}}), 0.03f, 0);
       }},
      {"sigmoid_table",
       [](QdqGraph& g) { return g.qdq(g.op(op::kSigmoid, {image(g)}), 1.0f / 256, -128); }},
      {"hardswish_table_uint8",
       [](QdqGraph& g) {
         return g.qdq(g.op(op::kHardswish, {image(g, {1, 8, 6, 6}, ScalarType::kByte)}), 0.01f, 40,
                      ScalarType::kByte);
       }},
      {"hardsigmoid_times_x",
       [](QdqGraph& g) {
         ValueId x = image(g);
         ValueId gate = g.qdq(g.op(op::kHardsigmoid, {x}, {{"alpha", 1.0 / 6}, {"beta", 0.5}}),
                              1.0f / 255, -128);
         return g.qdq(g.op(op::kMul, {x, gate}), 0.01f, 0);
       }},
  };
}

// The scale of the dequantize_linear producing the graph's output.
float output_step(const aot::Graph& graph) {
  for (const aot::Node& n : graph.nodes) {
    if (n.outputs[0] == graph.outputs[0] && n.op == aot::op::kDequantizeLinear) {
      return graph.find_value(n.inputs[1])->data[0];
    }
  }
  return 0;
}

// max |a - b| in steps of `step`.
double max_steps(const std::vector<float>& a, const std::vector<float>& b, float step) {
  double worst = a.size() == b.size() ? 0 : INFINITY;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / step);
  }
  return worst;
}

// Exports `graph` both ways, runs both, and checks one delegate, int8
// throughout (`all_int8`: every compute node in an int8 group), the events'
// mapping and kChar / kByte intermediate outputs, and the outputs within
// kMaxSteps. Returns the steps.
double check_against_portable(const aot::Graph& graph, bool all_int8) {
  const std::vector<bool> int8 = xnnpack_int8_report(graph);
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const aot::Node& node = graph.nodes[n];
    EXPECT_EQ(xnnpack_rejection(graph, node), "") << node.name;
    if (all_int8 && node.op != aot::op::kQuantizeLinear && node.op != aot::op::kDequantizeLinear) {
      EXPECT_TRUE(int8[n]) << node.name << " is not run in int8";
    }
  }
  StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = testing::export_graph(graph, false);
  EXPECT_TRUE(delegated.ok()) << delegated.message();
  EXPECT_TRUE(portable.ok()) << portable.message();
  if (!delegated.ok() || !portable.ok()) return INFINITY;
  EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  EXPECT_EQ(delegated->instruction_id_to_num_outs_map().at("forward").size(), 1u);

  std::string error;
  etdump::ETDumpGen tracer;
  tracer.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  const std::vector<float> x = testing::run_once(delegated->buffer(), &tracer, &error);
  EXPECT_TRUE(error.empty()) << error;
  const std::vector<float> p = testing::run_once(portable->buffer(), nullptr, &error);
  EXPECT_TRUE(error.empty()) << error;
  const double steps = max_steps(x, p, output_step(graph));
  EXPECT_LE(steps, kMaxSteps);

  const aot::DebugHandleMap& map =
      *delegated->delegate_map().at("forward").begin()->second.delegate_map;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), "q");
  EXPECT_TRUE(dump.ok()) << dump.message();
  if (!dump.ok()) return steps;
  const backends::testing::LoggedDelegateEvents logged =
      backends::testing::logged_delegate_events(*dump, map);
  EXPECT_EQ(logged.unmapped, 0u) << "events logged with identifiers the map lacks";
  std::set<DebugHandle> source_ops;
  for (const aot::Node& node : graph.nodes) source_ops.insert(node.debug_handle);
  EXPECT_EQ(logged.handles, source_ops);
  return steps;
}

class XnnpackQuantizedOpTest : public ::testing::TestWithParam<QCase> {};

INSTANTIATE_TEST_SUITE_P(Int8, XnnpackQuantizedOpTest, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST_P(XnnpackQuantizedOpTest, OneInt8OperatorWithinOneStepOfPortable) {
  QdqGraph g;
  const ValueId out = GetParam().build(g);
  check_against_portable(g.build(out), true);
}

// The intermediate outputs the delegate logs are the int8 tensors, typed as
// the graph types them (a uint8 slot's bytes flipped back to uint8).
TEST(XnnpackQuantizedTest, LogsInt8IntermediatesWithTheGraphsTypes) {
  QdqGraph g;
  ValueId c =
      g.op(aot::op::kConv2d,
           {image(g, {1, 8, 6, 6}, ScalarType::kByte), g.weights({4, 8, 3, 3}, 0)}, conv_attrs());
  const aot::Graph graph = g.build(g.qdq(c, kOutScale, 7, ScalarType::kByte));
  StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(graph, true);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  etdump::ETDumpGen tracer;
  tracer.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  std::string error;
  (void)testing::run_once(delegated->buffer(), &tracer, &error);
  ASSERT_TRUE(error.empty()) << error;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), "q");
  ASSERT_TRUE(dump.ok()) << dump.message();
  std::multiset<ScalarType> types;  // of the delegate's logged outputs
  for (const etdump::RunData& run : dump->runs) {
    for (const etdump::Event& event : run.events) {
      const etdump::DebugEvent* debug = event.debug();
      if (debug == nullptr || !debug->value.tensor || debug->delegate_debug_id_int.value < 0) {
        continue;
      }
      types.insert(debug->value.tensor->known_scalar_type().value_or(ScalarType::kBool));
    }
  }
  // The input's quantize, the conv and the layout conversions: uint8; the
  // output's dequantize (after the int8 conversion back to NCHW): float.
  EXPECT_GE(types.count(ScalarType::kByte), 2u);
  EXPECT_EQ(types.count(ScalarType::kFloat), 1u);
  EXPECT_EQ(types.count(ScalarType::kChar), 0u);
}

// A group that cannot run in int8 (max pool requantizing its output) runs in
// float inside the same delegate: convert, float op, quantize.
TEST(XnnpackQuantizedTest, GroupWithoutInt8PathStaysFloatInTheDelegate) {
  QdqGraph g;
  ValueId p = g.op(aot::op::kMaxPool2d, {image(g)}, pool_attrs({2, 2}, {2, 2}, {0, 0}));
  const aot::Graph graph = g.build(g.qdq(p, 0.02f, 0));
  const std::vector<bool> int8 = xnnpack_int8_report(graph);
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].op == aot::op::kMaxPool2d) {
      EXPECT_FALSE(int8[n]);
    }
  }
  EXPECT_LE(check_against_portable(graph, false), kMaxSteps);
}

// `graph` exported both ways (with `delegates` delegates; 0: any number)
// gives float outputs within 1e-4 of each other (as xnnpack_ops_test.cc).
void expect_float_outputs_match(const aot::Graph& graph, std::size_t delegates) {
  StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = testing::export_graph(graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();
  if (delegates != 0) {
    EXPECT_EQ(delegated->delegate_map().at("forward").size(), delegates);
  }
  std::string error;
  const std::vector<float> x = testing::run_once(delegated->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<float> p = testing::run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LT(testing::max_relative_error(x, p), 1e-4);
}

// Float ops whose weights are dequantized constants (ConvInteger's import,
// an unquantized output) run in float on the weights dequantized at
// export, and equal the portable kernels (float sums: 1e-4, as
// xnnpack_ops_test.cc).
TEST(XnnpackQuantizedTest, FloatOpsReadDequantizedWeights) {
  QdqGraph g;
  ValueId c = g.op(aot::op::kConv2d, {image(g), g.weights({4, 8, 3, 3}, 0)}, conv_attrs());
  ValueId t = g.op(aot::op::kConvTranspose2d, {c, g.weights({4, 2, 2, 2}, 0)},
                   {{"stride", Ints{2, 2}},
                    {"padding", Ints{0, 0}},
                    {"output_padding", Ints{0, 0}},
                    {"dilation", Ints{1, 1}},
                    {"groups", std::int64_t{1}}});
  const aot::Graph graph = g.build(t);
  for (const aot::Node& node : graph.nodes) EXPECT_EQ(xnnpack_rejection(graph, node), "");
  expect_float_outputs_match(graph, 1);
}

// The bytes of output 0 of `bytes` run once on input `x`, and its dtype.
std::vector<std::uint8_t> run_raw(const std::vector<std::uint8_t>& bytes,
                                  const std::vector<float>& x, ScalarType* dtype) {
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  EXPECT_TRUE(program.ok()) << diag.message;
  if (!program.ok()) return {};
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, nullptr, &diag);
  EXPECT_TRUE(method.ok()) << diag.message;
  if (!method.ok()) return {};
  EXPECT_EQ(method->set_input(0, x.data(), x.size() * sizeof(float)), Error::kOk);
  EXPECT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  const runtime::Tensor& y = method->output(0);
  *dtype = y.dtype;
  const auto* data = static_cast<const std::uint8_t*>(y.data);
  return std::vector<std::uint8_t>(data, data + y.nbytes);
}

// A delegate whose output is the int8 tensor itself (a quantize_linear the
// graph returns): prepare accepts the call's uint8 / int8 output, and the
// bytes (uint8 flipped back from the int8 slot) equal the portable run's.
TEST(XnnpackQuantizedTest, Int8OutputsLeaveTheDelegateAsTheGraphTypesThem) {
  for (const ScalarType type : {ScalarType::kByte, ScalarType::kChar}) {
    QdqGraph g;
    ValueId c = g.op(aot::op::kConv2d, {image(g, {1, 8, 6, 6}, type), g.weights({4, 8, 3, 3}, 0)},
                     conv_attrs());
    const ValueId s = g.floats({}, {kOutScale});
    const ValueId z = g.ints(type, {}, {type == ScalarType::kByte ? 131 : -5});
    const aot::Graph graph = g.build(g.op(aot::op::kQuantizeLinear, {c, s, z}));
    StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(graph, true);
    StatusOr<exporter::ExecutorchProgramManager> portable = testing::export_graph(graph, false);
    ASSERT_TRUE(delegated.ok()) << delegated.message();
    ASSERT_TRUE(portable.ok()) << portable.message();
    EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
    ASSERT_EQ(register_xnnpack_backend_runtime(), Error::kOk);
    const std::vector<float> x = testing::random_values(8 * 6 * 6, 5);
    ScalarType xd = ScalarType::kFloat, pd = ScalarType::kFloat;
    const std::vector<std::uint8_t> xb = run_raw(delegated->buffer(), x, &xd);
    const std::vector<std::uint8_t> pb = run_raw(portable->buffer(), x, &pd);
    EXPECT_EQ(xd, type);
    EXPECT_EQ(pd, type);
    ASSERT_EQ(xb.size(), 4u * 6 * 6);
    int worst = 0;
    for (std::size_t i = 0; i < xb.size(); ++i) {
      const int a = type == ScalarType::kByte ? xb[i] : static_cast<std::int8_t>(xb[i]);
      const int b = type == ScalarType::kByte ? pb[i] : static_cast<std::int8_t>(pb[i]);
      worst = std::max(worst, std::abs(a - b));
    }
    EXPECT_LE(worst, kMaxSteps);
  }
}

// The testdata QDQ models (README.md there): each is one delegate, within
// kMaxSteps of its own portable run (all are in fact exact: 0 steps).
class XnnpackQdqModelTest : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Testdata, XnnpackQdqModelTest,
                         ::testing::Values("qdq_conv_relu", "qdq_cnn_small", "qdq_opset10",
                                           "qdq_opset21", "qoperator_small"),
                         [](const auto& param_info) { return std::string(param_info.param); });

TEST_P(XnnpackQdqModelTest, OneDelegateWithinOneStepOfPortable) {
  StatusOr<aot::Graph> graph = frontends::onnx::import_onnx(std::string(GLASSBOX_TESTDATA_DIR) +
                                                            "/onnx/quant/" + GetParam() + ".onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  const double steps = check_against_portable(*graph, false);
  RecordProperty("max_steps", std::to_string(steps));
}

// Integer-op imports (ConvInteger, MatMulInteger, DynamicQuantizeLinear)
// keep casts and run-time scales on the portable kernels: several
// delegates, int8 tensors crossing their borders (copied in and out as
// the graph types them). Their outputs are float ops' (a Mul by the
// scale), equal to the portable run (1e-4, as xnnpack_ops_test.cc; the
// integer sums are exact).
class XnnpackIntegerModelTest : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Testdata, XnnpackIntegerModelTest,
                         ::testing::Values("qinteger_small", "dyn_quant_linear"),
                         [](const auto& param_info) { return std::string(param_info.param); });

TEST_P(XnnpackIntegerModelTest, MatchesPortable) {
  StatusOr<aot::Graph> graph = frontends::onnx::import_onnx(std::string(GLASSBOX_TESTDATA_DIR) +
                                                            "/onnx/quant/" + GetParam() + ".onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  expect_float_outputs_match(*graph, 0);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
