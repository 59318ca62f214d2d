// A detector's post-processing in small, imported and run on the portable
// kernels with inputs that keep different numbers of candidates: the
// shape arithmetic after a NonZero (Shape, Gather, Unsqueeze, Concat,
// ReduceMin, Reshape; shape_values.h), TopK by that computed k, Gather and
// ConstantOfShape of the kept candidates' shape (full_like), Slice and
// Reshape of values sized by data (varying_dims.h). And the imports that
// cannot follow the data, refused with a message.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <numeric>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "frontends/onnx/test_run.h"

namespace glassbox::frontends::onnx {
namespace {

using testing::bytes_of;
using testing::ModelWriter;
using testing::Output;
using Shape = std::vector<std::int64_t>;

constexpr std::int64_t kBoxes = 8;
constexpr std::int64_t kTopK = 3;
constexpr float kThreshold = 0.5f;
constexpr float kLabel = 7.0f;

// scores s [8], boxes b [8, 4] -> per kept candidate (score > 0.5, the
// best min(3, kept) by score): its box and the label 7, [k, 5].
ModelWriter post_processing() {
  ModelWriter m(11);
  m.input("s", {kBoxes}).input("b", {kBoxes, 4}).output("out");
  m.floats("t", {}, {kThreshold}).floats("label", {}, {kLabel});
  m.ints("zero", {}, {0}).ints("cap", {1}, {kTopK}).ints("one", {1}, {1});
  m.node("Greater", "/keep", {"s", "t"}, {"mask"});
  m.node("NonZero", "/nz", {"mask"}, {"nz"});
  ModelWriter::set_ints(m.node("Transpose", "/tr", {"nz"}, {"idx"}), "perm", {1, 0});
  m.node("GatherND", "/scores", {"s", "idx"}, {"sc"});
  m.node("GatherND", "/boxes", {"b", "idx"}, {"bx"});
  m.node("Shape", "/shape", {"sc"}, {"sh"});
  m.node("Gather", "/count", {"sh", "zero"}, {"n"});
  ModelWriter::set_ints(m.node("Unsqueeze", "/n1", {"n"}, {"n1"}), "axes", {0});
  ModelWriter::set_int(m.node("Concat", "/pair", {"cap", "n1"}, {"pair"}), "axis", 0);
  ModelWriter::set_int(m.node("ReduceMin", "/k", {"pair"}, {"k"}), "keepdims", 0);
  m.node("Reshape", "/k1", {"k", "one"}, {"k1"});
  m.node("TopK", "/top", {"sc", "k1"}, {"vals", "ids"});
  ModelWriter::set_int(m.node("Gather", "/picked", {"bx", "ids"}, {"sel"}), "axis", 0);
  m.node("Shape", "/vshape", {"vals"}, {"vsh"});
  m.node("ConstantOfShape", "/zeros", {"vsh"}, {"z"});
  m.node("Add", "/labels", {"z", "label"}, {"lab"});
  ModelWriter::set_ints(m.node("Unsqueeze", "/lab1", {"lab"}, {"lab1"}), "axes", {1});
  ModelWriter::set_int(m.node("Concat", "/out", {"sel", "lab1"}, {"out"}), "axis", 1);
  return m;
}

// The reference: the kept candidates, best first (ties to the lower index).
std::vector<double> reference(const std::vector<float>& s, const std::vector<float>& b) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] > kThreshold) kept.push_back(i);
  std::stable_sort(kept.begin(), kept.end(),
                   [&](std::size_t x, std::size_t y) { return s[x] > s[y]; });
  kept.resize(std::min<std::size_t>(kept.size(), kTopK));
  std::vector<double> out;
  for (std::size_t i : kept) {
    for (int c = 0; c < 4; ++c) out.push_back(b[i * 4 + static_cast<std::size_t>(c)]);
    out.push_back(kLabel);
  }
  return out;
}

TEST(ImporterDataSizedTest, PostProcessingFollowsTheNumberOfCandidatesKept) {
  StatusOr<aot::Graph> graph = import_onnx_from_memory(post_processing().bytes(), {}, "m.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<float> boxes(kBoxes * 4);
  std::iota(boxes.begin(), boxes.end(), 1.0f);
  const std::vector<std::vector<float>> score_sets = {
      {0.9f, 0.1f, 0.7f, 0.2f, 0.95f, 0.6f, 0.3f, 0.8f},  // 5 kept: the best 3
      {0.1f, 0.1f, 0.7f, 0.2f, 0.1f, 0.1f, 0.3f, 0.55f},  // 2 kept
      {0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f},   // none
  };
  for (const std::vector<float>& s : score_sets) {
    StatusOr<Output> out = testing::run(*graph, {bytes_of(s), bytes_of(boxes)});
    ASSERT_TRUE(out.ok()) << out.message();
    const std::vector<double> want = reference(s, boxes);
    EXPECT_EQ(out->shape, (Shape{static_cast<std::int64_t>(want.size() / 5), 5}));
    EXPECT_EQ(out->values, want);
  }
}

TEST(ImporterDataSizedTest, AReshapeToItsOwnComputedShapeFollowsTheData) {
  // bx [n, 4] -> Reshape(bx, Concat(Shape(bx)[0:0], [-1])): a flatten as
  // exporters write it; the empty slice of the shape is known and folds.
  ModelWriter m(11);
  m.input("s", {kBoxes}).input("b", {kBoxes, 4}).output("flat");
  m.floats("t", {}, {kThreshold}).ints("minus", {1}, {-1});
  m.ints("s0", {1}, {0}).ints("e0", {1}, {0});
  m.node("Greater", "/keep", {"s", "t"}, {"mask"});
  m.node("NonZero", "/nz", {"mask"}, {"nz"});
  ModelWriter::set_ints(m.node("Transpose", "/tr", {"nz"}, {"idx"}), "perm", {1, 0});
  m.node("GatherND", "/boxes", {"b", "idx"}, {"bx"});
  m.node("Shape", "/shape", {"bx"}, {"sh"});
  m.node("Slice", "/none", {"sh", "s0", "e0"}, {"empty"});  // the known part: folds
  ModelWriter::set_int(m.node("Concat", "/target", {"empty", "minus"}, {"target"}), "axis", 0);
  m.node("Reshape", "/flat", {"bx", "target"}, {"flat"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "m.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<float> boxes(kBoxes * 4);
  std::iota(boxes.begin(), boxes.end(), 0.0f);
  const std::vector<float> s = {0.9f, 0.1f, 0.7f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
  StatusOr<Output> out = testing::run(*graph, {bytes_of(s), bytes_of(boxes)});
  ASSERT_TRUE(out.ok()) << out.message();
  EXPECT_EQ(out->shape, (Shape{8}));
  EXPECT_EQ(out->values, (std::vector<double>{0, 1, 2, 3, 8, 9, 10, 11}));
}

// s [8] -> the scores kept, [n], then `op` of them and `extra`.
StatusOr<aot::Graph> kept_then(const std::string& op, const std::vector<std::string>& extra,
                               ModelWriter& m) {
  m.input("s", {kBoxes}).output("y");
  m.floats("t", {}, {kThreshold});
  m.node("Greater", "/keep", {"s", "t"}, {"mask"});
  m.node("NonZero", "/nz", {"mask"}, {"nz"});
  ModelWriter::set_ints(m.node("Transpose", "/tr", {"nz"}, {"idx"}), "perm", {1, 0});
  m.node("GatherND", "/scores", {"s", "idx"}, {"sc"});
  std::vector<std::string> inputs = {"sc"};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  m.node(op, "/tail", inputs, {"y"});
  return import_onnx_from_memory(m.bytes(), {}, "m.onnx");
}

TEST(ImporterDataSizedTest, WhatCannotFollowTheDataIsRefusedAtImport) {
  {
    // The last two kept: counted from an end that moves with the data.
    ModelWriter m(11);
    m.ints("starts", {1}, {-2}).ints("ends", {1}, {1000});
    StatusOr<aot::Graph> g = kept_then("Slice", {"starts", "ends"}, m);
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.message().find("counted from its end"), std::string::npos) << g.message();
  }
  {
    // Added to a fixed [8]: holds only when all 8 are kept.
    ModelWriter m(11);
    m.floats("all", {kBoxes}, std::vector<float>(kBoxes, 1.0f));
    StatusOr<aot::Graph> g = kept_then("Add", {"all"}, m);
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.message().find("cannot follow a size that depends on data"), std::string::npos)
        << g.message();
  }
}

TEST(ImporterDataSizedTest, TheFirstKeptAreASliceThatFollowsTheData) {
  // [:2] of the kept scores: min(2, kept) of them.
  ModelWriter m(11);
  m.ints("starts", {1}, {0}).ints("ends", {1}, {2});
  StatusOr<aot::Graph> graph = kept_then("Slice", {"starts", "ends"}, m);
  ASSERT_TRUE(graph.ok()) << graph.message();
  for (const auto& [s, want] : std::vector<std::pair<std::vector<float>, std::vector<double>>>{
           {{0.9f, 0.1f, 0.7f, 0.6f, 0.1f, 0.1f, 0.1f, 0.1f}, {0.9f, 0.7f}},
           {{0.1f, 0.1f, 0.1f, 0.6f, 0.1f, 0.1f, 0.1f, 0.1f}, {0.6f}}}) {
    StatusOr<Output> out = testing::run(*graph, {bytes_of(s)});
    ASSERT_TRUE(out.ok()) << out.message();
    EXPECT_EQ(out->values, want);
  }
}

}  // namespace
}  // namespace glassbox::frontends::onnx
