// GatherND and ScatterElements imported and run on the portable kernels
// against naive references written here, on cases ONNX's node suite does
// not have: GatherND with batch dims and negative indices, ScatterElements
// with a negative axis, negative and repeated indices and reduction add;
// RoiAlign's per-opset default transform against its kernel (the kernel's
// own test holds it to a naive reference); Unique's data-sized output.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "frontends/onnx/test_run.h"
#include "glassbox/runtime/kernels/roi_align.h"

namespace glassbox::frontends::onnx {
namespace {

using testing::bytes_of;
using testing::import_and_run;
using testing::ModelWriter;
using testing::Output;

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.5f * static_cast<float>(i) - 3.0f;
  return v;
}

TEST(ImporterDetectionTest, GatherNdWithBatchDimsAndNegativeIndicesMatchesTheReference) {
  // data [2, 3, 4, 2], batch_dims 1, indices [2, 2, 2]: each batch entry
  // picks two [2] rows data[b, i0, i1, :].
  const std::vector<std::int64_t> idx = {0,  -1, 2, 3,    // batch 0
                                         -3, 0,  1, -2};  // batch 1
  ModelWriter m(13);
  m.input("x", {2, 3, 4, 2}).ints("i", {2, 2, 2}, idx).output("y");
  auto* node = m.node("GatherND", "g", {"x", "i"}, {"y"});
  ModelWriter::set_int(node, "batch_dims", 1);
  const std::vector<float> x = ramp(48);
  const Output out = import_and_run(m, {bytes_of(x)});
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{2, 2, 2}));
  std::vector<double> expected;
  for (int b = 0; b < 2; ++b) {
    for (int k = 0; k < 2; ++k) {
      std::int64_t i0 = idx[static_cast<std::size_t>(b * 4 + k * 2)];
      std::int64_t i1 = idx[static_cast<std::size_t>(b * 4 + k * 2 + 1)];
      if (i0 < 0) i0 += 3;
      if (i1 < 0) i1 += 4;
      for (int e = 0; e < 2; ++e) {
        expected.push_back(x[static_cast<std::size_t>(((b * 3 + i0) * 4 + i1) * 2 + e)]);
      }
    }
  }
  EXPECT_EQ(out.values, expected);
}

TEST(ImporterDetectionTest, ADecomposedGatherNdLeavesTheNextNodesNameAlone) {
  // PyTorch numbers nodes "g", "g_1": the first GatherND's helper nodes must
  // not take "g_1" (the second would become "g_1_1" in every view).
  ModelWriter m(13);
  m.input("x", {4, 2}).input("i", {3, 1}, ::onnx::TensorProto::INT64).output("z");
  m.node("GatherND", "g", {"x", "i"}, {"y"});
  m.node("GatherND", "g_1", {"y", "i"}, {"z"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "m.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::size_t named_g1 = 0;
  for (const aot::Node& n : graph->nodes) {
    EXPECT_NE(n.name, "g_1_1");
    if (n.name == "g_1") ++named_g1;
  }
  EXPECT_EQ(named_g1, 1u);
}

TEST(ImporterDetectionTest, ScatterElementsAddOnANegativeAxisMatchesTheReference) {
  // data [2, 3, 2], axis -2 (1), indices and updates [2, 2, 2] with a
  // repeated and a negative index: reduction add sums both.
  const std::vector<std::int64_t> idx = {0, 2, 0, -1, 1, 1, -3, 1};
  const std::vector<float> upd = {1, 2, 3, 4, 5, 6, 7, 8};
  ModelWriter m(16);
  m.input("x", {2, 3, 2}).ints("i", {2, 2, 2}, idx).floats("u", {2, 2, 2}, upd).output("y");
  auto* node = m.node("ScatterElements", "s", {"x", "i", "u"}, {"y"});
  ModelWriter::set_int(node, "axis", -2);
  ModelWriter::set_string(node, "reduction", "add");
  const std::vector<float> x = ramp(12);
  const Output out = import_and_run(m, {bytes_of(x)});
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{2, 3, 2}));
  std::vector<double> expected(x.begin(), x.end());
  for (int a = 0; a < 2; ++a) {
    for (int j = 0; j < 2; ++j) {
      for (int c = 0; c < 2; ++c) {
        const std::size_t e = static_cast<std::size_t>((a * 2 + j) * 2 + c);
        std::int64_t t = idx[e];
        if (t < 0) t += 3;
        expected[static_cast<std::size_t>((a * 3 + t) * 2 + c)] += upd[e];
      }
    }
  }
  EXPECT_EQ(out.values, expected);
}

TEST(ImporterDetectionTest, ScatterElementsRefusesMaxReduction) {
  ModelWriter m(18);
  m.input("x", {3}).ints("i", {1}, {0}).floats("u", {1}, {1}).output("y");
  auto* node = m.node("ScatterElements", "s", {"x", "i", "u"}, {"y"});
  ModelWriter::set_string(node, "reduction", "max");
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "m.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.message().find("reduction 'max'"), std::string::npos) << graph.message();
}

TEST(ImporterDetectionTest, RoiAlignTakesEachOpsetsDefaultTransform) {
  // Without coordinate_transformation_mode, opset 10 pools as
  // output_half_pixel (its only behaviour) and opset 16 as half_pixel (its
  // default); mode max and the other attributes pass through. The rois and
  // batch indices are constants, as an exporter writes fixed anchors.
  const runtime::kernels::Shape4 shape{2, 3, 6, 7};
  const std::vector<float> rois = {0.5f, 1.0f, 5.0f, 4.5f, 2.0f, 0.0f, 6.5f, 5.5f};
  const std::vector<std::int64_t> batch = {1, 0};
  const std::vector<float> x = ramp(static_cast<std::size_t>(shape.numel()));
  std::vector<std::vector<double>> results;
  for (std::int64_t opset : {10, 16}) {
    SCOPED_TRACE(::testing::Message() << "opset " << opset);
    ModelWriter m(opset);
    m.input("x", {2, 3, 6, 7}).floats("r", {2, 4}, rois).ints("b", {2}, batch).output("y");
    auto* node = m.node("RoiAlign", "roi", {"x", "r", "b"}, {"y"});
    ModelWriter::set_string(node, "mode", "max");
    ModelWriter::set_int(node, "output_height", 2);
    ModelWriter::set_int(node, "output_width", 3);
    ModelWriter::set_int(node, "sampling_ratio", 2);
    ModelWriter::set_float(node, "spatial_scale", 0.75f);
    const Output out = import_and_run(m, {bytes_of(x)});
    EXPECT_EQ(out.shape, (std::vector<std::int64_t>{2, 3, 2, 3}));
    runtime::kernels::RoiAlignParams p;
    p.output_height = 2;
    p.output_width = 3;
    p.sampling_ratio = 2;
    p.spatial_scale = 0.75f;
    p.mode = runtime::kernels::RoiAlignMode::kMax;
    p.half_pixel = opset >= 16;
    std::vector<float> expected(2 * 3 * 2 * 3);
    ASSERT_EQ(runtime::kernels::roi_align(x.data(), shape, rois.data(), batch.data(), 2, p,
                                          expected.data()),
              Error::kOk);
    EXPECT_EQ(out.values, std::vector<double>(expected.begin(), expected.end()));
    results.push_back(out.values);
  }
  EXPECT_NE(results[0], results[1]) << "the two transforms pooled alike";
}

TEST(ImporterDetectionTest, UniqueWithOnlyItsFirstOutputIsSizedByTheData) {
  // The model asks for Y alone (the other three outputs are computed and
  // not bound); Y's size is the number of distinct values, found at run
  // time within the bound the memory plan reserved (all six distinct).
  ModelWriter m(11);
  m.input("x", {6}).output("y");
  auto* node = m.node("Unique", "u", {"x"}, {"y"});
  ModelWriter::set_int(node, "sorted", 0);
  const std::vector<float> x = {2.5f, -1.0f, 2.5f, 7.0f, -1.0f, 2.5f};
  const Output out = import_and_run(m, {bytes_of(x)});
  // First occurrences in order, as a naive scan finds them.
  std::vector<double> expected;
  for (float v : x) {
    if (std::find(expected.begin(), expected.end(), v) == expected.end()) expected.push_back(v);
  }
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{static_cast<std::int64_t>(expected.size())}));
  EXPECT_EQ(out.values, expected);
}

}  // namespace
}  // namespace glassbox::frontends::onnx
