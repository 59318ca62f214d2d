// The oneDNN delegate on int8 (QDQ) models: the test models of
// testdata/onnx/quant lowered whole to oneDNN are one delegate that runs
// int8 primitives from the input's quantize to the last dequantize, and
// match the portable run of the same file within one quantization step of
// the output (a rounding tie decided the other way after a differently
// ordered sum; quantization.h).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/common/graph_uses.h"
#include "backends/onednn/aot/onednn_backend.h"
#include "backends/onednn/aot/onednn_partitioner.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "frontends/onnx/importer.h"
#include "glassbox/aot/ops.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/npy/npy.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::backends::onednn {
namespace {

const std::string kDir = std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/quant/";

StatusOr<exporter::ExecutorchProgramManager> export_graph(aot::Graph graph, bool delegated) {
  static OnednnBackend backend;
  exporter::Recipe recipe;
  if (delegated) recipe.partitioners.push_back(make_onednn_partitioner(backend));
  return exporter::export_model(std::move(graph), recipe);
}

// Output 0 of `bytes` run once on `x`; empty with `*error` set on failure.
std::vector<float> run(const std::vector<std::uint8_t>& bytes, const std::vector<float>& x,
                       runtime::EventTracer* tracer, std::string* error) {
  if (register_onednn_backend_runtime() != Error::kOk) {
    *error = "cannot register the runtime half";
    return {};
  }
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  if (!program.ok()) {
    *error = std::string("Program::load: ") + diag.message;
    return {};
  }
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, tracer, &diag);
  if (!method.ok()) {
    *error = std::string("Method::load: ") + diag.message;
    return {};
  }
  if (method->set_input(0, x.data(), x.size() * sizeof(float)) != Error::kOk ||
      method->execute(&diag) != Error::kOk) {
    *error = std::string("execute: ") + diag.message;
    return {};
  }
  const runtime::Tensor& y = method->output(0);
  return std::vector<float>(y.float_data(), y.float_data() + y.numel());
}

// The scale of the dequantize writing the graph's output.
float output_scale(const aot::Graph& graph) {
  const aot::Node* dq = producer_of(graph, graph.outputs[0]);
  if (dq == nullptr) return 0;
  const std::optional<TensorQuant> q = per_tensor_quant(graph, *dq);
  return q ? q->scale : 0;
}

struct Lowered {
  std::size_t delegates = 0;
  double max_steps = 0;
  std::vector<std::string> metadata;
  std::size_t int8_outputs = 0;  // intermediate outputs logged as int8
};

Lowered compare_graph(const aot::Graph& graph, const std::vector<float>& x,
                      const std::string& name);

// `name` lowered to oneDNN and to portable, both run on its input.
Lowered lower_and_compare(const std::string& name) {
  StatusOr<aot::Graph> graph = frontends::onnx::import_onnx(kDir + name + ".onnx");
  EXPECT_TRUE(graph.ok()) << graph.message();
  StatusOr<npy::Array> x = npy::read_file(kDir + name + ".input.npy");
  EXPECT_TRUE(x.ok());
  if (!graph.ok() || !x.ok()) return {};
  return compare_graph(*graph, x->data, name);
}

// `graph` lowered to oneDNN and to portable, both run on `x`.
Lowered compare_graph(const aot::Graph& graph_in, const std::vector<float>& x_data,
                      const std::string& name) {
  Lowered result;
  const aot::Graph* graph = &graph_in;
  const std::vector<float>* x = &x_data;
  StatusOr<exporter::ExecutorchProgramManager> delegated = export_graph(*graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = export_graph(*graph, false);
  EXPECT_TRUE(delegated.ok()) << delegated.message();
  EXPECT_TRUE(portable.ok()) << portable.message();
  if (!delegated.ok() || !portable.ok()) return result;
  result.delegates = delegated->delegate_map().at("forward").size();
  EXPECT_EQ(delegated->instruction_id_to_num_outs_map().at("forward").size(), 1u)
      << "one instruction: the delegate call";

  std::string error;
  etdump::ETDumpGen tracer;
  tracer.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  const std::vector<float> y = run(delegated->buffer(), *x, &tracer, &error);
  EXPECT_TRUE(error.empty()) << error;
  const std::vector<float> want = run(portable->buffer(), *x, nullptr, &error);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(y.size(), want.size());
  if (y.size() != want.size() || y.empty()) return result;
  const float step = output_scale(*graph);
  EXPECT_GT(step, 0.f);
  for (std::size_t i = 0; i < y.size(); ++i) {
    result.max_steps = std::max(result.max_steps, std::abs(double(y[i]) - want[i]) / step);
  }
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), name);
  EXPECT_TRUE(dump.ok()) << dump.message();
  if (!dump.ok()) return result;
  for (const etdump::Event& e : dump->runs.back().events) {
    if (const etdump::ProfileEvent* pe = e.profile();
        pe != nullptr && pe->delegate_debug_metadata.has_value()) {
      result.metadata.emplace_back(pe->delegate_debug_metadata->begin(),
                                   pe->delegate_debug_metadata->end());
    }
    if (const etdump::DebugEvent* de = e.debug(); de != nullptr && de->value.tensor.has_value()) {
      const std::optional<ScalarType> t = de->value.tensor->known_scalar_type();
      if (t == ScalarType::kChar || t == ScalarType::kByte) ++result.int8_outputs;
    }
  }
  return result;
}

bool any_starts_with(const std::vector<std::string>& all, std::string_view prefix) {
  for (const std::string& s : all) {
    if (s.starts_with(prefix)) return true;
  }
  return false;
}

TEST(OnednnQuantTest, ConvReluIsOneDelegateInInt8) {
  const Lowered l = lower_and_compare("qdq_conv_relu");
  EXPECT_EQ(l.delegates, 1u);
  EXPECT_LE(l.max_steps, 1.0);
  // quantize, int8 convolution (with its relu), dequantize: the QDQ pair
  // between them is never float.
  EXPECT_TRUE(any_starts_with(l.metadata, "quantize: "));
  EXPECT_TRUE(any_starts_with(l.metadata, "convolution: "));
  EXPECT_TRUE(any_starts_with(l.metadata, "dequantize: "));
  EXPECT_FALSE(any_starts_with(l.metadata, "convolution: ref"))
      << ::testing::PrintToString(l.metadata);
  EXPECT_GT(l.int8_outputs, 0u) << "intermediate outputs are logged as int8 tensors";
}

TEST(OnednnQuantTest, TestdataModelsAreOneDelegateWithinOneStep) {
  for (const char* name : {"qdq_conv_relu", "qdq_cnn_small", "qdq_opset10", "qdq_opset21"}) {
    SCOPED_TRACE(name);
    const Lowered l = lower_and_compare(name);
    EXPECT_EQ(l.delegates, 1u);
    EXPECT_LE(l.max_steps, 1.0);
    std::printf("%s: %zu delegate(s), max error %.3f output steps\n", name, l.delegates,
                l.max_steps);
    for (const std::string& m : l.metadata) std::printf("  %s\n", m.c_str());
    for (const std::string& m : l.metadata) {
      EXPECT_FALSE(m.find(": ref") != std::string::npos && m.find("int8") != std::string::npos)
          << m;
    }
  }
}

// Small QDQ graphs for the int8 paths the test models do not reach.
class QdqBuilder {
 public:
  using Ints = std::vector<std::int64_t>;
  aot::ValueId input(Ints shape) {
    const aot::ValueId x = add(ScalarType::kFloat, std::move(shape), aot::ValueKind::kInput);
    graph_.inputs.push_back(x);
    return x;
  }
  aot::ValueId floats(Ints shape, std::vector<float> data) {
    const aot::ValueId c = add(ScalarType::kFloat, std::move(shape), aot::ValueKind::kConstant);
    graph_.values.back().data = std::move(data);
    return c;
  }
  aot::ValueId ints(ScalarType dtype, Ints shape, std::vector<std::int64_t> data) {
    const aot::ValueId c = add(dtype, std::move(shape), aot::ValueKind::kConstant);
    graph_.values.back().int_data = std::move(data);
    return c;
  }
  aot::ValueId op(std::string_view name, std::vector<aot::ValueId> in,
                  aot::AttributeMap attrs = {}) {
    std::vector<aot::TensorType> types;
    for (aot::ValueId v : in) types.push_back({value(v).dtype, value(v).shape});
    StatusOr<aot::TensorType> type = aot::infer_output_type(name, types, attrs);
    EXPECT_TRUE(type.ok()) << name << ": " << type.message();
    if (!type.ok()) return in[0];
    const aot::ValueId out = add(type->dtype, type->shape, aot::ValueKind::kNodeOutput);
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
  // quantize_linear (uint8) then dequantize_linear.
  aot::ValueId qdq(aot::ValueId x, float scale, std::int64_t zero_point) {
    const aot::ValueId s = floats({}, {scale});
    const aot::ValueId z = ints(ScalarType::kByte, {}, {zero_point});
    return op(aot::op::kDequantizeLinear, {op(aot::op::kQuantizeLinear, {x, s, z}), s, z});
  }
  // A 3x3 convolution (padding 1) of `x` (scale x_scale) to `oc` channels,
  // int8 weights per channel behind a dequantize, an int32 bias.
  aot::ValueId conv(aot::ValueId x, std::int64_t ic, std::int64_t oc, float x_scale) {
    std::vector<std::int64_t> w(static_cast<std::size_t>(oc * ic * 9)), b;
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int64_t>(i * 37 % 255) - 127;
    std::vector<float> ws, bs;
    for (std::int64_t c = 0; c < oc; ++c) {
      ws.push_back(0.002f + 0.0005f * float(c));
      bs.push_back(x_scale * ws.back());
      b.push_back(c * 301 - 500);
    }
    const aot::ValueId wq = op(aot::op::kDequantizeLinear,
                               {ints(ScalarType::kChar, {oc, ic, 3, 3}, w), floats({oc}, ws),
                                ints(ScalarType::kChar, {oc}, Ints(ws.size(), 0))},
                               {{"axis", std::int64_t{0}}});
    const aot::ValueId bq =
        op(aot::op::kDequantizeLinear, {ints(ScalarType::kInt, {oc}, b), floats({oc}, bs)},
           {{"axis", std::int64_t{0}}});
    return op(aot::op::kConv2d, {x, wq, bq},
              {{"stride", Ints{1, 1}},
               {"padding", Ints{1, 1}},
               {"dilation", Ints{1, 1}},
               {"groups", std::int64_t{1}}});
  }
  aot::ValueId clamp(aot::ValueId x, double lo, double hi) {
    return op(aot::op::kClamp, {x}, {{"min", lo}, {"max", hi}});
  }
  aot::Graph build(aot::ValueId out) {
    graph_.outputs = {out};
    aot::group_quantization_nodes(&graph_);
    return graph_;
  }

 private:
  const aot::Value& value(aot::ValueId id) const { return *graph_.find_value(id); }
  aot::ValueId add(ScalarType dtype, Ints shape, aot::ValueKind kind) {
    aot::Value v;
    v.id = aot::ValueId(static_cast<std::int32_t>(graph_.values.size()));
    v.name = "v" + std::to_string(graph_.values.size());
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.kind = kind;
    graph_.values.push_back(std::move(v));
    return graph_.values.back().id;
  }
  aot::Graph graph_;
};

// Values in (-2, 2) spread over many quantization steps, away from the
// input quantize's ties (there oneDNN's reorder multiplies by 1 / scale
// where ONNX divides, and may round the other way).
std::vector<float> ramp(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 1.99f * std::sin(0.731f * float(i) + 0.2f);
  return x;
}

constexpr float kInScale = 4.f / 255;

// A relu6 QDQ-wrapped on its own (dq -> clip -> q), its input straight from
// the input's quantize (no producer to fuse into): kQClamp.
TEST(OnednnQuantTest, ClampWithOneQuantizationIsAQuantizedClamp) {
  QdqBuilder b;
  const aot::ValueId x = b.qdq(b.input({1, 8, 6, 6}), kInScale, 128);
  const Lowered l =
      compare_graph(b.build(b.qdq(b.clamp(x, 0.0, 1.0), kInScale, 128)), ramp(288), "clamp");
  EXPECT_EQ(l.delegates, 1u);
  EXPECT_EQ(l.max_steps, 0.0);
  EXPECT_TRUE(any_starts_with(l.metadata, "eltwise: glassbox:quantized_clamp"))
      << ::testing::PrintToString(l.metadata);
  EXPECT_FALSE(any_starts_with(l.metadata, "eltwise: jit")) << "no float clamp";
}

TEST(OnednnQuantTest, ClampBetweenTwoQuantizationsIsATable) {
  for (const bool relu : {false, true}) {
    SCOPED_TRACE(relu ? "relu" : "clip");
    QdqBuilder b;
    const aot::ValueId x = b.qdq(b.input({1, 8, 6, 6}), kInScale, 128);
    const aot::ValueId y = relu ? b.op(aot::op::kRelu, {x}) : b.clamp(x, -0.5, 1.5);
    const Lowered l = compare_graph(b.build(b.qdq(y, 0.0071f, 77)), ramp(288), "clamp_lut");
    EXPECT_EQ(l.delegates, 1u);
    EXPECT_EQ(l.max_steps, 0.0);
    EXPECT_TRUE(any_starts_with(l.metadata, "eltwise: glassbox:quant_lut"))
        << ::testing::PrintToString(l.metadata);
  }
}

// PyTorch's ReLU6 after a quantized conv: conv -> q -> dq -> clip -> q of
// one quantization is one int8 convolution with a narrowed output range.
TEST(OnednnQuantTest, ClampAfterConvFusesIntoTheConvolution) {
  QdqBuilder b;
  const aot::ValueId x = b.qdq(b.input({1, 8, 6, 6}), kInScale, 128);
  const aot::ValueId c = b.qdq(b.conv(x, 8, 16, kInScale), 0.02f, 100);
  const aot::ValueId y = b.qdq(b.clamp(c, 0.0, 0.6), 0.02f, 100);
  const aot::ValueId z = b.qdq(b.conv(y, 16, 8, 0.02f), 0.03f, 120);
  const Lowered l = compare_graph(b.build(z), ramp(288), "conv_clamp");
  EXPECT_EQ(l.delegates, 1u);
  EXPECT_LE(l.max_steps, 1.0 + 1e-3);
  std::size_t convs = 0, others = 0;
  for (const std::string& m : l.metadata) {
    if (m.starts_with("convolution: ")) ++convs;
    if (m.starts_with("eltwise") || m.starts_with("layout")) ++others;
    EXPECT_EQ(m.find("ref"), std::string::npos) << m;
  }
  EXPECT_EQ(convs, 2u) << ::testing::PrintToString(l.metadata);
  // The first conv's reorder from the quantize's plain output aside,
  // nothing runs between the two convolutions.
  EXPECT_LE(others, 1u) << ::testing::PrintToString(l.metadata);
}

// A global average pool whose output scale is not its input's: our
// qlinear_global_avg_pool2d, over a plain source (the input's quantize)
// and over a convolution's blocked or NHWC one (reordered first).
TEST(OnednnQuantTest, RequantizingGlobalAvgPoolRunsInInt8) {
  for (const bool after_conv : {false, true}) {
    SCOPED_TRACE(after_conv ? "after a conv" : "after the quantize");
    QdqBuilder b;
    aot::ValueId x = b.qdq(b.input({1, 32, 7, 7}), kInScale, 128);
    if (after_conv) x = b.qdq(b.conv(x, 32, 32, kInScale), 0.05f, 90);
    const aot::ValueId y = b.qdq(b.op(aot::op::kGlobalAvgPool2d, {x}), 0.0037f, 131);
    const Lowered l = compare_graph(b.build(y), ramp(32 * 49), "gap");
    EXPECT_EQ(l.delegates, 1u);
    EXPECT_LE(l.max_steps, 1.0 + 1e-3);
    EXPECT_TRUE(any_starts_with(l.metadata, "pooling: glassbox:qlinear_global_avg_pool2d"))
        << ::testing::PrintToString(l.metadata);
    for (const std::string& m : l.metadata) EXPECT_FALSE(m.starts_with("pooling: ref")) << m;
  }
}

}  // namespace
}  // namespace glassbox::backends::onednn
