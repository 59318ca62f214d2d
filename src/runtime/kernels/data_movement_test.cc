#include "glassbox/runtime/kernels/data_movement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using Shape = std::vector<std::int64_t>;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

// The references below address tensors through explicit multi-indices
// (unravel / ravel), unlike the kernels' offset walks.
std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

Shape unravel(std::int64_t linear, const Shape& shape) {
  Shape index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

std::int64_t ravel(const Shape& index, const Shape& shape) {
  std::int64_t linear = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
  return linear;
}

// 1, 2, 3, ... in T: starting at 1 so a zero fill is visible. uint8 wraps
// after 255, harmless for correctness (the reference reads the same data).
template <typename T>
std::vector<T> counting(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i + 1);
  return v;
}

template <typename T>
T at(const std::vector<T>& v, std::int64_t i) {
  return v[static_cast<std::size_t>(i)];
}

// Runs `check<T>()` for every element size the kernels accept.
template <template <typename> class Check>
void for_each_element_type() {
  {
    SCOPED_TRACE("uint8");
    Check<std::uint8_t>{}();
  }
  {
    SCOPED_TRACE("uint16");
    Check<std::uint16_t>{}();
  }
  {
    SCOPED_TRACE("float");
    Check<float>{}();
  }
  {
    SCOPED_TRACE("int64");
    Check<std::int64_t>{}();
  }
}

// ------------------------------------------------------------------ Pad

// numpy.pad on the cropped tensor; reflect bounces until inside.
template <typename T>
std::vector<T> reference_pad(const std::vector<T>& x, const Shape& shape, const Shape& begin,
                             const Shape& end, PadMode mode, T value) {
  Shape out(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) out[d] = shape[d] + begin[d] + end[d];
  std::vector<T> y(static_cast<std::size_t>(numel(out)));
  for (std::int64_t i = 0; i < numel(out); ++i) {
    const Shape o = unravel(i, out);
    Shape src(shape.size());
    bool constant = false;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const std::int64_t lo = std::max<std::int64_t>(0, -begin[d]);
      const std::int64_t len = shape[d] - lo - std::max<std::int64_t>(0, -end[d]);
      std::int64_t j = o[d] - std::max<std::int64_t>(0, begin[d]);
      if (j < 0 || j >= len) {
        if (mode == PadMode::kConstant) constant = true;
        if (mode == PadMode::kEdge) j = std::clamp<std::int64_t>(j, 0, len - 1);
        while (mode == PadMode::kReflect && (j < 0 || j >= len)) j = j < 0 ? -j : 2 * (len - 1) - j;
      }
      src[d] = lo + j;
    }
    y[static_cast<std::size_t>(i)] = constant ? value : at(x, ravel(src, shape));
  }
  return y;
}

struct PadCase {
  Shape shape;
  Shape begin;
  Shape end;
  PadMode mode;
};

template <typename T>
struct CheckPad {
  void operator()() const {
    const std::vector<PadCase> cases = {
        {{3, 4}, {1, 2}, {2, 0}, PadMode::kConstant},
        {{3, 4}, {2, 3}, {1, 2}, PadMode::kReflect},
        {{2, 3, 4}, {1, 2, 3}, {2, 1, 0}, PadMode::kEdge},
        {{2, 3, 4}, {0, 2, 3}, {0, 2, 3}, PadMode::kReflect},
        // Negative pads crop; a dim may be cropped on one side and padded
        // on the other.
        {{4, 5}, {-1, 2}, {1, -2}, PadMode::kConstant},
        {{4, 6}, {-1, 2}, {1, -2}, PadMode::kReflect},
        {{4, 5}, {-2, 3}, {-1, -3}, PadMode::kEdge},
        {{1, 2, 1, 3, 2}, {0, 1, 2, 0, 1}, {1, 0, 0, 2, 1}, PadMode::kConstant},
        {{2, 1, 2, 3, 2, 2}, {1, 0, 1, 2, 1, 0}, {0, 1, 1, 2, 0, 1}, PadMode::kEdge},
        // Empty input, constant padding only.
        {{0, 3}, {1, 0}, {1, 1}, PadMode::kConstant},
        {{3, 2}, {0, -1}, {0, -1}, PadMode::kConstant},
        {{3, 2}, {0, -1}, {0, -1}, PadMode::kEdge},  // empty result
        {{}, {}, {}, PadMode::kReflect},
    };
    const T value = static_cast<T>(99);
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const PadCase& pc = cases[c];
      const auto x = counting<T>(numel(pc.shape));
      const auto want = reference_pad(x, pc.shape, pc.begin, pc.end, pc.mode, value);
      Result<Dims> out = pad_output_shape(pc.shape, pc.begin, pc.end);
      ASSERT_TRUE(out.ok());
      ASSERT_EQ(out->numel(), static_cast<std::int64_t>(want.size()));
      std::vector<T> y(want.size(), static_cast<T>(7));
      ASSERT_EQ(pad(x.data(), pc.shape, sizeof(T), pc.begin, pc.end, pc.mode, &value, y.data()),
                Error::kOk);
      EXPECT_EQ(y, want);
    }
  }
};

TEST(PadTest, MatchesReferenceForEveryElementSize) { for_each_element_type<CheckPad>(); }

// The examples of the ONNX Pad operator page.
TEST(PadTest, OnnxExamples) {
  const std::vector<float> x = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  const Shape shape = {3, 2};
  const Shape begin = {0, 2};
  const Shape end = {0, 0};
  std::vector<float> y(12);
  ASSERT_EQ(pad(x.data(), shape, 4, begin, end, PadMode::kConstant, nullptr, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f}));
  // The page's reflect example pads 2 on a dim of 2, which needs numpy's
  // repeated reflection; we reject pads >= the size (as documented), so
  // pad by 1 here.
  EXPECT_EQ(pad(x.data(), shape, 4, begin, end, PadMode::kReflect, nullptr, y.data()),
            Error::kInvalidArgument);
  const Shape begin1 = {0, 1};
  std::vector<float> y9(9);
  ASSERT_EQ(pad(x.data(), shape, 4, begin1, end, PadMode::kReflect, nullptr, y9.data()),
            Error::kOk);
  EXPECT_EQ(y9, (std::vector<float>{1.2f, 1.0f, 1.2f, 3.4f, 2.3f, 3.4f, 5.7f, 4.5f, 5.7f}));
  ASSERT_EQ(pad(x.data(), shape, 4, begin, end, PadMode::kEdge, nullptr, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f, 4.5f, 4.5f, 4.5f,
                                   5.7f}));
}

TEST(PadTest, RejectsBadPads) {
  const Shape shape = {3, 2};
  float x[6] = {};
  float y[64] = {};
  auto run = [&](Shape begin, Shape end, PadMode mode, std::size_t element_size = 4) {
    return pad(x, shape, element_size, begin, end, mode, nullptr, y);
  };
  EXPECT_EQ(run({0, 2}, {0, 0}, PadMode::kReflect), Error::kInvalidArgument)
      << "reflect pad must be < size";
  EXPECT_EQ(run({0, 0}, {3, 0}, PadMode::kReflect), Error::kInvalidArgument);
  EXPECT_EQ(run({0, 1}, {0, 0}, PadMode::kReflect), Error::kOk);
  EXPECT_EQ(run({-2, 0}, {-1, 0}, PadMode::kConstant), Error::kOk);
  EXPECT_EQ(run({-2, 0}, {-2, 0}, PadMode::kConstant), Error::kInvalidArgument)
      << "crops exceed the size";
  EXPECT_EQ(run({-3, 0}, {1, 0}, PadMode::kEdge), Error::kInvalidArgument)
      << "edge of an empty extent";
  EXPECT_EQ(run({-3, 1}, {0, 0}, PadMode::kEdge), Error::kOk)
      << "empty extent, but nothing to pad along it";
  EXPECT_EQ(run({kMin, 0}, {0, 0}, PadMode::kConstant), Error::kInvalidArgument);
  EXPECT_EQ(run({0}, {0}, PadMode::kConstant), Error::kInvalidArgument);
  EXPECT_EQ(run({0, 0}, {0, 0}, PadMode::kConstant, 3), Error::kInvalidArgument);
  EXPECT_EQ(run({0, 0}, {0, 0}, static_cast<PadMode>(9)), Error::kInvalidArgument);
  EXPECT_EQ(pad(nullptr, shape, 4, Shape{0, 0}, Shape{0, 0}, PadMode::kConstant, nullptr, y),
            Error::kInvalidArgument);
  const Shape huge_begin = {kMax, 0};
  const Shape one = {1, 0};
  EXPECT_EQ(pad_output_shape(shape, huge_begin, one).error(), Error::kInvalidArgument);
  // Fits int64 as a size, but not as a byte count.
  const Shape big = {kMax / 4, 0};
  const Shape zero = {0, 0};
  EXPECT_TRUE(pad_output_shape(shape, big, zero).ok());
  EXPECT_EQ(run(big, zero, PadMode::kConstant), Error::kInvalidArgument);
}

// --------------------------------------------------------------- Expand

template <typename T>
std::vector<T> reference_expand(const std::vector<T>& x, const Shape& x_shape,
                                const Shape& y_shape) {
  std::vector<T> y(static_cast<std::size_t>(numel(y_shape)));
  const std::size_t lead = y_shape.size() - x_shape.size();
  for (std::int64_t i = 0; i < numel(y_shape); ++i) {
    const Shape o = unravel(i, y_shape);
    Shape src(x_shape.size());
    for (std::size_t d = 0; d < x_shape.size(); ++d) src[d] = o[lead + d] % x_shape[d];
    y[static_cast<std::size_t>(i)] = at(x, ravel(src, x_shape));
  }
  return y;
}

template <typename T>
struct CheckExpand {
  void operator()() const {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{3, 1}, {2, 3, 4}},
        {{1}, {5}},
        {{2, 1, 3}, {2, 4, 3}},
        {{}, {2, 2}},
        {{4}, {3, 1, 4}},
        {{1, 1, 1}, {1, 1, 1}},
        {{2, 1, 3, 1}, {2, 2, 3, 5}},
        {{1, 3, 1, 2, 1, 1}, {2, 3, 2, 2, 1, 3}},
        {{0}, {2, 0}},
        {{1}, {0}},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const auto& [x_shape, y_shape] = cases[c];
      const auto x = counting<T>(numel(x_shape));
      const auto want = reference_expand(x, x_shape, y_shape);
      std::vector<T> y(want.size());
      ASSERT_EQ(expand(x.data(), x_shape, sizeof(T), y_shape, y.data()), Error::kOk);
      EXPECT_EQ(y, want);
    }
  }
};

TEST(ExpandTest, MatchesReferenceForEveryElementSize) { for_each_element_type<CheckExpand>(); }

TEST(ExpandTest, RejectsShapesThatDoNotBroadcast) {
  float buf[64] = {};
  EXPECT_EQ(expand(buf, Shape{2}, 4, Shape{3}, buf), Error::kInvalidArgument);
  EXPECT_EQ(expand(buf, Shape{2, 3}, 4, Shape{3}, buf), Error::kInvalidArgument);
  EXPECT_EQ(expand(buf, Shape{3, 1}, 4, Shape{1, 4}, buf), Error::kInvalidArgument)
      << "y_shape must already be the broadcast shape";
  EXPECT_EQ(expand(buf, Shape{-1}, 4, Shape{3}, buf), Error::kInvalidArgument);
  EXPECT_EQ(expand(nullptr, Shape{1}, 4, Shape{3}, buf), Error::kInvalidArgument);
  EXPECT_EQ(expand(buf, Shape{1}, 4, Shape{kMax / 2}, buf), Error::kInvalidArgument);
  EXPECT_EQ(expand(buf, Shape{1, 1, 1, 1, 1, 1, 1}, 4, Shape{1, 1, 1, 1, 1, 1, 1}, buf),
            Error::kInvalidArgument);
}

// ----------------------------------------------------------------- Tile

template <typename T>
struct CheckTile {
  void operator()() const {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{2, 3}, {2, 2}},
        {{1, 2, 3}, {3, 1, 2}},
        {{4}, {3}},
        {{2, 2}, {1, 1}},
        {{2, 1, 3}, {1, 4, 1}},
        {{2, 3}, {0, 2}},
        {{}, {}},
        {{1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 2}},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const auto& [x_shape, repeats] = cases[c];
      Shape y_shape(x_shape.size());
      for (std::size_t d = 0; d < x_shape.size(); ++d) y_shape[d] = x_shape[d] * repeats[d];
      const auto x = counting<T>(numel(x_shape));
      // Tile's y is Expand's modulo rule, without the broadcast restriction.
      std::vector<T> want(static_cast<std::size_t>(numel(y_shape)));
      for (std::int64_t i = 0; i < numel(y_shape); ++i) {
        Shape src = unravel(i, y_shape);
        for (std::size_t d = 0; d < src.size(); ++d) src[d] %= x_shape[d];
        want[static_cast<std::size_t>(i)] = at(x, ravel(src, x_shape));
      }
      Result<Dims> out = tile_output_shape(x_shape, repeats);
      ASSERT_TRUE(out.ok());
      EXPECT_EQ(out->numel(), numel(y_shape));
      std::vector<T> y(want.size());
      ASSERT_EQ(tile(x.data(), x_shape, sizeof(T), repeats, y.data()), Error::kOk);
      EXPECT_EQ(y, want);
    }
  }
};

TEST(TileTest, MatchesReferenceForEveryElementSize) { for_each_element_type<CheckTile>(); }

TEST(TileTest, RejectsBadRepeats) {
  float buf[16] = {};
  EXPECT_EQ(tile(buf, Shape{2}, 4, Shape{-1}, buf), Error::kInvalidArgument);
  EXPECT_EQ(tile(buf, Shape{2}, 4, Shape{1, 1}, buf), Error::kInvalidArgument);
  EXPECT_EQ(tile_output_shape(Shape{2, 2}, Shape{kMax, 1}).error(), Error::kInvalidArgument);
  EXPECT_EQ(tile(buf, Shape{2, 2}, 4, Shape{kMax / 4, 1}, buf), Error::kInvalidArgument);
  EXPECT_EQ(tile(nullptr, Shape{2}, 4, Shape{2}, buf), Error::kInvalidArgument);
}

// ---------------------------------------------------------------- Slice

TEST(SliceBoundsTest, FollowsOnnxClamping) {
  struct Case {
    std::int64_t dim, start, end, step, want_start, want_count;
  };
  // Expected values from Python's range(dim)[start:end:step], which ONNX
  // Slice follows except where marked.
  const Case cases[] = {
      {10, 0, 10, 1, 0, 10},
      {10, 2, 8, 3, 2, 2},
      {10, -3, kMax, 1, 7, 3},
      {10, kMin, kMax, 1, 0, 10},
      {10, kMax, kMin, -1, 9, 10},
      {10, -1, kMin, -1, 9, 10},
      {10, 8, 2, -2, 8, 3},
      {10, -100, 100, 4, 0, 3},
      {10, 100, -100, -3, 9, 4},
      {10, 5, 5, 1, 5, 0},
      {10, 7, 3, 1, 7, 0},
      {10, 3, 7, -1, 3, 0},
      {10, 0, kMax, kMax, 0, 1},
      {10, kMax, kMin, kMin, 9, 1},
      {10, 9, kMin, kMin, 9, 1},
      {1, 0, 1, 1, 0, 1},
      {1, -1, kMin, -1, 0, 1},
      {5, 1, -1, 2, 1, 2},
      {5, -2, -5, -1, 3, 3},
      {0, 0, kMax, 1, 0, 0},
      {0, -1, kMin, -1, 0, 0},
      {7, -7, 7, 2, 0, 4},
      // Not Python: a negative step clamps start to [0, dim-1], so a start
      // before the beginning still takes element 0 (Python takes nothing).
      {5, -10, -10, -1, 0, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.dim << " " << c.start << ":" << c.end << ":" << c.step);
    std::int64_t start = -7;
    std::int64_t count = -7;
    ASSERT_EQ(slice_bounds(c.dim, c.start, c.end, c.step, &start, &count), Error::kOk);
    EXPECT_EQ(count, c.want_count);
    if (c.want_count > 0) {
      EXPECT_EQ(start, c.want_start);
    }
  }
  std::int64_t s = 0;
  std::int64_t n = 0;
  EXPECT_EQ(slice_bounds(5, 0, 5, 0, &s, &n), Error::kInvalidArgument);
  EXPECT_EQ(slice_bounds(-1, 0, 5, 1, &s, &n), Error::kInvalidArgument);
  EXPECT_EQ(slice_bounds(5, 0, 5, 1, nullptr, &n), Error::kInvalidArgument);
}

struct SliceCase {
  Shape x_shape;
  Shape starts;
  Shape steps;
  Shape y_shape;
};

template <typename T>
struct CheckSlice {
  void operator()() const {
    const std::vector<SliceCase> cases = {
        {{10}, {9}, {-1}, {10}},
        {{10}, {1}, {3}, {3}},
        {{4, 5, 6}, {1, 0, 5}, {2, 1, -2}, {2, 5, 3}},
        {{4, 5, 6}, {3, 4, 0}, {-1, -3, 1}, {4, 2, 6}},
        {{3, 4}, {2, 1}, {kMax, kMin}, {1, 1}},  // huge steps, one element
        {{2, 3, 2, 3, 2, 3}, {1, 0, 1, 2, 0, 1}, {-1, 2, 1, -1, 1, 1}, {2, 2, 1, 3, 2, 2}},
        {{4, 5}, {0, 7}, {1, 1}, {4, 0}},  // empty: start not checked
        {{}, {}, {}, {}},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const SliceCase& sc = cases[c];
      const auto x = counting<T>(numel(sc.x_shape));
      std::vector<T> want(static_cast<std::size_t>(numel(sc.y_shape)));
      for (std::int64_t i = 0; i < numel(sc.y_shape); ++i) {
        Shape src = unravel(i, sc.y_shape);
        for (std::size_t d = 0; d < src.size(); ++d) src[d] = sc.starts[d] + src[d] * sc.steps[d];
        want[static_cast<std::size_t>(i)] = at(x, ravel(src, sc.x_shape));
      }
      std::vector<T> y(want.size());
      ASSERT_EQ(slice(x.data(), sc.x_shape, sizeof(T), sc.starts, sc.steps, sc.y_shape, y.data()),
                Error::kOk);
      EXPECT_EQ(y, want);
    }
  }
};

TEST(SliceTest, MatchesReferenceForEveryElementSize) { for_each_element_type<CheckSlice>(); }

TEST(SliceTest, WithBoundsFromSliceBounds) {
  // x[1:-1, ::-2] on a 4 x 5 tensor, as an ONNX node would prepare it.
  const Shape x_shape = {4, 5};
  Shape starts(2);
  Shape y_shape(2);
  const Shape steps = {1, -2};
  ASSERT_EQ(slice_bounds(4, 1, -1, 1, &starts[0], &y_shape[0]), Error::kOk);
  ASSERT_EQ(slice_bounds(5, kMax, kMin, -2, &starts[1], &y_shape[1]), Error::kOk);
  const auto x = counting<float>(20);
  std::vector<float> y(6);
  ASSERT_EQ(slice(x.data(), x_shape, 4, starts, steps, y_shape, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{10, 8, 6, 15, 13, 11}));
}

TEST(SliceTest, RejectsOutOfRangeAccess) {
  float buf[20] = {};
  float out[32] = {};
  const Shape x_shape = {4, 5};
  auto run = [&](Shape starts, Shape steps, Shape y_shape) {
    return slice(buf, x_shape, 4, starts, steps, y_shape, out);
  };
  EXPECT_EQ(run({0, 0}, {1, 1}, {4, 5}), Error::kOk);
  EXPECT_EQ(run({1, 0}, {1, 1}, {4, 5}), Error::kInvalidArgument);
  EXPECT_EQ(run({0, 4}, {1, -1}, {4, 6}), Error::kInvalidArgument);
  EXPECT_EQ(run({-1, 0}, {1, 1}, {1, 5}), Error::kInvalidArgument);
  EXPECT_EQ(run({0, 0}, {0, 1}, {1, 5}), Error::kInvalidArgument);
  EXPECT_EQ(run({0, 0}, {kMax, 1}, {2, 5}), Error::kInvalidArgument);
  EXPECT_EQ(run({3, 0}, {kMin, 1}, {2, 5}), Error::kInvalidArgument);
  EXPECT_EQ(run({0}, {1}, {4}), Error::kInvalidArgument);
  EXPECT_EQ(slice(nullptr, x_shape, 4, Shape{0, 0}, Shape{1, 1}, Shape{1, 1}, buf),
            Error::kInvalidArgument);
}

// --------------------------------------------------------------- Gather

template <typename T>
std::vector<T> reference_gather(const std::vector<T>& data, const Shape& data_shape,
                                const std::vector<std::int64_t>& indices,
                                const Shape& indices_shape, std::size_t axis) {
  Shape out(data_shape.begin(), data_shape.begin() + static_cast<long>(axis));
  out.insert(out.end(), indices_shape.begin(), indices_shape.end());
  out.insert(out.end(), data_shape.begin() + static_cast<long>(axis) + 1, data_shape.end());
  std::vector<T> y(static_cast<std::size_t>(numel(out)));
  for (std::int64_t i = 0; i < numel(out); ++i) {
    const Shape o = unravel(i, out);
    const Shape idx(o.begin() + static_cast<long>(axis),
                    o.begin() + static_cast<long>(axis + indices_shape.size()));
    std::int64_t v = at(indices, ravel(idx, indices_shape));
    if (v < 0) v += data_shape[axis];
    Shape src(o.begin(), o.begin() + static_cast<long>(axis));
    src.push_back(v);
    src.insert(src.end(), o.begin() + static_cast<long>(axis + indices_shape.size()), o.end());
    y[static_cast<std::size_t>(i)] = at(data, ravel(src, data_shape));
  }
  return y;
}

struct GatherCase {
  Shape data_shape;
  Shape indices_shape;
  std::vector<std::int64_t> indices;
  std::int64_t axis;
};

template <typename T>
struct CheckGather {
  void operator()() const {
    const std::vector<GatherCase> cases = {
        {{5, 3}, {2, 2}, {0, 4, -1, 2}, 0},
        {{2, 5, 3}, {3}, {4, 0, -5}, 1},
        {{2, 5, 3}, {2, 2}, {2, 0, 1, -3}, -1},
        {{3, 4}, {}, {-2}, 1},  // scalar index drops the dim
        {{3, 4}, {0}, {}, 0},   // no indices: empty output
        {{2, 3, 4}, {2, 1, 2}, {1, 0, 0, 1}, 0},
        {{2, 3, 2, 2}, {1, 3}, {2, 2, 0}, 1},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const GatherCase& gc = cases[c];
      const std::size_t ax = static_cast<std::size_t>(
          gc.axis < 0 ? gc.axis + static_cast<std::int64_t>(gc.data_shape.size()) : gc.axis);
      const auto data = counting<T>(numel(gc.data_shape));
      const auto want = reference_gather(data, gc.data_shape, gc.indices, gc.indices_shape, ax);
      Result<Dims> out = gather_output_shape(gc.data_shape, gc.indices_shape, gc.axis);
      ASSERT_TRUE(out.ok());
      EXPECT_EQ(out->numel(), static_cast<std::int64_t>(want.size()));
      EXPECT_EQ(out->rank, gc.data_shape.size() - 1 + gc.indices_shape.size());
      std::vector<T> y(want.size());
      ASSERT_EQ(gather(data.data(), gc.data_shape, sizeof(T), gc.indices.data(), gc.indices_shape,
                       gc.axis, y.data()),
                Error::kOk);
      EXPECT_EQ(y, want);
    }
  }
};

TEST(GatherTest, MatchesReferenceForEveryElementSize) { for_each_element_type<CheckGather>(); }

TEST(GatherTest, RejectsBadIndicesWithoutWriting) {
  const auto data = counting<float>(6);
  const Shape data_shape = {2, 3};
  const Shape two = {2};
  std::vector<float> y(4, -1.0f);
  const std::int64_t too_big[] = {1, 3};
  const std::int64_t too_small[] = {-4, 0};
  EXPECT_EQ(gather(data.data(), data_shape, 4, too_big, two, 1, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(gather(data.data(), data_shape, 4, too_small, two, 1, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(y, std::vector<float>(4, -1.0f));
  const std::int64_t ok[] = {0, 1};
  EXPECT_EQ(gather(data.data(), data_shape, 4, ok, two, 2, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(gather(data.data(), data_shape, 4, ok, two, -3, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(gather(data.data(), data_shape, 4, nullptr, two, 0, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(gather(data.data(), data_shape, 5, ok, two, 0, y.data()), Error::kInvalidArgument);
  const Shape scalar = {};
  EXPECT_EQ(gather(data.data(), scalar, 4, ok, two, 0, y.data()), Error::kInvalidArgument);
  const Shape rank4 = {1, 1, 1, 2};
  EXPECT_EQ(gather_output_shape(rank4, rank4, 0).error(), Error::kInvalidArgument)
      << "output rank 7";
}

// ------------------------------------------------------- GatherElements

TEST(GatherElementsTest, OnnxExamples) {
  const std::vector<float> data = {1, 2, 3, 4};
  const std::vector<std::int64_t> indices = {0, 0, 1, 0};
  const Shape shape = {2, 2};
  std::vector<float> y(4);
  ASSERT_EQ(gather_elements(data.data(), shape, 4, indices.data(), shape, 1, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{1, 1, 4, 3}));

  const std::vector<std::int64_t> data3 = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<std::int64_t> indices3 = {1, 2, 0, 2, 0, 0};
  const Shape data3_shape = {3, 3};
  const Shape indices3_shape = {2, 3};
  std::vector<std::int64_t> y3(6);
  ASSERT_EQ(
      gather_elements(data3.data(), data3_shape, 8, indices3.data(), indices3_shape, 0, y3.data()),
      Error::kOk);
  EXPECT_EQ(y3, (std::vector<std::int64_t>{4, 8, 3, 7, 2, 3}));
}

template <typename T>
struct CheckGatherElements {
  void operator()() const {
    struct Case {
      Shape data_shape;
      Shape indices_shape;
      std::int64_t axis;
    };
    const std::vector<Case> cases = {
        {{3, 4, 5}, {2, 4, 3}, 0},       {{3, 4, 5}, {3, 6, 5}, 1},
        {{3, 4, 5}, {1, 2, 7}, -1},      {{6}, {9}, 0},
        {{2, 3, 1, 2}, {2, 2, 1, 2}, 2}, {{3, 4}, {0, 4}, 1},
    };
    std::uint32_t seed = 1;
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const Case& gc = cases[c];
      const std::size_t ax = static_cast<std::size_t>(
          gc.axis < 0 ? gc.axis + static_cast<std::int64_t>(gc.data_shape.size()) : gc.axis);
      const std::int64_t len = gc.data_shape[ax];
      // Indices in [-len, len): negative ones count from the end.
      const auto r =
          testing::random_floats(static_cast<std::size_t>(numel(gc.indices_shape)), seed++);
      std::vector<std::int64_t> indices(r.size());
      for (std::size_t i = 0; i < r.size(); ++i)
        indices[i] = std::min(
            len - 1, static_cast<std::int64_t>(std::floor(r[i] * static_cast<float>(len))));
      const auto data = counting<T>(numel(gc.data_shape));
      std::vector<T> want(indices.size());
      for (std::int64_t i = 0; i < numel(gc.indices_shape); ++i) {
        Shape src = unravel(i, gc.indices_shape);
        const std::int64_t v = at(indices, i);
        src[ax] = v < 0 ? v + len : v;
        want[static_cast<std::size_t>(i)] = at(data, ravel(src, gc.data_shape));
      }
      std::vector<T> y(want.size());
      ASSERT_EQ(gather_elements(data.data(), gc.data_shape, sizeof(T), indices.data(),
                                gc.indices_shape, gc.axis, y.data()),
                Error::kOk);
      EXPECT_EQ(y, want);
    }
  }
};

TEST(GatherElementsTest, MatchesReferenceForEveryElementSize) {
  for_each_element_type<CheckGatherElements>();
}

TEST(GatherElementsTest, RejectsBadInputs) {
  const auto data = counting<float>(6);
  const Shape shape = {2, 3};
  std::vector<float> y(12, -1.0f);  // room for the largest shape below
  const std::vector<std::int64_t> bad = {0, 1, 2, 0, 1, 3};
  EXPECT_EQ(gather_elements(data.data(), shape, 4, bad.data(), shape, 1, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(y, std::vector<float>(12, -1.0f));
  const std::vector<std::int64_t> ok(12, 0);  // valid for every shape below
  const Shape wider = {2, 4};
  const Shape taller = {3, 3};
  const Shape rank1 = {6};
  EXPECT_EQ(gather_elements(data.data(), shape, 4, ok.data(), wider, 0, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(gather_elements(data.data(), shape, 4, ok.data(), taller, 1, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(gather_elements(data.data(), shape, 4, ok.data(), rank1, 0, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(gather_elements(data.data(), shape, 4, ok.data(), shape, 2, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(gather_elements(data.data(), shape, 4, nullptr, shape, 0, y.data()),
            Error::kInvalidArgument);
}

// ------------------------------------------------------------ ScatterND

TEST(ScatterNdTest, OnnxExamples) {
  const std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int64_t> indices = {4, 3, 1, 7};
  const std::vector<float> updates = {9, 10, 11, 12};
  const Shape data_shape = {8};
  const Shape indices_shape = {4, 1};
  const Shape updates_shape = {4};
  std::vector<float> y(8);
  ASSERT_EQ(scatter_nd(data.data(), data_shape, 4, indices.data(), indices_shape, updates.data(),
                       updates_shape, ScatterReduction::kNone, true, y.data()),
            Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));

  // Example 2: whole 4x4 slabs of a 4x4x4 tensor.
  std::vector<std::int64_t> data2(64);
  const std::int64_t base[16] = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 16; ++i) data2[static_cast<std::size_t>(b * 16 + i)] = base[i];
  const std::vector<std::int64_t> indices2 = {0, 2};
  std::vector<std::int64_t> updates2(32);
  for (int i = 0; i < 16; ++i) {
    updates2[static_cast<std::size_t>(i)] = 5 + i / 4;
    updates2[static_cast<std::size_t>(16 + i)] = 1 + i / 4;
  }
  const Shape data2_shape = {4, 4, 4};
  const Shape indices2_shape = {2, 1};
  const Shape updates2_shape = {2, 4, 4};
  std::vector<std::int64_t> y2(64);
  ASSERT_EQ(scatter_nd(data2.data(), data2_shape, 8, indices2.data(), indices2_shape,
                       updates2.data(), updates2_shape, ScatterReduction::kNone, false, y2.data()),
            Error::kOk);
  std::vector<std::int64_t> want2 = data2;
  std::copy(updates2.begin(), updates2.begin() + 16, want2.begin());
  std::copy(updates2.begin() + 16, updates2.end(), want2.begin() + 32);
  EXPECT_EQ(y2, want2);
}

struct ScatterCase {
  Shape data_shape;
  Shape indices_shape;
  std::vector<std::int64_t> indices;
};

// Applies each update by decoding the full data index of every element.
template <typename T>
std::vector<T> reference_scatter_nd(std::vector<T> y, const ScatterCase& sc,
                                    const std::vector<T>& updates, ScatterReduction reduction) {
  const std::size_t k = static_cast<std::size_t>(sc.indices_shape.back());
  const Shape tail(sc.data_shape.begin() + static_cast<long>(k), sc.data_shape.end());
  std::int64_t tuples = 1;
  for (std::size_t i = 0; i + 1 < sc.indices_shape.size(); ++i) tuples *= sc.indices_shape[i];
  for (std::int64_t t = 0; t < tuples; ++t) {
    for (std::int64_t e = 0; e < numel(tail); ++e) {
      Shape idx;
      for (std::size_t j = 0; j < k; ++j) {
        std::int64_t v =
            at(sc.indices, t * static_cast<std::int64_t>(k) + static_cast<std::int64_t>(j));
        idx.push_back(v < 0 ? v + sc.data_shape[j] : v);
      }
      const Shape rest = unravel(e, tail);
      idx.insert(idx.end(), rest.begin(), rest.end());
      T& dst = y[static_cast<std::size_t>(ravel(idx, sc.data_shape))];
      const T u = at(updates, t * numel(tail) + e);
      if (reduction == ScatterReduction::kNone) dst = u;
      if (reduction == ScatterReduction::kAdd) dst = static_cast<T>(dst + u);
      if (reduction == ScatterReduction::kMul) dst = static_cast<T>(dst * u);
    }
  }
  return y;
}

Shape scatter_updates_shape(const ScatterCase& sc) {
  Shape s(sc.indices_shape.begin(), sc.indices_shape.end() - 1);
  s.insert(s.end(), sc.data_shape.begin() + sc.indices_shape.back(), sc.data_shape.end());
  return s;
}

const std::vector<ScatterCase>& scatter_cases() {
  static const std::vector<ScatterCase> cases = {
      {{3, 4, 5}, {2, 2}, {0, 1, -1, 3}},
      {{3, 4, 5}, {2, 2, 3}, {0, 0, 0, 2, 3, 4, -3, -4, -5, 1, 1, 1}},
      {{3, 4}, {3, 1}, {2, 2, 0}},  // duplicate index: applied in order
      {{6}, {1, 0}, {}},            // k == 0: the whole tensor
      {{2, 3, 2, 2}, {2, 3}, {1, 2, 0, 0, 0, 1}},
  };
  return cases;
}

template <typename T>
struct CheckScatterNd {
  void operator()() const {
    for (std::size_t c = 0; c < scatter_cases().size(); ++c) {
      SCOPED_TRACE(c);
      const ScatterCase& sc = scatter_cases()[c];
      const Shape updates_shape = scatter_updates_shape(sc);
      const auto data = counting<T>(numel(sc.data_shape));
      std::vector<T> updates = counting<T>(numel(updates_shape));
      for (T& u : updates) u = static_cast<T>(u + 100);
      const auto want = reference_scatter_nd(data, sc, updates, ScatterReduction::kNone);
      std::vector<T> y(data.size());
      ASSERT_EQ(
          scatter_nd(data.data(), sc.data_shape, sizeof(T), sc.indices.data(), sc.indices_shape,
                     updates.data(), updates_shape, ScatterReduction::kNone, false, y.data()),
          Error::kOk);
      EXPECT_EQ(y, want);
      // In place: y == data.
      std::vector<T> in_place = data;
      ASSERT_EQ(scatter_nd(in_place.data(), sc.data_shape, sizeof(T), sc.indices.data(),
                           sc.indices_shape, updates.data(), updates_shape, ScatterReduction::kNone,
                           false, in_place.data()),
                Error::kOk);
      EXPECT_EQ(in_place, want);
    }
  }
};

TEST(ScatterNdTest, MatchesReferenceForEveryElementSize) {
  for_each_element_type<CheckScatterNd>();
}

TEST(ScatterNdTest, AddAndMulReduceDuplicates) {
  for (ScatterReduction reduction : {ScatterReduction::kAdd, ScatterReduction::kMul}) {
    for (std::size_t c = 0; c < scatter_cases().size(); ++c) {
      SCOPED_TRACE(c);
      const ScatterCase& sc = scatter_cases()[c];
      const Shape updates_shape = scatter_updates_shape(sc);
      const auto data = testing::random_floats(static_cast<std::size_t>(numel(sc.data_shape)), 11);
      const auto updates =
          testing::random_floats(static_cast<std::size_t>(numel(updates_shape)), 12);
      const auto want = reference_scatter_nd(data, sc, updates, reduction);
      std::vector<float> y(data.size());
      ASSERT_EQ(scatter_nd(data.data(), sc.data_shape, 4, sc.indices.data(), sc.indices_shape,
                           updates.data(), updates_shape, reduction, true, y.data()),
                Error::kOk);
      EXPECT_EQ(y, want);  // same float operations in the same order
    }
  }
}

TEST(ScatterNdTest, RejectsBadInputsWithoutWriting) {
  const auto data = counting<float>(12);
  const Shape data_shape = {3, 4};
  const Shape indices_shape = {2, 1};
  const Shape updates_shape = {2, 4};
  const auto updates = counting<float>(8);
  std::vector<float> y(12, -1.0f);
  auto run = [&](const std::vector<std::int64_t>& indices, Shape ishape, Shape ushape,
                 ScatterReduction reduction, bool is_float, std::size_t element_size = 4) {
    return scatter_nd(data.data(), data_shape, element_size, indices.data(), ishape, updates.data(),
                      ushape, reduction, is_float, y.data());
  };
  EXPECT_EQ(run({0, 3}, indices_shape, updates_shape, ScatterReduction::kNone, true),
            Error::kInvalidArgument);
  EXPECT_EQ(run({-4, 0}, indices_shape, updates_shape, ScatterReduction::kNone, true),
            Error::kInvalidArgument);
  EXPECT_EQ(y, std::vector<float>(12, -1.0f));
  EXPECT_EQ(run({0, 1}, indices_shape, {2, 3}, ScatterReduction::kNone, true),
            Error::kInvalidArgument);
  EXPECT_EQ(run({0, 1}, indices_shape, {4, 2}, ScatterReduction::kNone, true),
            Error::kInvalidArgument);
  EXPECT_EQ(run({0, 1, 2}, {1, 3}, {1}, ScatterReduction::kNone, true), Error::kInvalidArgument)
      << "k > rank";
  EXPECT_EQ(run({0, 1}, indices_shape, updates_shape, ScatterReduction::kAdd, false),
            Error::kInvalidArgument)
      << "reductions need float";
  EXPECT_EQ(run({0, 1}, indices_shape, updates_shape, ScatterReduction::kMul, true, 8),
            Error::kInvalidArgument);
  EXPECT_EQ(run({0, 1}, indices_shape, updates_shape, static_cast<ScatterReduction>(7), true),
            Error::kInvalidArgument);
  EXPECT_EQ(run({0, 1}, indices_shape, updates_shape, ScatterReduction::kNone, true), Error::kOk);
}

// ------------------------------------------ DepthToSpace, SpaceToDepth

// The ONNX definitions: reshape to 6-D, transpose, reshape back.
template <typename T>
std::vector<T> reshape_transpose(const std::vector<T>& x, const Shape& shape6, const Shape& perm) {
  Shape out(6);
  for (std::size_t i = 0; i < 6; ++i) out[i] = shape6[static_cast<std::size_t>(perm[i])];
  std::vector<T> y(x.size());
  for (std::int64_t i = 0; i < numel(out); ++i) {
    const Shape o = unravel(i, out);
    Shape src(6);
    for (std::size_t d = 0; d < 6; ++d) src[static_cast<std::size_t>(perm[d])] = o[d];
    y[static_cast<std::size_t>(i)] = at(x, ravel(src, shape6));
  }
  return y;
}

template <typename T>
struct CheckDepthSpace {
  void operator()() const {
    const std::vector<std::pair<Shape4, std::int64_t>> cases = {
        {{1, 8, 2, 3}, 2},  {{2, 18, 2, 1}, 3}, {{1, 4, 3, 3}, 1},
        {{2, 12, 1, 2}, 2}, {{0, 4, 2, 2}, 2},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(c);
      const auto [s, b] = cases[c];
      const auto x = counting<T>(s.numel());
      const std::int64_t cb = s.c / (b * b);
      const auto dcr = reshape_transpose(x, {s.n, b, b, cb, s.h, s.w}, {0, 3, 4, 1, 5, 2});
      const auto crd = reshape_transpose(x, {s.n, cb, b, b, s.h, s.w}, {0, 1, 4, 2, 5, 3});
      Result<Shape4> out = depth_to_space_output_shape(s, b);
      ASSERT_TRUE(out.ok());
      EXPECT_EQ(*out, (Shape4{s.n, cb, s.h * b, s.w * b}));
      std::vector<T> y(x.size());
      ASSERT_EQ(depth_to_space(x.data(), s, sizeof(T), b, false, y.data()), Error::kOk);
      EXPECT_EQ(y, dcr);
      ASSERT_EQ(depth_to_space(x.data(), s, sizeof(T), b, true, y.data()), Error::kOk);
      EXPECT_EQ(y, crd);
      // SpaceToDepth of the DCR result gives x back; also check it
      // directly against its own definition.
      const Shape4 space = *out;
      const auto s2d = reshape_transpose(dcr, {space.n, space.c, space.h / b, b, space.w / b, b},
                                         {0, 3, 5, 1, 2, 4});
      EXPECT_EQ(s2d, x);
      Result<Shape4> back = space_to_depth_output_shape(space, b);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, s);
      ASSERT_EQ(space_to_depth(dcr.data(), space, sizeof(T), b, y.data()), Error::kOk);
      EXPECT_EQ(y, x);
    }
  }
};

TEST(DepthToSpaceTest, MatchesOnnxDefinitionForEveryElementSize) {
  for_each_element_type<CheckDepthSpace>();
}

TEST(DepthToSpaceTest, OnnxCrdExample) {
  // ONNX DepthToSpace, mode CRD: x = arange(16) as [1, 4, 2, 2], b = 2.
  std::vector<float> x(16);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  std::vector<float> y(16);
  ASSERT_EQ(depth_to_space(x.data(), Shape4{1, 4, 2, 2}, 4, 2, true, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
}

TEST(DepthToSpaceTest, RejectsBadShapes) {
  float buf[64] = {};
  EXPECT_EQ(depth_to_space(buf, Shape4{1, 6, 2, 2}, 4, 2, false, buf), Error::kInvalidArgument);
  EXPECT_EQ(depth_to_space(buf, Shape4{1, 4, 2, 2}, 4, 0, false, buf), Error::kInvalidArgument);
  EXPECT_EQ(depth_to_space(buf, Shape4{1, -4, 2, 2}, 4, 2, false, buf), Error::kInvalidArgument);
  EXPECT_EQ(depth_to_space(nullptr, Shape4{1, 4, 2, 2}, 4, 2, false, buf), Error::kInvalidArgument);
  EXPECT_EQ(depth_to_space_output_shape(Shape4{0, 4, kMax / 2, 1}, 4).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(depth_to_space_output_shape(Shape4{1, 4, 1, 1}, kMax).error(), Error::kInvalidArgument);
  EXPECT_EQ(space_to_depth(buf, Shape4{1, 1, 3, 4}, 4, 2, buf), Error::kInvalidArgument);
  EXPECT_EQ(space_to_depth(buf, Shape4{1, 1, 4, 4}, 4, -2, buf), Error::kInvalidArgument);
  EXPECT_EQ(space_to_depth(buf, Shape4{1, 1, 4, 4}, 6, 2, buf), Error::kInvalidArgument);
}

// --------------------------------------------------------------- Resize

// The ONNX spec per output pixel, in double: coordinate transform, then
// for nearest the rounding rule, for linear the ONNX reference's scheme
// (neighbours floor(x) and floor(x)+1 of the edge-padded axis, ratio in
// (0, 1]), which needs no clamping of the coordinate.
double ref_coordinate(CoordinateTransform t, std::int64_t o, double scale, std::int64_t in,
                      std::int64_t out) {
  const double x = static_cast<double>(o);
  switch (t) {
    case CoordinateTransform::kHalfPixel: return (x + 0.5) / scale - 0.5;
    case CoordinateTransform::kPytorchHalfPixel: return out == 1 ? 0.0 : (x + 0.5) / scale - 0.5;
    case CoordinateTransform::kAlignCorners:
      return out == 1 ? 0.0 : x * double(in - 1) / double(out - 1);
    case CoordinateTransform::kAsymmetric: return x / scale;
    case CoordinateTransform::kTfHalfPixelForNn: return (x + 0.5) / scale;
  }
  return 0.0;
}

std::int64_t ref_nearest(double x, NearestRounding r, std::int64_t in) {
  double v = 0.0;
  switch (r) {
    case NearestRounding::kRoundPreferFloor:
      v = (x - std::floor(x) == 0.5) ? std::floor(x) : std::round(x);
      break;
    case NearestRounding::kRoundPreferCeil:
      v = (x - std::floor(x) == 0.5) ? std::ceil(x) : std::round(x);
      break;
    case NearestRounding::kFloor: v = std::floor(x); break;
    case NearestRounding::kCeil: v = std::ceil(x); break;
  }
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(v), 0, in - 1);
}

// Two neighbours and weights along one axis, per the ONNX reference.
struct RefTaps {
  std::int64_t lo, hi;
  double w_lo, w_hi;
};

RefTaps ref_linear(double x, std::int64_t in) {
  double base = std::floor(x);
  double ratio = x - base;
  if (ratio == 0.0) {  // prefer the left neighbour: ratio in (0, 1]
    ratio = 1.0;
    base -= 1.0;
  }
  auto edge = [&](double i) {
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(i), 0, in - 1);
  };
  return {edge(base), edge(base + 1.0), 1.0 - ratio, ratio};
}

std::vector<double> reference_resize(const std::vector<float>& x, Shape4 xs, Shape4 ys,
                                     ResizeMode mode, CoordinateTransform t, NearestRounding r,
                                     double scale_h, double scale_w) {
  std::vector<double> y(static_cast<std::size_t>(ys.numel()));
  for (std::int64_t p = 0; p < ys.n * ys.c; ++p) {
    for (std::int64_t oh = 0; oh < ys.h; ++oh) {
      for (std::int64_t ow = 0; ow < ys.w; ++ow) {
        const double ch = ref_coordinate(t, oh, scale_h, xs.h, ys.h);
        const double cw = ref_coordinate(t, ow, scale_w, xs.w, ys.w);
        auto in = [&](std::int64_t h, std::int64_t w) {
          return double{at(x, (p * xs.h + h) * xs.w + w)};
        };
        double v = 0.0;
        if (mode == ResizeMode::kNearest) {
          v = in(ref_nearest(ch, r, xs.h), ref_nearest(cw, r, xs.w));
        } else {
          const RefTaps th = ref_linear(ch, xs.h);
          const RefTaps tw = ref_linear(cw, xs.w);
          v = th.w_lo * (tw.w_lo * in(th.lo, tw.lo) + tw.w_hi * in(th.lo, tw.hi)) +
              th.w_hi * (tw.w_lo * in(th.hi, tw.lo) + tw.w_hi * in(th.hi, tw.hi));
        }
        y[static_cast<std::size_t>((p * ys.h + oh) * ys.w + ow)] = v;
      }
    }
  }
  return y;
}

struct ResizeCase {
  Shape4 x;
  std::int64_t out_h, out_w;
};

TEST(ResizeTest, MatchesSpecFormulaForEveryTransformAndRounding) {
  const std::vector<ResizeCase> cases = {
      {{1, 2, 4, 5}, 8, 10},                        // 2x up
      {{2, 1, 8, 6}, 4, 3},                         // 2x down
      {{1, 3, 3, 5}, 5, 3},                         // non-integer scales both ways
      {{1, 1, 7, 4}, 3, 9},  {{1, 2, 5, 1}, 1, 4},  // output length 1, input length 1
      {{1, 1, 1, 1}, 3, 2},
  };
  const CoordinateTransform transforms[] = {
      CoordinateTransform::kHalfPixel, CoordinateTransform::kPytorchHalfPixel,
      CoordinateTransform::kAlignCorners, CoordinateTransform::kAsymmetric,
      CoordinateTransform::kTfHalfPixelForNn};
  const NearestRounding roundings[] = {NearestRounding::kRoundPreferFloor,
                                       NearestRounding::kRoundPreferCeil, NearestRounding::kFloor,
                                       NearestRounding::kCeil};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const ResizeCase& rc = cases[c];
    const Shape4 ys{rc.x.n, rc.x.c, rc.out_h, rc.out_w};
    const auto x = testing::random_floats(static_cast<std::size_t>(rc.x.numel()),
                                          static_cast<std::uint32_t>(c));
    const double sh = double(ys.h) / double(rc.x.h);
    const double sw = double(ys.w) / double(rc.x.w);
    std::vector<float> y(static_cast<std::size_t>(ys.numel()));
    for (CoordinateTransform t : transforms) {
      SCOPED_TRACE(::testing::Message() << "case " << c << " transform " << static_cast<int>(t));
      const auto linear =
          reference_resize(x, rc.x, ys, ResizeMode::kLinear, t, NearestRounding::kFloor, sh, sw);
      ASSERT_EQ(resize(x.data(), rc.x, ys, ResizeMode::kLinear, t, NearestRounding::kFloor, nullptr,
                       y.data()),
                Error::kOk);
      // Four float products of |x| <= 1 with weights summing to 1, and the
      // weights themselves rounded to float: a few ulp of 1.
      for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], linear[i], 1e-6) << "at " << i;
      for (NearestRounding r : roundings) {
        SCOPED_TRACE(static_cast<int>(r));
        const auto nearest = reference_resize(x, rc.x, ys, ResizeMode::kNearest, t, r, sh, sw);
        ASSERT_EQ(resize(x.data(), rc.x, ys, ResizeMode::kNearest, t, r, nullptr, y.data()),
                  Error::kOk);
        for (std::size_t i = 0; i < y.size(); ++i)
          ASSERT_EQ(double{y[i]}, nearest[i]) << "at " << i;
      }
    }
  }
}

TEST(ResizeTest, ExplicitScalesChangeTheCoordinates) {
  // Scales 2.6 x 1.7 on 2 x 5 give the sizes floor(5.2) x floor(8.5) =
  // 5 x 8, the same as the size ratios 2.5 x 1.6, but other coordinates.
  const Shape4 xs{1, 2, 2, 5};
  const Shape4 ys{1, 2, 5, 8};
  const float scales[] = {2.6f, 1.7f};
  const auto x = testing::random_floats(20, 3);
  std::vector<float> y(80);
  ASSERT_EQ(resize(x.data(), xs, ys, ResizeMode::kLinear, CoordinateTransform::kHalfPixel,
                   NearestRounding::kRoundPreferFloor, scales, y.data()),
            Error::kOk);
  const auto want =
      reference_resize(x, xs, ys, ResizeMode::kLinear, CoordinateTransform::kHalfPixel,
                       NearestRounding::kRoundPreferFloor, double{scales[0]}, double{scales[1]});
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want[i], 1e-6) << "at " << i;
  const auto by_size =
      reference_resize(x, xs, ys, ResizeMode::kLinear, CoordinateTransform::kHalfPixel,
                       NearestRounding::kRoundPreferFloor, 2.5, 1.6);
  double largest = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i)
    largest = std::max(largest, std::abs(y[i] - by_size[i]));
  EXPECT_GT(largest, 1e-3) << "scales_hw was ignored";
}

// Test vectors from ONNX's resize node tests.
TEST(ResizeTest, OnnxNodeTestVectors) {
  const std::vector<float> x = {1, 2, 3, 4};
  const Shape4 xs{1, 1, 2, 2};
  {  // test_resize_upsample_scales_nearest: scales 2 x 3
    const float scales[] = {2.0f, 3.0f};
    std::vector<float> y(24);
    ASSERT_EQ(resize(x.data(), xs, Shape4{1, 1, 4, 6}, ResizeMode::kNearest,
                     CoordinateTransform::kHalfPixel, NearestRounding::kRoundPreferFloor, scales,
                     y.data()),
              Error::kOk);
    EXPECT_EQ(y, (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                                     3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  }
  {  // test_resize_upsample_scales_linear: scales 2 x 2
    const float scales[] = {2.0f, 2.0f};
    std::vector<float> y(16);
    ASSERT_EQ(resize(x.data(), xs, Shape4{1, 1, 4, 4}, ResizeMode::kLinear,
                     CoordinateTransform::kHalfPixel, NearestRounding::kRoundPreferFloor, scales,
                     y.data()),
              Error::kOk);
    EXPECT_EQ(y, (std::vector<float>{1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f,
                                     3.25f, 3.5f, 3, 3.25f, 3.75f, 4}));
  }
  {  // test_resize_downsample_scales_linear: scales 0.6 x 0.6
    const std::vector<float> x8 = {1, 2, 3, 4, 5, 6, 7, 8};
    const float scales[] = {0.6f, 0.6f};
    std::vector<float> y(2);
    ASSERT_EQ(resize(x8.data(), Shape4{1, 1, 2, 4}, Shape4{1, 1, 1, 2}, ResizeMode::kLinear,
                     CoordinateTransform::kHalfPixel, NearestRounding::kRoundPreferFloor, scales,
                     y.data()),
              Error::kOk);
    EXPECT_NEAR(y[0], 2.6666665f, 1e-6);
    EXPECT_NEAR(y[1], 4.3333331f, 1e-6);
  }
}

TEST(ResizeTest, RejectsBadArguments) {
  float buf[64] = {};
  float out[64] = {};
  const Shape4 xs{1, 1, 2, 2};
  auto run = [&](Shape4 x_shape, Shape4 y_shape, const float* scales) {
    return resize(buf, x_shape, y_shape, ResizeMode::kLinear, CoordinateTransform::kHalfPixel,
                  NearestRounding::kRoundPreferFloor, scales, out);
  };
  EXPECT_EQ(run(xs, Shape4{1, 2, 4, 4}, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(run(xs, Shape4{2, 1, 4, 4}, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(run(Shape4{1, 1, 0, 2}, Shape4{1, 1, 2, 2}, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(run(Shape4{1, 1, 0, 2}, Shape4{1, 1, 0, 2}, nullptr), Error::kOk);
  EXPECT_EQ(run(xs, Shape4{1, 1, -4, 4}, nullptr), Error::kInvalidArgument);
  const float zero[] = {0.0f, 1.0f};
  const float nan[] = {1.0f, std::nanf("")};
  const float inf[] = {std::numeric_limits<float>::infinity(), 1.0f};
  const float tiny[] = {1e-30f, 1e-30f};
  EXPECT_EQ(run(xs, Shape4{1, 1, 4, 4}, zero), Error::kInvalidArgument);
  EXPECT_EQ(run(xs, Shape4{1, 1, 4, 4}, nan), Error::kInvalidArgument);
  EXPECT_EQ(run(xs, Shape4{1, 1, 4, 4}, inf), Error::kInvalidArgument);
  // Extreme but valid scales must not overflow the index arithmetic.
  EXPECT_EQ(run(xs, Shape4{1, 1, 4, 4}, tiny), Error::kOk);
  EXPECT_EQ(resize(nullptr, xs, Shape4{1, 1, 4, 4}, ResizeMode::kNearest,
                   CoordinateTransform::kAsymmetric, NearestRounding::kFloor, nullptr, buf),
            Error::kInvalidArgument);
  EXPECT_EQ(resize(buf, xs, Shape4{1, 1, 4, 4}, static_cast<ResizeMode>(5),
                   CoordinateTransform::kAsymmetric, NearestRounding::kFloor, nullptr, buf),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels
