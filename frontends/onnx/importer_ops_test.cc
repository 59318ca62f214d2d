// The operators added for transformers and modern CNNs, through the whole
// path: ONNX import (with folding on the kernels), emission, the runtime's
// portable kernels. Each model is small and its expected output computed
// here by a direct loop.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "frontends/onnx/test_run.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::frontends::onnx {
namespace {

using testing::bytes_of;
using testing::ModelWriter;
using testing::Output;
using testing::run;
using Shape = std::vector<std::int64_t>;

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

std::vector<std::string> ops_of(const aot::Graph& graph) {
  std::vector<std::string> ops;
  for (const aot::Node& n : graph.nodes) ops.push_back(n.op);
  return ops;
}

// PyTorch's Expand export: ConstantOfShape, Equal, Where and Mul on the
// target shape, all constants, then Expand of a weight: everything folds on
// the kernels and only the run-time Add remains.
TEST(ImporterOpsTest, FoldsConstantSubgraphsOnTheKernels) {
  ModelWriter m(14);
  m.input("x", {2, 3}).output("y");
  m.floats("token", {1, 3}, {1, 2, 3});
  m.ints("target", {2}, {2, -1});
  m.ints("rank", {1}, {2});
  m.ints("minus_one", {}, {-1});
  m.floats("one", {}, {1.0f});
  m.node("ConstantOfShape", "/cos", {"rank"}, {"zeros"});  // float zeros by default
  m.node("Add", "/plus", {"zeros", "one"}, {"ones"});
  auto* cast = m.node("Cast", "/cast", {"ones"}, {"ones_i"});
  ModelWriter::set_int(cast, "to", ::onnx::TensorProto::INT64);
  m.node("Equal", "/eq", {"target", "minus_one"}, {"is_free"});
  m.node("Where", "/where", {"is_free", "ones_i", "target"}, {"shape"});
  m.node("Expand", "/expand", {"token", "shape"}, {"tokens"});
  m.node("Add", "/add", {"x", "tokens"}, {"y"});
  ImportStats stats;
  ImportOptions options;
  options.stats = &stats;
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), options, "fold.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(ops_of(*graph), (std::vector<std::string>{"add"}));
  // Cast, Equal, Where, Expand: four IR nodes evaluated at import (Add of
  // two host tensors is shape arithmetic, folded before any IR node).
  EXPECT_EQ(stats.folded_nodes, 4u);
  const std::vector<float> x = random_floats(6, 1);
  StatusOr<Output> out = run(*graph, {bytes_of(x)});
  ASSERT_TRUE(out.ok()) << out.message();
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(out->values[i], double(x[i] + float(1 + i % 3)));
}

// BERT's embedding lookup: int64 ids from the caller index a float table.
TEST(ImporterOpsTest, GathersWithInt64IdsAtRunTime) {
  ModelWriter m(14);
  m.input("ids", {1, 3}, ::onnx::TensorProto::INT64).output("emb");
  const std::vector<float> table = random_floats(10 * 4, 2);
  m.floats("table", {10, 4}, table);
  m.node("Gather", "/embeddings/Gather", {"table", "ids"}, {"emb"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  const std::vector<std::int64_t> ids{7, 0, -1};  // -1: the last row, as ONNX says
  StatusOr<Output> out = run(*graph, {bytes_of(ids)});
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->shape, (Shape{1, 3, 4}));
  const std::int64_t rows[] = {7, 0, 9};
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      EXPECT_EQ(out->values[i * 4 + j], table[static_cast<std::size_t>(rows[i]) * 4 + j]);
    }
  }
  // An id out of range fails the run with the kernel's error, not a crash.
  const std::vector<std::int64_t> bad{10, 0, 0};
  EXPECT_FALSE(run(*graph, {bytes_of(bad)}).ok());
}

// An attention mask at run time: Equal gives bool, Where selects, Not and
// Cast move between bool, int64 and float.
TEST(ImporterOpsTest, BoolAndInt64TensorsTravelThroughTheRuntime) {
  ModelWriter m(14);
  m.input("x", {2, 4}).output("y");
  m.floats("zero", {}, {0.0f});
  m.floats("big", {}, {-1e4f});
  m.node("Equal", "/eq", {"x", "zero"}, {"is_zero"});
  m.node("Not", "/not", {"is_zero"}, {"keep"});
  auto* to_long = m.node("Cast", "/to_long", {"keep"}, {"keep_i"});
  ModelWriter::set_int(to_long, "to", ::onnx::TensorProto::INT64);
  auto* to_float = m.node("Cast", "/to_float", {"keep_i"}, {"keep_f"});
  ModelWriter::set_int(to_float, "to", ::onnx::TensorProto::FLOAT);
  m.node("Where", "/where", {"is_zero", "big", "keep_f"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(ops_of(*graph),
            (std::vector<std::string>{"equal", "logical_not", "cast", "cast", "where"}));
  const std::vector<float> x{0, 1, -2, 0, 3, 0, 0, 5};
  StatusOr<Output> out = run(*graph, {bytes_of(x)});
  ASSERT_TRUE(out.ok()) << out.message();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(out->values[i], x[i] == 0 ? -1e4 : 1.0) << i;
  }
}

// The attention exporters' einsum, decomposed into transpose/reshape/matmul.
TEST(ImporterOpsTest, EinsumOfAttentionMatchesADirectLoop) {
  const std::int64_t B = 2, H = 3, Q = 4, K = 5, D = 6;
  ModelWriter m(14);
  m.input("q", {B, H, Q, D}).input("k", {B, K, H, D}).output("s");
  auto* e = m.node("Einsum", "/attn/Einsum", {"q", "k"}, {"s"});
  ModelWriter::set_string(e, "equation", "bhqd,bkhd->bhqk");
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  const std::vector<float> q = random_floats(static_cast<std::size_t>(B * H * Q * D), 3);
  const std::vector<float> k = random_floats(static_cast<std::size_t>(B * K * H * D), 4);
  StatusOr<Output> out = run(*graph, {bytes_of(q), bytes_of(k)});
  ASSERT_TRUE(out.ok()) << out.message();
  ASSERT_EQ(out->shape, (Shape{B, H, Q, K}));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t i = 0; i < Q; ++i)
        for (std::int64_t j = 0; j < K; ++j) {
          double sum = 0;
          for (std::int64_t d = 0; d < D; ++d) {
            sum += double(q[static_cast<std::size_t>(((b * H + h) * Q + i) * D + d)]) *
                   double(k[static_cast<std::size_t>(((b * K + j) * H + h) * D + d)]);
          }
          EXPECT_NEAR(out->values[static_cast<std::size_t>(((b * H + h) * Q + i) * K + j)], sum,
                      1e-5);
        }
}

TEST(ImporterOpsTest, EinsumThatSumsOneOperandIsRefusedByName) {
  ModelWriter m(14);
  m.input("a", {2, 3}).input("b", {3, 4}).output("c");
  auto* e = m.node("Einsum", "/e", {"a", "b"}, {"c"});
  ModelWriter::set_string(e, "equation", "ij,jk->i");
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "sum.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error(), Error::kNotSupported);
  EXPECT_NE(graph.message().find("node '/e' (Einsum)"), std::string::npos) << graph.message();
  EXPECT_NE(graph.message().find("sums a letter of one operand"), std::string::npos);
}

// PyTorch below opset 17 writes LayerNorm as seven ops: each stays a source
// op of its own (its own debug handle) under the LayerNorm's module path.
TEST(ImporterOpsTest, DecomposedLayerNormKeepsOneHandlePerSourceOp) {
  ModelWriter m(14);
  m.input("x", {1, 3, 8}).output("y");
  m.ints("last", {1}, {-1});
  m.floats("two", {}, {2.0f});
  m.floats("eps", {}, {1e-5f});
  auto* mean = m.node("ReduceMean", "/encoder/ln/ReduceMean", {"x"}, {"mu"});
  ModelWriter::set_ints(mean, "axes", {-1});
  m.node("Sub", "/encoder/ln/Sub", {"x", "mu"}, {"d"});
  m.node("Pow", "/encoder/ln/Pow", {"d", "two"}, {"d2"});
  auto* var = m.node("ReduceMean", "/encoder/ln/ReduceMean_1", {"d2"}, {"var"});
  ModelWriter::set_ints(var, "axes", {-1});
  m.node("Add", "/encoder/ln/Add", {"var", "eps"}, {"ve"});
  m.node("Sqrt", "/encoder/ln/Sqrt", {"ve"}, {"sd"});
  m.node("Div", "/encoder/ln/Div", {"d", "sd"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  ASSERT_EQ(graph->nodes.size(), 7u);
  std::set<std::uint32_t> handles;
  for (const aot::Node& n : graph->nodes) {
    handles.insert(n.debug_handle.value);
    ASSERT_EQ(n.module_hierarchy.size(), 2u) << n.name;
    EXPECT_EQ(n.module_hierarchy.back().path, "encoder.ln");
  }
  EXPECT_EQ(handles.size(), 7u);
  const std::vector<float> x = random_floats(24, 5);
  StatusOr<Output> out = run(*graph, {bytes_of(x)});
  ASSERT_TRUE(out.ok()) << out.message();
  for (std::size_t row = 0; row < 3; ++row) {
    double mu = 0, var2 = 0;
    for (std::size_t j = 0; j < 8; ++j) mu += x[row * 8 + j] / 8.0;
    for (std::size_t j = 0; j < 8; ++j) var2 += (x[row * 8 + j] - mu) * (x[row * 8 + j] - mu) / 8.0;
    for (std::size_t j = 0; j < 8; ++j) {
      EXPECT_NEAR(out->values[row * 8 + j], (x[row * 8 + j] - mu) / std::sqrt(var2 + 1e-5), 1e-4);
    }
  }
}

// Split becomes one slice per output; each output keeps its ONNX name.
TEST(ImporterOpsTest, SplitGivesOneSlicePerOutput) {
  ModelWriter m(13);
  m.input("x", {2, 6}).output("c");
  m.ints("sizes", {3}, {1, 2, 3});
  auto* split = m.node("Split", "/qkv/Split", {"x", "sizes"}, {"a", "b", "c"});
  ModelWriter::set_int(split, "axis", 1);
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  const std::vector<float> x = random_floats(12, 6);
  StatusOr<Output> out = run(*graph, {bytes_of(x)});
  ASSERT_TRUE(out.ok()) << out.message();
  ASSERT_EQ(out->shape, (Shape{2, 3}));
  for (std::size_t r = 0; r < 2; ++r) {
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(out->values[r * 3 + j], x[r * 6 + 3 + j]);
  }
}

// Opset 17's LayerNormalization is one IR op.
// Conv and the pools of one and three spatial dims are one IR node each
// (not a reshape to 2-D), with one attribute entry per spatial dim; the
// global pools of other ranks are reductions over the spatial axes.
TEST(ImporterOpsTest, ConvAndPoolsOfOneAndThreeSpatialDims) {
  ModelWriter m(13);
  m.input("signal", {1, 2, 8}).input("video", {1, 2, 3, 4, 5}).output("a").output("v");
  m.floats("w1", {3, 2, 3}, random_floats(18, 1));
  m.floats("w3", {2, 2, 1, 2, 2}, random_floats(16, 2));
  ModelWriter::set_ints(m.node("Conv", "/a/Conv", {"signal", "w1"}, {"a1"}), "pads", {1, 1});
  auto* pool = m.node("AveragePool", "/a/AveragePool", {"a1"}, {"a2"});
  ModelWriter::set_ints(pool, "kernel_shape", {2});
  ModelWriter::set_ints(pool, "pads", {0, 1});
  m.node("GlobalAveragePool", "/a/GlobalAveragePool", {"a2"}, {"a"});
  ModelWriter::set_ints(m.node("Conv", "/v/Conv", {"video", "w3"}, {"v1"}), "strides", {1, 2, 1});
  ModelWriter::set_ints(m.node("MaxPool", "/v/MaxPool", {"v1"}, {"v2"}), "kernel_shape", {1, 2, 2});
  m.node("GlobalMaxPool", "/v/GlobalMaxPool", {"v2"}, {"v"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(ops_of(*graph), (std::vector<std::string>{"conv1d", "avg_pool1d", "reduce_mean",
                                                      "conv3d", "max_pool3d", "reduce_max"}));
  EXPECT_EQ(std::get<Shape>(graph->nodes[0].attributes.at("padding")), (Shape{1}));
  EXPECT_EQ(std::get<Shape>(graph->nodes[1].attributes.at("padding")), (Shape{0, 1}));
  EXPECT_EQ(std::get<Shape>(graph->nodes[3].attributes.at("stride")), (Shape{1, 2, 1}));
  EXPECT_EQ(std::get<Shape>(graph->nodes[5].attributes.at("axes")), (Shape{2, 3, 4}));
}

// BatchNormalization (one spatial dim) and InstanceNormalization (three)
// over N x C x spatial dims, against the per-channel formulas.
TEST(ImporterOpsTest, BatchAndInstanceNormOfOneAndThreeSpatialDims) {
  constexpr float kEps = 1e-5f;
  const float scale[] = {1.5f, -0.5f, 2.0f}, bias[] = {0.1f, 0.2f, -0.3f},
              mean[] = {0.2f, -0.1f, 0.0f}, var[] = {0.5f, 2.0f, 1.0f};
  ModelWriter m(15);
  m.input("a", {2, 3, 4}).output("bn");
  m.floats("scale", {3}, {scale[0], scale[1], scale[2]});
  m.floats("bias", {3}, {bias[0], bias[1], bias[2]});
  m.floats("mean", {3}, {mean[0], mean[1], mean[2]});
  m.floats("var", {3}, {var[0], var[1], var[2]});
  m.node("BatchNormalization", "/bn", {"a", "scale", "bias", "mean", "var"}, {"bn"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(ops_of(*graph), (std::vector<std::string>{"batch_norm"}));
  const std::vector<float> a = random_floats(24, 11);
  StatusOr<Output> bn = run(*graph, {bytes_of(a)});
  ASSERT_TRUE(bn.ok()) << bn.message();
  for (std::size_t i = 0; i < 24; ++i) {
    const std::size_t c = i / 4 % 3;
    EXPECT_NEAR(bn->values[i], (a[i] - mean[c]) / std::sqrt(var[c] + kEps) * scale[c] + bias[c],
                1e-5)
        << i;
  }

  const float g[] = {0.5f, 2.0f}, b[] = {-1.0f, 1.0f};
  ModelWriter n(15);
  n.input("v", {1, 2, 2, 3, 2}).output("in");
  n.floats("g", {2}, {g[0], g[1]});
  n.floats("b", {2}, {b[0], b[1]});
  n.node("InstanceNormalization", "/in", {"v", "g", "b"}, {"in"});
  graph = import_onnx_from_memory(n.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(ops_of(*graph), (std::vector<std::string>{"instance_norm"}));
  const std::vector<float> v = random_floats(24, 12);
  StatusOr<Output> in = run(*graph, {bytes_of(v)});
  ASSERT_TRUE(in.ok()) << in.message();
  for (std::size_t c = 0; c < 2; ++c) {
    double mu = 0, sq = 0;
    for (std::size_t j = 0; j < 12; ++j) mu += v[c * 12 + j] / 12.0;
    for (std::size_t j = 0; j < 12; ++j) sq += (v[c * 12 + j] - mu) * (v[c * 12 + j] - mu) / 12.0;
    for (std::size_t j = 0; j < 12; ++j) {
      EXPECT_NEAR(in->values[c * 12 + j], (v[c * 12 + j] - mu) / std::sqrt(sq + kEps) * g[c] + b[c],
                  1e-4);
    }
  }
}

TEST(ImporterOpsTest, ConvOfFourSpatialDimsIsRefusedByRank) {
  ModelWriter m(13);
  m.input("x", {1, 1, 2, 2, 2, 2}).output("y");
  m.floats("w", {1, 1, 1, 1, 1, 1}, {1});
  m.node("Conv", "/Conv", {"x", "w"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.message().find("the input has rank 6; only 1-D, 2-D and 3-D"), std::string::npos)
      << graph.message();
}

TEST(ImporterOpsTest, LayerNormalizationIsOneOp) {
  ModelWriter m(17);
  m.input("x", {2, 5}).output("y");
  m.floats("g", {5}, {1, 2, 3, 4, 5});
  m.floats("b", {5}, {0, 0, 0, 0, 1});
  m.node("LayerNormalization", "/ln/LayerNormalization", {"x", "g", "b"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  EXPECT_EQ(ops_of(*graph), (std::vector<std::string>{"layer_norm"}));
  const std::vector<float> x = random_floats(10, 7);
  StatusOr<Output> out = run(*graph, {bytes_of(x)});
  ASSERT_TRUE(out.ok()) << out.message();
  for (std::size_t r = 0; r < 2; ++r) {
    double mu = 0, v = 0;
    for (std::size_t j = 0; j < 5; ++j) mu += x[r * 5 + j] / 5.0;
    for (std::size_t j = 0; j < 5; ++j) v += (x[r * 5 + j] - mu) * (x[r * 5 + j] - mu) / 5.0;
    for (std::size_t j = 0; j < 5; ++j) {
      const double want = (x[r * 5 + j] - mu) / std::sqrt(v + 1e-5) * double(j + 1) + (j == 4);
      EXPECT_NEAR(out->values[r * 5 + j], want, 1e-4);
    }
  }
}

// The numeric reference (lower --reference-*) runs graphs whose constants
// are int64 (a Gather index, ViT's class token) as well as float.
TEST(ImporterOpsTest, ReferenceRunTakesIntegerConstants) {
  ModelWriter m(14);
  m.input("x", {1, 5, 4}).output("y");
  m.ints("first", {}, {0});
  auto* gather = m.node("Gather", "/Gather", {"x", "first"}, {"y"});  // x[:, 0]
  ModelWriter::set_int(gather, "axis", 1);
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
  ASSERT_TRUE(graph.ok()) << graph.message();
  const std::vector<float> x = random_floats(20, 8);
  StatusOr<etrecord::ReferenceRun> ref =
      etrecord::run_reference(*graph, std::vector<etrecord::ReferenceTensor>{{{1, 5, 4}, x}});
  ASSERT_TRUE(ref.ok()) << ref.message();
  ASSERT_EQ(ref->outputs.size(), 1u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(ref->outputs[0].data[i], x[i]);
}

// Folding is bounded: a constant subgraph that would compute 2^29 elements
// at import is refused by name, not allocated.
TEST(ImporterOpsTest, RefusesToFoldHugeConstants) {
  ModelWriter m(14);
  m.input("x", {1}).output("y");
  m.floats("one", {1}, {1.0f});
  m.ints("huge", {2}, {std::int64_t{1} << 15, std::int64_t{1} << 14});
  m.node("Expand", "/mask/Expand", {"one", "huge"}, {"mask"});
  m.node("Add", "/Add", {"mask", "x"}, {"y"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "huge.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.message().find("node '/mask/Expand' (Expand)"), std::string::npos)
      << graph.message();
  EXPECT_NE(graph.message().find("too many to compute at import"), std::string::npos);
}

// Opset 20's Gelu, both forms.
TEST(ImporterOpsTest, GeluOfOpsetTwentyInBothForms) {
  for (const std::string approximate : {"none", "tanh"}) {
    ModelWriter m(20);
    m.input("x", {7}).output("y");
    auto* g = m.node("Gelu", "/mlp/act/Gelu", {"x"}, {"y"});
    ModelWriter::set_string(g, "approximate", approximate);
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes());
    ASSERT_TRUE(graph.ok()) << graph.message();
    const std::vector<float> x{-3, -1, -0.5f, 0, 0.5f, 1, 3};
    StatusOr<Output> out = run(*graph, {bytes_of(x)});
    ASSERT_TRUE(out.ok()) << out.message();
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double v = x[i];
      const double want =
          approximate == "none"
              ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
              : 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
      EXPECT_NEAR(out->values[i], want, 1e-6) << approximate << " " << v;
    }
  }
}

}  // namespace
}  // namespace glassbox::frontends::onnx
