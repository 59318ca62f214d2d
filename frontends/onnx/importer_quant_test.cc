// Quantized ONNX models (QDQ and QOperator forms) through import, emission
// and the portable kernels, against the same arithmetic written out here;
// and the one-line errors for bad scales, zero points and int8 tensors
// without a scale.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "frontends/onnx/test_run.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/npy/npy.h"

namespace glassbox::frontends::onnx {
namespace {

using ::onnx::TensorProto;
using testing::ModelWriter;
using Shape = std::vector<std::int64_t>;

// ONNX QuantizeLinear then DequantizeLinear of one value.
double fake_quant(double x, double scale, int zp, int lo, int hi) {
  const double q = std::clamp(std::nearbyint(x / scale) + zp, double(lo), double(hi));
  return (q - zp) * scale;
}

// The graph's float output on one float input.
StatusOr<std::vector<float>> run_float(const aot::Graph& graph, const std::vector<float>& x) {
  GLASSBOX_ASSIGN_OR_RETURN(testing::Output out, testing::run(graph, {testing::bytes_of(x)}));
  if (out.dtype != ScalarType::kFloat) return Status(Error::kInternal, "output not float");
  return std::vector<float>(out.values.begin(), out.values.end());
}

// 32 values uniform in [-2, 2): QdqConv's input.
std::vector<float> conv_input(std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> x(32);
  for (float& v : x) v = dist(gen);
  return x;
}

const aot::Node* node_named(const aot::Graph& g, const std::string& name) {
  for (const aot::Node& n : g.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

// x [1,2,4,4] -> Q(uint8) -> DQ -> Conv(int8 weights per output channel,
// int32 bias) -> Relu -> Q(uint8) -> Cast(uint8) -> DQ -> y: the pattern
// PyTorch's exporter writes for a quantized ConvReLU.
struct QdqConv {
  static constexpr float kXScale = 0.02f;
  static constexpr int kXZp = 128;
  static constexpr float kYScale = 0.03f;
  static constexpr int kYZp = 3;
  std::vector<float> w_scale{0.01f, 0.004f, 0.02f};
  std::vector<std::int64_t> w;  // [3,2,3,3]
  std::vector<std::int64_t> bias{25, -40, 7};

  QdqConv() {
    std::mt19937 gen(7);
    std::uniform_int_distribution<int> dist(-127, 127);
    for (int i = 0; i < 3 * 2 * 3 * 3; ++i) w.push_back(dist(gen));
  }

  ModelWriter model() const {
    ModelWriter m(13);
    m.input("x", {1, 2, 4, 4}).output("y");
    m.floats("x_scale", {}, {kXScale});
    m.typed_ints("x_zp", {}, {kXZp}, TensorProto::UINT8);
    m.floats("w_scale", {3}, w_scale);
    m.typed_ints("w_zp", {3}, {0, 0, 0}, TensorProto::INT8);
    m.typed_ints("w_q", {3, 2, 3, 3}, w, TensorProto::INT8);
    std::vector<float> b_scale;
    for (float s : w_scale) b_scale.push_back(s * kXScale);
    m.floats("b_scale", {3}, b_scale);
    m.typed_ints("b_q", {3}, bias, TensorProto::INT32);
    m.floats("y_scale", {}, {kYScale});
    m.typed_ints("y_zp", {}, {kYZp}, TensorProto::UINT8);
    m.node("QuantizeLinear", "/x_q", {"x", "x_scale", "x_zp"}, {"xq"});
    m.node("DequantizeLinear", "/x_dq", {"xq", "x_scale", "x_zp"}, {"xf"});
    ModelWriter::set_int(
        m.node("DequantizeLinear", "/conv/w_dq", {"w_q", "w_scale", "w_zp"}, {"wf"}), "axis", 0);
    ModelWriter::set_int(m.node("DequantizeLinear", "/conv/b_dq", {"b_q", "b_scale"}, {"bf"}),
                         "axis", 0);
    auto* conv = m.node("Conv", "/conv/Conv", {"xf", "wf", "bf"}, {"c"});
    ModelWriter::set_ints(conv, "pads", {1, 1, 1, 1});
    m.node("Relu", "/relu/Relu", {"c"}, {"r"});
    m.node("QuantizeLinear", "/relu/q", {"r", "y_scale", "y_zp"}, {"rq"});
    ModelWriter::set_int(m.node("Cast", "/relu/cast", {"rq"}, {"rq2"}), "to", TensorProto::UINT8);
    m.node("DequantizeLinear", "/relu/dq", {"rq2", "y_scale", "y_zp"}, {"y"});
    return m;
  }

  // The same arithmetic in double.
  std::vector<double> expected(const std::vector<float>& x) const {
    std::vector<double> xf(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) xf[i] = fake_quant(x[i], kXScale, kXZp, 0, 255);
    std::vector<double> y(3 * 16);
    for (int oc = 0; oc < 3; ++oc) {
      for (int oh = 0; oh < 4; ++oh) {
        for (int ow = 0; ow < 4; ++ow) {
          double acc = double(bias[oc]) * double(w_scale[oc] * kXScale);
          for (int ic = 0; ic < 2; ++ic) {
            for (int kh = 0; kh < 3; ++kh) {
              for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih < 0 || ih >= 4 || iw < 0 || iw >= 4) continue;
                acc += xf[(ic * 4 + ih) * 4 + iw] * double(w[((oc * 2 + ic) * 3 + kh) * 3 + kw]) *
                       double(w_scale[oc]);
              }
            }
          }
          y[(oc * 4 + oh) * 4 + ow] = fake_quant(std::max(acc, 0.0), kYScale, kYZp, 0, 255);
        }
      }
    }
    return y;
  }
};

TEST(ImporterQuantTest, QdqConvReluImportsAsQuantizationOpsAndRunsLikeOnnx) {
  const QdqConv conv;
  StatusOr<aot::Graph> graph = import_onnx_from_memory(conv.model().bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<std::string> ops;
  for (const aot::Node& n : graph->nodes) ops.push_back(n.op);
  // The Cast between the last pair keeps uint8 and disappears.
  EXPECT_EQ(ops, (std::vector<std::string>{"quantize_linear", "dequantize_linear",
                                           "dequantize_linear", "dequantize_linear", "conv2d",
                                           "relu", "quantize_linear", "dequantize_linear"}));
  // Weights stay int8 constants behind their dequantize (not folded).
  const aot::Node* w_dq = node_named(*graph, "/conv/w_dq");
  ASSERT_NE(w_dq, nullptr);
  EXPECT_EQ(graph->find_value(w_dq->inputs[0])->dtype, ScalarType::kChar);
  const aot::Node* b_dq = node_named(*graph, "/conv/b_dq");
  ASSERT_NE(b_dq, nullptr);
  EXPECT_EQ(graph->find_value(b_dq->inputs[0])->dtype, ScalarType::kInt);
  EXPECT_EQ(graph->find_value(node_named(*graph, "/x_q")->outputs[0])->dtype, ScalarType::kByte);

  const std::vector<float> x = conv_input(3);
  StatusOr<std::vector<float>> y = run_float(*graph, x);
  ASSERT_TRUE(y.ok()) << y.message();
  const std::vector<double> want = conv.expected(x);
  ASSERT_EQ(y->size(), want.size());
  int off_by_one = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double steps = std::abs((*y)[i] - want[i]) / QdqConv::kYScale;
    EXPECT_LE(steps, 1.0 + 1e-6) << i;  // A float-vs-double tie may round apart.
    off_by_one += steps > 0.5;
  }
  EXPECT_LE(off_by_one, 1);
}

TEST(ImporterQuantTest, QuantizationNodesTakeTheHandleOfTheOpTheyQuantizeFor) {
  StatusOr<aot::Graph> graph = import_onnx_from_memory(QdqConv().model().bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  auto handle = [&](const char* name) { return node_named(*graph, name)->debug_handle; };
  EXPECT_EQ(handle("/conv/w_dq"), handle("/conv/Conv"));
  EXPECT_EQ(handle("/conv/b_dq"), handle("/conv/Conv"));
  // The Relu before the output's quantize is part of the int8 conv.
  EXPECT_EQ(handle("/relu/Relu"), handle("/conv/Conv"));
  EXPECT_EQ(handle("/relu/q"), handle("/conv/Conv"));
  EXPECT_EQ(handle("/relu/dq"), handle("/conv/Conv"));
  // The model input's quantize has no float op before it: its own row.
  EXPECT_NE(handle("/x_q"), handle("/conv/Conv"));
  EXPECT_EQ(handle("/x_dq"), handle("/x_q"));
  EXPECT_EQ(node_named(*graph, "/conv/w_dq")->module_hierarchy,
            node_named(*graph, "/conv/Conv")->module_hierarchy);
}

// One QuantizeLinear/DequantizeLinear pair with the given scale and zero
// point initializers, for the error cases.
ModelWriter qdq_pair(const std::vector<float>& scale, const std::vector<std::int64_t>& zp,
                     int zp_type, std::int64_t axis = 1) {
  ModelWriter m(13);
  m.input("x", {1, 2, 2, 2}).output("y");
  const Shape shape = scale.size() == 1 ? Shape{} : Shape{static_cast<std::int64_t>(scale.size())};
  m.floats("s", shape, scale);
  m.typed_ints(
      "z",
      zp.size() == 1 && scale.size() == 1 ? Shape{} : Shape{static_cast<std::int64_t>(zp.size())},
      zp, zp_type);
  ModelWriter::set_int(m.node("QuantizeLinear", "/q", {"x", "s", "z"}, {"xq"}), "axis", axis);
  ModelWriter::set_int(m.node("DequantizeLinear", "/dq", {"xq", "s", "z"}, {"y"}), "axis", axis);
  return m;
}

std::string import_error(const ModelWriter& m) {
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  return graph.ok() ? "imported" : graph.message();
}

TEST(ImporterQuantTest, BadScalesAreRefusedNamingTheNode) {
  for (float bad : {0.0f, -0.5f, std::nanf(""), INFINITY}) {
    const std::string e = import_error(qdq_pair({bad}, {0}, TensorProto::INT8));
    EXPECT_NE(e.find("node '/q' (QuantizeLinear)"), std::string::npos) << e;
    EXPECT_NE(e.find("scales must be positive and finite"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(ImporterQuantTest, ZeroPointsOutOfRangeAreRefused) {
  // int32_data holds 300 for a uint8 zero point: a damaged tensor.
  const std::string e = import_error(qdq_pair({0.1f}, {300}, TensorProto::UINT8));
  EXPECT_NE(e.find("outside UINT8's range"), std::string::npos) << e;
  const std::string f = import_error(qdq_pair({0.1f}, {-129}, TensorProto::INT8));
  EXPECT_NE(f.find("outside INT8's range"), std::string::npos) << f;
  const std::string g = import_error(qdq_pair({0.1f}, {0}, TensorProto::INT64));
  EXPECT_NE(g.find("zero point of type LONG is not supported"), std::string::npos) << g;
}

TEST(ImporterQuantTest, PerAxisLengthsMustMatch) {
  // Three scales along an axis of size 2.
  const std::string e = import_error(qdq_pair({0.1f, 0.2f, 0.3f}, {0, 0, 0}, TensorProto::INT8, 1));
  EXPECT_NE(e.find("node '/q' (QuantizeLinear)"), std::string::npos) << e;
  EXPECT_NE(e.find("3 scales for axis 1 of size 2"), std::string::npos) << e;
  // Zero points of another length than the scales.
  const std::string f = import_error(qdq_pair({0.1f, 0.2f}, {0, 0, 0}, TensorProto::INT8, 1));
  EXPECT_NE(f.find("does not match the scale"), std::string::npos) << f;
  // Per axis along axis 3 (size 2) is fine.
  EXPECT_EQ(import_error(qdq_pair({0.1f, 0.2f}, {0, 1}, TensorProto::INT8, 3)), "imported");
}

TEST(ImporterQuantTest, AnInt8TensorWithoutAScaleIsNamed) {
  ModelWriter m(13);
  m.input("x", {1, 2, 4, 4}).output("y");
  m.floats("s", {}, {0.1f});
  m.typed_ints("z", {}, {0}, TensorProto::INT8);
  m.floats("w", {2, 2, 1, 1}, {1, 0, 0, 1});
  m.node("QuantizeLinear", "/q", {"x", "s", "z"}, {"xq"});
  m.node("Conv", "/conv", {"xq", "w"}, {"y"});  // No DequantizeLinear.
  const std::string e = import_error(m);
  EXPECT_NE(e.find("node '/conv' (Conv)"), std::string::npos) << e;
  EXPECT_NE(e.find("has dtype CHAR"), std::string::npos) << e;
  EXPECT_NE(e.find("dequantize it first"), std::string::npos) << e;
}

// QLinearConv is the QDQ pattern in one node: the same numbers.
// Opset 10 too: QLinearConv has taken per-channel weight scales since its
// first version, unlike opset 10's DequantizeLinear.
class QLinearConvTest : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(QLinearConvTest, MatchesItsQdqForm) {
  const QdqConv conv;
  ModelWriter m(GetParam());
  m.input("x", {1, 2, 4, 4}).output("y");
  m.floats("x_scale", {}, {QdqConv::kXScale});
  m.typed_ints("x_zp", {}, {QdqConv::kXZp}, TensorProto::UINT8);
  m.floats("w_scale", {3}, conv.w_scale);
  m.typed_ints("w_zp", {3}, {0, 0, 0}, TensorProto::INT8);
  m.typed_ints("w_q", {3, 2, 3, 3}, conv.w, TensorProto::INT8);
  m.typed_ints("b_q", {3}, conv.bias, TensorProto::INT32);
  m.floats("y_scale", {}, {QdqConv::kYScale});
  m.typed_ints("y_zp", {}, {QdqConv::kYZp}, TensorProto::UINT8);
  m.node("QuantizeLinear", "/x_q", {"x", "x_scale", "x_zp"}, {"xq"});
  auto* qconv =
      m.node("QLinearConv", "/conv",
             {"xq", "x_scale", "x_zp", "w_q", "w_scale", "w_zp", "y_scale", "y_zp", "b_q"}, {"cq"});
  ModelWriter::set_ints(qconv, "pads", {1, 1, 1, 1});
  m.node("DequantizeLinear", "/y_dq", {"cq", "y_scale", "y_zp"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();

  const std::vector<float> x = conv_input(5);
  StatusOr<std::vector<float>> y = run_float(*graph, x);
  ASSERT_TRUE(y.ok()) << y.message();
  // The QDQ form had a Relu; without it the expected values are the same
  // where positive.
  const std::vector<double> want = conv.expected(x);
  int compared = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] <= 0.0 || (*y)[i] <= 0.0f) continue;
    EXPECT_LE(std::abs((*y)[i] - want[i]) / QdqConv::kYScale, 1.0 + 1e-6) << i;
    ++compared;
  }
  EXPECT_GT(compared, 10);
}

INSTANTIATE_TEST_SUITE_P(Opsets, QLinearConvTest, ::testing::Values(10, 13));

// DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul: ONNX Runtime's
// dynamic quantization of a Linear layer.
TEST(ImporterQuantTest, DynamicQuantizedLinearMatchesTheFloatProduct) {
  ModelWriter m(13);
  m.input("x", {2, 4}).output("y");
  const std::vector<std::int64_t> w{10, -20, 30, 40, -50, 60, 70, -80};  // [4, 2]
  const float w_scale = 0.01f;
  m.typed_ints("w", {4, 2}, w, TensorProto::INT8);
  m.typed_ints("w_zp", {}, {0}, TensorProto::INT8);
  m.floats("w_scale", {}, {w_scale});
  m.node("DynamicQuantizeLinear", "/dq", {"x"}, {"xq", "xs", "xz"});
  m.node("MatMulInteger", "/mm", {"xq", "w", "xz", "w_zp"}, {"acc"});
  ModelWriter::set_int(m.node("Cast", "/cast", {"acc"}, {"accf"}), "to", TensorProto::FLOAT);
  m.node("Mul", "/scale", {"xs", "w_scale"}, {"s"});
  m.node("Mul", "/out", {"accf", "s"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  const std::vector<float> x{0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 1.5f, 0.0f, -2.0f};
  StatusOr<std::vector<float>> y = run_float(*graph, x);
  ASSERT_TRUE(y.ok()) << y.message();
  // ONNX's formula, in double: one scale for the whole tensor.
  double lo = 0, hi = 0;
  for (float v : x) {
    lo = std::min(lo, double(v));
    hi = std::max(hi, double(v));
  }
  const double scale = float((hi - lo) / 255.0);
  const int zp = int(std::clamp(std::nearbyint(-lo / scale), 0.0, 255.0));
  for (int r = 0; r < 2; ++r) {
    for (int n = 0; n < 2; ++n) {
      double acc = 0;
      for (int k = 0; k < 4; ++k) {
        const double q = std::clamp(std::nearbyint(x[r * 4 + k] / scale) + zp, 0.0, 255.0);
        acc += (q - zp) * double(w[k * 2 + n]);
      }
      const double want = acc * scale * w_scale;
      EXPECT_NEAR((*y)[r * 2 + n], want, 1e-5 + 1e-5 * std::abs(want)) << r << "," << n;
    }
  }
}

// PyTorch's exporter builds a bias's int32 zero point from int64 zeros and
// a Cast: the constant keeps the int32 type and the bias dequantizes.
TEST(ImporterQuantTest, ACastConstantZeroPointKeepsItsNarrowType) {
  ModelWriter m(13);
  m.input("x", {3}).output("y");
  m.typed_ints("b", {3}, {5, -7, 9}, TensorProto::INT32);
  m.floats("s", {3}, {0.5f, 0.25f, 2.0f});
  m.ints("zeros64", {3}, {0, 0, 0});
  ModelWriter::set_int(m.node("Cast", "/zp", {"zeros64"}, {"zp"}), "to", TensorProto::INT32);
  ModelWriter::set_int(m.node("DequantizeLinear", "/b_dq", {"b", "s", "zp"}, {"bf"}), "axis", 0);
  m.node("Add", "/add", {"x", "bf"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  StatusOr<std::vector<float>> y = run_float(*graph, {1.0f, 1.0f, 1.0f});
  ASSERT_TRUE(y.ok()) << y.message();
  EXPECT_EQ(*y, (std::vector<float>{3.5f, -0.75f, 19.0f}));
}

// The test models of testdata/onnx/quant (scripts/make_quant_testdata.py):
// ONNX Runtime gives exactly their expected outputs, and so must we.
TEST(ImporterQuantTest, TestdataModelsMatchTheirExpectedOutputsExactly) {
  const std::string dir = std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/quant/";
  for (const char* name : {"qdq_conv_relu", "qdq_cnn_small", "qdq_opset10", "qdq_opset21",
                           "qoperator_small", "qinteger_small", "dyn_quant_linear"}) {
    SCOPED_TRACE(name);
    StatusOr<aot::Graph> graph = import_onnx(dir + name + ".onnx");
    ASSERT_TRUE(graph.ok()) << graph.message();
    StatusOr<npy::Array> x = npy::read_file(dir + name + ".input.npy");
    StatusOr<npy::Array> want = npy::read_file(dir + name + ".expected.npy");
    ASSERT_TRUE(x.ok() && want.ok());
    StatusOr<std::vector<float>> y = run_float(*graph, x->data);
    ASSERT_TRUE(y.ok()) << y.message();
    EXPECT_EQ(*y, want->data);
  }
}

// Each bad_*.onnx is refused at import with one line naming its node.
TEST(ImporterQuantTest, TestdataBadModelsAreRefusedInOneLine) {
  const std::string dir = std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/quant/";
  const std::pair<const char*, const char*> cases[] = {
      {"bad_zero_scale", "scales must be positive and finite"},
      {"bad_negative_scale", "scales must be positive and finite"},
      {"bad_nan_scale", "scales must be positive and finite"},
      {"bad_inf_scale", "scales must be positive and finite"},
      {"bad_zero_point_dtype", "they must have one type"},
      {"bad_zero_point_int32", "zero point of type INT is not supported"},
      {"bad_axis_scale_length", "3 scales for axis 0 of size 4"},
      {"bad_axis_zero_point_length", "does not match the scale's"},
      {"bad_axis_out_of_range", "axis 4 out of range"},
      {"bad_int32_bias_zero_point", "an int32 zero point must be 0"},
      {"bad_opset10_per_axis", "needs opset 13"},
      {"bad_int8_input_no_scale", "dequantize it first"},
  };
  for (const auto& [name, fragment] : cases) {
    StatusOr<aot::Graph> graph = import_onnx(dir + name + ".onnx");
    ASSERT_FALSE(graph.ok()) << name;
    EXPECT_NE(graph.message().find(fragment), std::string::npos) << name << ": " << graph.message();
    EXPECT_NE(graph.message().find("node '"), std::string::npos) << graph.message();
    EXPECT_EQ(graph.message().find('\n'), std::string::npos) << graph.message();
  }
}

}  // namespace
}  // namespace glassbox::frontends::onnx
