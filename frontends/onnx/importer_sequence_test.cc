// CumSum, OneHot, LpPool and 1-D / 3-D Resize imported and run on the
// portable kernels against naive references written here (ONNX's node
// suite covers CumSum and OneHot too; it has no LpPool or 1-D/3-D Resize
// case). Each ONNX node stays one source operator: every IR node it
// becomes carries one debug handle.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <set>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "frontends/onnx/test_run.h"
#include "glassbox/aot/ops.h"

namespace glassbox::frontends::onnx {
namespace {

using testing::bytes_of;
using testing::ModelWriter;
using testing::Output;
using testing::run;
using Shape = std::vector<std::int64_t>;

std::vector<float> wave(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.7f * static_cast<float>(i)) * 1.5f;
  return v;
}

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d;
  return n;
}

// Imports `m` and runs it on x, checking that its ONNX node stays one
// source operator, however many IR ops it became.
Output import_and_run_one_op(const ModelWriter& m, const std::vector<std::uint8_t>& x) {
  return testing::import_and_run(m, {x}, [](const aot::Graph& graph) {
    std::set<std::uint32_t> handles;
    for (const aot::Node& n : graph.nodes) handles.insert(n.debug_handle.value);
    EXPECT_EQ(handles.size(), 1u) << "one source operator";
  });
}

// ---- LpPool

struct LpCase {
  Shape x;  // N, C, spatial...
  Shape kernel, stride, pads;
  std::int64_t p;
};

// The naive LpPool: every output, every window position, zero outside.
std::vector<double> lp_pool_reference(const LpCase& c, const std::vector<float>& x, Shape* out) {
  const std::size_t n = c.kernel.size();
  *out = {c.x[0], c.x[1]};
  for (std::size_t d = 0; d < n; ++d) {
    out->push_back((c.x[2 + d] + c.pads[d] + c.pads[n + d] - c.kernel[d]) / c.stride[d] + 1);
  }
  std::vector<double> y;
  const std::int64_t count = numel(*out);
  for (std::int64_t o = 0; o < count; ++o) {
    Shape at(2 + n);
    std::int64_t rest = o;
    for (std::size_t d = 2 + n; d-- > 0;) {
      at[d] = rest % (*out)[d];
      rest /= (*out)[d];
    }
    double sum = 0;
    for (std::int64_t k = 0; k < numel(c.kernel); ++k) {
      std::int64_t kr = k, offset = at[0] * c.x[1] + at[1];
      bool inside = true;
      Shape pos(n);
      for (std::size_t d = n; d-- > 0;) {
        pos[d] = at[2 + d] * c.stride[d] - c.pads[d] + kr % c.kernel[d];
        kr /= c.kernel[d];
        inside = inside && pos[d] >= 0 && pos[d] < c.x[2 + d];
      }
      if (!inside) continue;
      for (std::size_t d = 0; d < n; ++d) offset = offset * c.x[2 + d] + pos[d];
      sum += std::pow(std::abs(static_cast<double>(x[static_cast<std::size_t>(offset)])),
                      static_cast<double>(c.p));
    }
    y.push_back(std::pow(sum, 1.0 / static_cast<double>(c.p)));
  }
  return y;
}

TEST(ImporterSequenceTest, LpPoolMatchesTheReferenceInEveryRank) {
  const LpCase cases[] = {
      {{1, 2, 9}, {3}, {2}, {1, 0}, 1},
      {{1, 2, 5, 6}, {2, 3}, {1, 2}, {0, 1, 1, 0}, 2},
      {{1, 2, 4, 5, 3}, {2, 2, 2}, {2, 1, 1}, {1, 0, 0, 0, 1, 1}, 3},
  };
  for (const LpCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "spatial rank " << c.kernel.size() << ", p " << c.p);
    ModelWriter m(18);
    m.input("x", c.x).output("y");
    auto* node = m.node("LpPool", "/pool/LpPool", {"x"}, {"y"});
    ModelWriter::set_ints(node, "kernel_shape", c.kernel);
    ModelWriter::set_ints(node, "strides", c.stride);
    ModelWriter::set_ints(node, "pads", c.pads);
    ModelWriter::set_int(node, "p", c.p);
    const std::vector<float> x = wave(static_cast<std::size_t>(numel(c.x)));
    Shape expected_shape;
    const std::vector<double> expected = lp_pool_reference(c, x, &expected_shape);
    const Output out = import_and_run_one_op(m, bytes_of(x));
    EXPECT_EQ(out.shape, expected_shape);
    ASSERT_EQ(out.values.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_NEAR(out.values[i], expected[i], 1e-5 * (1 + std::abs(expected[i]))) << i;
    }
  }
}

TEST(ImporterSequenceTest, LpPoolRefusesCeilModeAndBadP) {
  for (auto [attribute, value, fragment] :
       {std::tuple{"ceil_mode", 1, "ceil_mode"}, std::tuple{"p", 0, "'p' must be >= 1"}}) {
    ModelWriter m(18);
    m.input("x", {1, 1, 6}).output("y");
    auto* node = m.node("LpPool", "pool", {"x"}, {"y"});
    ModelWriter::set_ints(node, "kernel_shape", {2});
    ModelWriter::set_int(node, attribute, value);
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "m.onnx");
    ASSERT_FALSE(graph.ok());
    EXPECT_NE(graph.message().find(fragment), std::string::npos) << graph.message();
  }
}

// ---- Resize 1-D and 3-D

// ONNX's coordinate for output index `o` of a dim resized from `in` to `out`.
double source_coordinate(const std::string& transform, std::int64_t o, std::int64_t in,
                         std::int64_t out) {
  const double scale = static_cast<double>(out) / static_cast<double>(in);
  if (transform == "align_corners") {
    return out == 1 ? 0.0
                    : static_cast<double>(o) * static_cast<double>(in - 1) /
                          static_cast<double>(out - 1);
  }
  if (transform == "asymmetric") return static_cast<double>(o) / scale;
  return (static_cast<double>(o) + 0.5) / scale - 0.5;  // half_pixel
}

// The naive N-linear or nearest (round_prefer_floor) resize over the
// spatial dims of x: each output element from the 2^n (or one) taps.
std::vector<double> resize_reference(const Shape& in, const Shape& out, const std::string& mode,
                                     const std::string& transform, const std::vector<float>& x) {
  const std::size_t n = in.size() - 2;
  std::vector<double> y;
  for (std::int64_t o = 0; o < numel(out); ++o) {
    Shape at(in.size());
    std::int64_t rest = o;
    for (std::size_t d = in.size(); d-- > 0;) {
      at[d] = rest % out[d];
      rest /= out[d];
    }
    std::vector<std::int64_t> lo(n), hi(n);
    std::vector<double> w(n);
    for (std::size_t d = 0; d < n; ++d) {
      const std::int64_t len = in[2 + d];
      double coord = source_coordinate(transform, at[2 + d], len, out[2 + d]);
      if (mode == "nearest") {
        // round_prefer_floor: halves go down.
        const double f = std::floor(coord);
        coord = coord - f > 0.5 ? f + 1 : f;
        lo[d] = hi[d] = std::clamp<std::int64_t>(static_cast<std::int64_t>(coord), 0, len - 1);
        w[d] = 0;
        continue;
      }
      coord = std::clamp(coord, 0.0, static_cast<double>(len - 1));
      lo[d] = static_cast<std::int64_t>(std::floor(coord));
      hi[d] = std::min(lo[d] + 1, len - 1);
      w[d] = coord - static_cast<double>(lo[d]);
    }
    double value = 0;
    for (std::int64_t corner = 0; corner < (std::int64_t{1} << n); ++corner) {
      double weight = 1;
      std::int64_t offset = at[0] * in[1] + at[1];
      for (std::size_t d = 0; d < n; ++d) {
        const bool upper = (corner >> d) & 1;
        weight *= upper ? w[d] : 1 - w[d];
        offset = offset * in[2 + d] + (upper ? hi[d] : lo[d]);
      }
      if (weight != 0) value += weight * x[static_cast<std::size_t>(offset)];
    }
    y.push_back(value);
  }
  return y;
}

TEST(ImporterSequenceTest, ResizeOneAndThreeDimensionalMatchesTheReference) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{1, 2, 5}, {1, 2, 8}},
      {{1, 2, 6}, {1, 2, 4}},
      {{1, 2, 3, 4, 5}, {1, 2, 5, 3, 7}},
  };
  for (const auto& [in, out] : shapes) {
    for (const std::string mode : {"nearest", "linear"}) {
      for (const std::string transform : {"half_pixel", "align_corners", "asymmetric"}) {
        SCOPED_TRACE(::testing::Message()
                     << "rank " << in.size() << " " << mode << " " << transform);
        ModelWriter m(13);
        m.input("x", in).output("y").ints("sizes", {static_cast<std::int64_t>(out.size())}, out);
        auto* node = m.node("Resize", "/up/Resize", {"x", "", "", "sizes"}, {"y"});
        ModelWriter::set_string(node, "mode", mode);
        ModelWriter::set_string(node, "coordinate_transformation_mode", transform);
        const std::vector<float> x = wave(static_cast<std::size_t>(numel(in)));
        const std::vector<double> expected = resize_reference(in, out, mode, transform, x);
        const Output y = import_and_run_one_op(m, bytes_of(x));
        EXPECT_EQ(y.shape, out);
        ASSERT_EQ(y.values.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
          EXPECT_NEAR(y.values[i], expected[i], 1e-5) << i;
        }
      }
    }
  }
}

TEST(ImporterSequenceTest, ResizeRefusesOtherRanksAndTfHalfPixelIn3D) {
  {
    ModelWriter m(13);
    m.input("x", {4, 5}).output("y").ints("sizes", {2}, {4, 10});
    m.node("Resize", "r", {"x", "", "", "sizes"}, {"y"});
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "m.onnx");
    ASSERT_FALSE(graph.ok());
    EXPECT_NE(graph.message().find("Resize of rank 2"), std::string::npos) << graph.message();
  }
  ModelWriter m(13);
  m.input("x", {1, 1, 2, 2, 2}).output("y").ints("sizes", {5}, {1, 1, 4, 4, 4});
  auto* node = m.node("Resize", "r", {"x", "", "", "sizes"}, {"y"});
  ModelWriter::set_string(node, "coordinate_transformation_mode", "tf_half_pixel_for_nn");
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "m.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.message().find("tf_half_pixel_for_nn"), std::string::npos) << graph.message();
}

// ---- CumSum and OneHot (their modes are the kernel's test and the node suite's)

TEST(ImporterSequenceTest, CumSumIsOneNodeWithItsAxisAndModes) {
  ModelWriter m(14);
  m.input("x", {2, 3}).output("y").ints("axis", {}, {-1});
  auto* node = m.node("CumSum", "c", {"x", "axis"}, {"y"});
  ModelWriter::set_int(node, "reverse", 1);
  ModelWriter::set_int(node, "exclusive", 1);
  const Output out = import_and_run_one_op(m, bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(out.values, (std::vector<double>{5, 3, 0, 11, 6, 0}));
}

TEST(ImporterSequenceTest, OneHotMarksInRangeIndicesAndNoneElse) {
  ModelWriter m(11);
  m.input("i", {2, 2}, ::onnx::TensorProto::INT64).output("y");
  m.floats("depth", {}, {3.0f}).floats("values", {2}, {-1.0f, 5.0f});
  auto* node = m.node("OneHot", "h", {"i", "depth", "values"}, {"y"});
  ModelWriter::set_int(node, "axis", 1);
  // -1 is index 2; 3 and -4 lie outside [-3, 3): all "off".
  const Output out = import_and_run_one_op(m, bytes_of(std::vector<std::int64_t>{0, -1, 3, -4}));
  EXPECT_EQ(out.shape, (Shape{2, 3, 2}));
  // y[a][k][b] = on where index[a][b] marks k.
  EXPECT_EQ(out.values, (std::vector<double>{5, -1, -1, -1, -1, 5,  //
                                             -1, -1, -1, -1, -1, -1}));
}

}  // namespace
}  // namespace glassbox::frontends::onnx
