#include "frontends/onnx/importer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "frontends/onnx/test_models.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::frontends::onnx {
namespace {

using testing::ModelWriter;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A PyTorch-shaped CNN: conv -> relu -> maxpool -> flatten through the
// exporter's shape arithmetic (Shape, Gather, Unsqueeze, Concat, Reshape)
// -> fc (Gemm, transB) -> softmax.
ModelWriter small_cnn() {
  ModelWriter m;
  m.input("input", {1, 1, 4, 4}).output("probs");
  m.floats("conv1.weight", {2, 1, 3, 3}, std::vector<float>(18, 0.1f));
  m.floats("conv1.bias", {2}, {0.0f, -0.5f});
  m.floats("fc.weight", {3, 8}, std::vector<float>(24, 0.25f));
  m.floats("fc.bias", {3}, {0, 1, 2});
  m.ints("zero", {}, {0});
  m.ints("axes", {1}, {0});
  m.ints("minus_one", {1}, {-1});
  auto* conv = m.node("Conv", "/conv1/Conv", {"input", "conv1.weight", "conv1.bias"}, {"c"});
  ModelWriter::set_ints(conv, "pads", {1, 1, 1, 1});
  m.node("Relu", "/relu/Relu", {"c"}, {"r"});
  auto* pool = m.node("MaxPool", "/pool/MaxPool", {"r"}, {"p"});
  ModelWriter::set_ints(pool, "kernel_shape", {2, 2});
  ModelWriter::set_ints(pool, "strides", {2, 2});
  m.node("Shape", "/Shape", {"p"}, {"s"});
  m.node("Gather", "/Gather", {"s", "zero"}, {"n"});
  m.node("Unsqueeze", "/Unsqueeze", {"n", "axes"}, {"n1"});
  auto* cat = m.node("Concat", "/Concat", {"n1", "minus_one"}, {"target"});
  ModelWriter::set_int(cat, "axis", 0);
  m.node("Reshape", "/Reshape", {"p", "target"}, {"flat"});
  auto* gemm = m.node("Gemm", "/fc/Gemm", {"flat", "fc.weight", "fc.bias"}, {"logits"});
  ModelWriter::set_int(gemm, "transB", 1);
  m.node("Softmax", "/Softmax", {"logits"}, {"probs"});
  return m;
}

TEST(ImporterTest, ImportsAPyTorchShapedCnnWithProvenance) {
  StatusOr<aot::Graph> graph = import_onnx_from_memory(small_cnn().bytes(), {}, "cnn.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<std::string> ops, names;
  for (const aot::Node& n : graph->nodes) {
    ops.push_back(n.op);
    names.push_back(n.name);
  }
  // The shape arithmetic folded away: the Reshape got a static shape.
  EXPECT_EQ(ops, (std::vector<std::string>{"conv2d", "relu", "max_pool2d", "reshape", "linear",
                                           "softmax"}));
  EXPECT_EQ(names, (std::vector<std::string>{"/conv1/Conv", "/relu/Relu", "/pool/MaxPool",
                                             "/Reshape", "/fc/Gemm", "/Softmax"}));
  EXPECT_EQ(std::get<std::vector<std::int64_t>>(graph->nodes[3].attributes.at("shape")),
            (std::vector<std::int64_t>{1, 8}));
  const aot::Node& conv = graph->nodes[0];
  ASSERT_EQ(conv.module_hierarchy.size(), 1u);
  EXPECT_EQ(conv.module_hierarchy[0].path, "conv1");
  EXPECT_TRUE(graph->nodes[3].module_hierarchy.empty());
  for (std::size_t i = 0; i < graph->nodes.size(); ++i) {
    EXPECT_EQ(graph->nodes[i].debug_handle, DebugHandle(static_cast<std::uint32_t>(i + 1)));
  }
  EXPECT_EQ(graph->find_value(graph->outputs[0])->name, "probs");
  EXPECT_EQ(graph->find_value(graph->outputs[0])->shape, (std::vector<std::int64_t>{1, 3}));
}

TEST(ImporterTest, ImportedCnnRunsOnThePortableKernels) {
  StatusOr<aot::Graph> graph = import_onnx_from_memory(small_cnn().bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  auto program = exporter::export_model(*std::move(graph), {});
  ASSERT_TRUE(program.ok()) << program.message();
  runtime::Diagnostics diag;
  auto loaded = runtime::Program::load(program->buffer(), &diag);
  ASSERT_TRUE(loaded.ok()) << diag.message;
  runtime::MemoryAllocator method_memory, temp_memory;
  auto method =
      runtime::Method::load(*loaded, "forward", &method_memory, &temp_memory, nullptr, &diag);
  ASSERT_TRUE(method.ok()) << diag.message;
  const std::vector<float> x(16, 1.0f);
  ASSERT_EQ(method->set_input(0, x.data(), x.size() * sizeof(float)), Error::kOk);
  ASSERT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  // Every logit is 0.25 * (sum of the 8 pooled values) + bias; the biases
  // differ by 1, so softmax gives e^0, e^1, e^2 normalised.
  const float* y = method->output(0).float_data();
  const double total = 1 + std::exp(1.0) + std::exp(2.0);
  EXPECT_NEAR(y[0], 1 / total, 1e-5);
  EXPECT_NEAR(y[2], std::exp(2.0) / total, 1e-5);
}

TEST(ImporterTest, ListsEveryUnsupportedOpOnce) {
  ModelWriter m;
  m.input("x", {1, 4}).output("z");
  m.node("Hardmax", "/a/Hardmax", {"x"}, {"y1"});
  m.node("TfIdfVectorizer", "tfidf_0", {"y1"}, {"y2"});
  m.node("Hardmax", "/b/Hardmax", {"y2"}, {"y3"});
  m.node("Relu", "/Relu", {"y3"}, {"z"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "bad.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error(), Error::kNotSupported);
  EXPECT_EQ(graph.message(),
            "bad.onnx: 2 unsupported op types: Hardmax (2 nodes: '/a/Hardmax', '/b/Hardmax'); "
            "TfIdfVectorizer (1 node: 'tfidf_0')");
}

// Input shapes the runtime cannot hold are refused at import, named.
TEST(ImporterTest, RefusesHugeOrHighRankInputs) {
  struct Case {
    std::vector<std::int64_t> shape;
    const char* fragment;
  };
  for (const Case& c :
       {Case{{1, std::int64_t{1} << 40}, "dim 1 (1099511627776) makes the input larger"},
        Case{{1, 1, 1, 1, 1, 1, 1}, "has rank 7"}}) {
    ModelWriter m;
    m.input("x", c.shape).output("y");
    m.node("Relu", "/Relu", {"x"}, {"y"});
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "big.onnx");
    ASSERT_FALSE(graph.ok());
    EXPECT_TRUE(contains(graph.message(), "big.onnx: input 'x'")) << graph.message();
    EXPECT_TRUE(contains(graph.message(), c.fragment)) << graph.message();
  }
  // The same limits apply to a shape given with --input-shape.
  ModelWriter m;
  m.input("x", {-1, 3}).output("y");
  m.node("Relu", "/Relu", {"x"}, {"y"});
  ImportOptions options;
  options.input_shapes["x"] = {std::int64_t{1} << 40, 3};
  EXPECT_TRUE(contains(import_onnx_from_memory(m.bytes(), options).message(), "larger than 2^31"));
}

// Node attributes and computed shapes are bounded like inputs: a pad of
// 2^40, a tile to 2^33 elements or a reshape to rank 7 is refused at import,
// naming the node, instead of overflowing shape inference or writing a
// program the runtime refuses.
TEST(ImporterTest, RefusesHugeAttributesAndShapesNamingTheNode) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  struct Case {
    const char* name;
    std::function<void(ModelWriter&)> build;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"conv pads",
       [](ModelWriter& m) {
         m.floats("w", {1, 1, 1, 1}, {1.0f});
         auto* conv = m.node("Conv", "/conv/Conv", {"x", "w"}, {"y"});
         ModelWriter::set_ints(conv, "pads", {kHuge, 0, kHuge, 0});
       },
       "/conv/Conv"},
      {"conv strides",
       [](ModelWriter& m) {
         m.floats("w", {1, 1, 1, 1}, {1.0f});
         auto* conv = m.node("Conv", "/conv/Conv", {"x", "w"}, {"y"});
         ModelWriter::set_ints(conv, "strides", {1, kHuge});
       },
       "/conv/Conv"},
      {"pool pads",
       [](ModelWriter& m) {
         auto* pool = m.node("MaxPool", "/pool/MaxPool", {"x"}, {"y"});
         ModelWriter::set_ints(pool, "kernel_shape", {1, 1});
         ModelWriter::set_ints(pool, "pads", {0, 0, kHuge, kHuge});
       },
       "/pool/MaxPool"},
      {"pad",
       [](ModelWriter& m) {
         m.ints("pads", {8}, {0, 0, kHuge, 0, 0, 0, kHuge, 0});
         m.node("Pad", "/Pad", {"x", "pads"}, {"y"});
       },
       "/Pad"},
      {"tile",
       [](ModelWriter& m) {
         m.ints("repeats", {4}, {1, 1, 1 << 15, 1 << 15});
         m.node("Tile", "/Tile", {"x", "repeats"}, {"y"});
       },
       "larger than 2^31 elements"},
      {"reshape rank",
       [](ModelWriter& m) {
         m.ints("shape", {7}, {1, 1, 1, 1, 1, 4, 4});
         m.node("Reshape", "/Reshape", {"x", "shape"}, {"y"});
       },
       "rank 7"},
      // Entries whose product passes int64 before the -1 is inferred (an
      // overflow the fuzzer found: undefined behaviour, not an error).
      {"reshape entries overflowing",
       [](ModelWriter& m) {
         m.ints("shape", {3}, {std::int64_t{1008806316530991104}, 12, -1});
         m.node("Reshape", "/Reshape", {"x", "shape"}, {"y"});
       },
       "overflows int64"},
  };
  for (const Case& c : cases) {
    ModelWriter m;
    m.input("x", {1, 1, 4, 4}).output("y");
    c.build(m);
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "huge.onnx");
    ASSERT_FALSE(graph.ok()) << c.name;
    EXPECT_TRUE(contains(graph.message(), "huge.onnx: node '")) << graph.message();
    EXPECT_TRUE(contains(graph.message(), c.fragment)) << c.name << ": " << graph.message();
  }
}

TEST(ImporterTest, DynamicInputNeedsAStaticShape) {
  ModelWriter m;
  m.input("images", {-1, 3}).output("y");
  m.node("Relu", "/Relu", {"images"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "dyn.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_TRUE(contains(graph.message(), "dyn.onnx: input 'images': dim 0 is symbolic ('batch')"))
      << graph.message();
  ImportOptions options;
  options.input_shapes["images"] = {2, 3};
  graph = import_onnx_from_memory(m.bytes(), options, "dyn.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(graph->find_value(graph->inputs[0])->shape, (std::vector<std::int64_t>{2, 3}));
  options.input_shapes["nope"] = {1};
  EXPECT_TRUE(contains(import_onnx_from_memory(m.bytes(), options).message(), "'nope'"));
}

TEST(ImporterTest, RefusesOpsetsOutsideTenToTwentyOne) {
  for (std::int64_t opset : {9, 22}) {
    ModelWriter m(opset);
    m.input("x", {1}).output("y");
    m.node("Relu", "r", {"x"}, {"y"});
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "old.onnx");
    ASSERT_FALSE(graph.ok());
    EXPECT_EQ(graph.error(), Error::kNotSupported);
    EXPECT_TRUE(contains(graph.message(), "opset " + std::to_string(opset) + " is not supported"));
  }
}

TEST(ImporterTest, TruncatedOrForeignBytesAreClearErrors) {
  const std::string text = "this is not a model";
  StatusOr<aot::Graph> graph = import_onnx_from_memory(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), {}, "x.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_TRUE(contains(graph.message(), "x.onnx: not an ONNX model")) << graph.message();
  const std::vector<std::uint8_t> bytes = small_cnn().bytes();
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    EXPECT_FALSE(import_onnx_from_memory(std::span(bytes.data(), n)).ok()) << n;
  }
  EXPECT_EQ(import_onnx("/nonexistent/model.onnx").error(), Error::kAccessFailed);
}

TEST(ImporterTest, IdentityOfAnInputBecomesACopy) {
  ModelWriter m;
  m.input("x", {2}).output("y");
  m.node("Identity", "", {"x"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  ASSERT_EQ(graph->nodes.size(), 1u);
  EXPECT_EQ(graph->nodes[0].op, "reshape");
}

TEST(ImporterTest, PadWithZeroPadsIsTheIdentity) {
  ModelWriter m;
  m.input("x", {1, 2, 4, 4}).output("y");
  m.ints("pads", {8}, {0, 0, 0, 0, 0, 0, 0, 0});
  m.node("Relu", "/Relu", {"x"}, {"r"});
  m.node("Pad", "/pool/Pad", {"r", "pads"}, {"p"});
  m.node("Relu", "/Relu_1", {"p"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  ASSERT_EQ(graph->nodes.size(), 2u);
  EXPECT_EQ(graph->nodes[0].op, "relu");
  EXPECT_EQ(graph->nodes[1].op, "relu");
  EXPECT_EQ(graph->nodes[1].inputs[0], graph->nodes[0].outputs[0]);
}

TEST(ImporterTest, SupportedOpsIncludeTheIssueList) {
  const std::vector<std::string> ops = supported_op_types();
  for (const char* op : {"Conv",
                         "Relu",
                         "Clip",
                         "Sigmoid",
                         "HardSigmoid",
                         "HardSwish",
                         "Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "MatMul",
                         "Gemm",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "BatchNormalization",
                         "Flatten",
                         "Reshape",
                         "Transpose",
                         "Concat",
                         "Softmax",
                         "Tan",
                         "Sin",
                         "Cos",
                         "Constant",
                         "Identity",
                         "Shape",
                         "Gather",
                         "Unsqueeze",
                         "Cast"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  }
}

}  // namespace
}  // namespace glassbox::frontends::onnx
