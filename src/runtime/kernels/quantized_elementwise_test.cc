#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime::kernels {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using testing::expect_close;
using testing::expect_equal;
using testing::random_bytes;
using testing::ref_quantize;
using testing::value_of;
using Shape = std::vector<std::int64_t>;

enum class Op { kAdd, kMul };

// Broadcast reference: dequantize, the op in double, quantize.
std::vector<std::int32_t> reference(Op op, const std::vector<std::uint8_t>& a, const Shape& as,
                                    const QuantInput& aq, const std::vector<std::uint8_t>& b,
                                    const Shape& bs, const QuantInput& bq, const QuantOutput& yq) {
  Result<Dims> out = broadcast_shapes(as, bs);
  EXPECT_TRUE(out.ok());
  std::vector<std::int32_t> ref;
  const std::size_t rank = out->rank;
  std::vector<std::int64_t> idx(rank, 0);
  // Flat index of operand `s` (right-aligned, size-1 dims broadcast).
  auto offset = [&](const Shape& s) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < s.size(); ++d) {
      const std::int64_t i = idx[rank - s.size() + d];
      off = off * s[d] + (s[d] == 1 ? 0 : i);
    }
    return static_cast<std::size_t>(off);
  };
  for (std::int64_t e = 0; e < out->numel(); ++e) {
    std::int64_t rem = e;
    for (std::size_t d = rank; d-- > 0;) {
      idx[d] = rem % out->sizes[d];
      rem /= out->sizes[d];
    }
    const double va = (value_of(a[offset(as)], aq.type) - aq.zero_point) * double{aq.scale};
    const double vb = (value_of(b[offset(bs)], bq.type) - bq.zero_point) * double{bq.scale};
    const double r = op == Op::kAdd ? va + vb : va * vb;
    ref.push_back(ref_quantize(r / yq.scale, yq.type, yq.zero_point, yq.range));
  }
  return ref;
}

void check_binary(Op op, ScalarType t, const Shape& as, const Shape& bs, QuantRange range,
                  std::uint32_t seed) {
  const std::int32_t lo = testing::type_min(t);
  const std::vector<std::uint8_t> a =
      random_bytes(static_cast<std::size_t>(*checked_numel(as)), seed);
  const std::vector<std::uint8_t> b =
      random_bytes(static_cast<std::size_t>(*checked_numel(bs)), seed + 1);
  const QuantInput aq{a.data(), t, 0.031f, lo + 140};
  const QuantInput bq{b.data(), t, op == Op::kAdd ? 0.017f : 0.023f, lo + 101};
  const Dims out = *broadcast_shapes(as, bs);
  std::vector<std::uint8_t> y(static_cast<std::size_t>(out.numel()));
  const QuantOutput yq{y.data(), t, op == Op::kAdd ? 0.035f : 0.09f, lo + 122, range};
  const ErrorInfo e =
      op == Op::kAdd ? qlinear_add(aq, as, bq, bs, yq) : qlinear_mul(aq, as, bq, bs, yq);
  ASSERT_THAT(e, IsOk());
  expect_close(y, t, reference(op, a, as, aq, b, bs, bq, yq));
}

TEST(QLinearAddTest, BroadcastsLikeNumPy) {
  std::uint32_t seed = 1;
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    check_binary(Op::kAdd, t, {4, 5, 6}, {4, 5, 6}, {}, seed++);
    check_binary(Op::kAdd, t, {2, 3, 4, 5}, {3, 1, 1}, {}, seed++);
    check_binary(Op::kAdd, t, {1, 7}, {6, 1}, {}, seed++);
    check_binary(Op::kAdd, t, {}, {3, 8}, {}, seed++);
  }
}

TEST(QLinearMulTest, BroadcastsLikeNumPy) {
  std::uint32_t seed = 20;
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    check_binary(Op::kMul, t, {4, 5, 6}, {4, 5, 6}, {}, seed++);
    check_binary(Op::kMul, t, {2, 3, 4, 5}, {5}, {}, seed++);
    check_binary(Op::kMul, t, {3, 1, 4}, {1, 6, 1}, {}, seed++);
  }
}

TEST(QLinearAddTest, FusedRangeAndSaturation) {
  // ReLU in the uint8 domain (zero point 122), and int8 clamped to [-20, 20].
  check_binary(Op::kAdd, ScalarType::kByte, {64}, {64}, {122, 255}, 40);
  check_binary(Op::kAdd, ScalarType::kChar, {64}, {64}, {-20, 20}, 41);
  // a = 127 and b = 127 at scale 1 saturate; -128 + -128 too; 2.5 ties.
  const std::int8_t a[] = {127, -128, 5, -5, 3};
  const std::int8_t b[] = {127, -128, 0, 0, 0};
  std::uint8_t y[5];
  const Shape s{5};
  ASSERT_THAT(qlinear_add({a, ScalarType::kChar, 1.0f, 0}, s, {b, ScalarType::kChar, 1.0f, 0}, s,
                          {y, ScalarType::kChar, 2.0f, 0, {}}),
              IsOk());
  // 254/2 = 127; -256/2 = -128; 5/2 = 2.5 -> 2; -2.5 -> -2; 1.5 -> 2.
  expect_equal({y, y + 5}, ScalarType::kChar, {127, -128, 2, -2, 2});
}

TEST(QLinearBinaryTest, RejectsBadArguments) {
  std::uint8_t a[4] = {}, y[4] = {};
  const Shape s{4};
  const QuantInput q{a, ScalarType::kChar, 1.0f, 0};
  const QuantOutput out{y, ScalarType::kChar, 1.0f, 0, {}};
  EXPECT_THAT(qlinear_add(q, s, q, Shape{3}, out), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_add(q, s, {a, ScalarType::kByte, 1.0f, 0}, s, out),
              ErrorIs(Error::kInvalidArgument, {"qlinear_add"}));
  EXPECT_THAT(qlinear_mul(q, s, q, s, {y, ScalarType::kChar, 0.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument, {"qlinear_mul"}));
  EXPECT_THAT(qlinear_mul(q, s, {a, ScalarType::kChar, 1.0f, 200}, s, out),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_add({nullptr, ScalarType::kChar, 1.0f, 0}, s, q, s, out),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_add(q, s, q, s, {nullptr, ScalarType::kChar, 1.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_add(q, s, q, s, {y, ScalarType::kChar, 1.0f, 0, {10, 5}}),
              ErrorIs(Error::kInvalidArgument));
}

TEST(QuantizedClampTest, ClampsInTheQuantizedDomain) {
  const std::vector<std::uint8_t> x = random_bytes(100, 7);
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    const QuantRange r{testing::type_min(t) + 30, testing::type_min(t) + 200};
    std::vector<std::uint8_t> y(x.size());
    ASSERT_THAT(quantized_clamp(x.data(), t, 100, r, y.data()), IsOk());
    std::vector<std::int32_t> want;
    for (std::uint8_t v : x) want.push_back(std::clamp(value_of(v, t), r.min, r.max));
    expect_equal(y, t, want);
    // In place.
    std::vector<std::uint8_t> z = x;
    ASSERT_THAT(quantized_clamp(z.data(), t, 100, r, z.data()), IsOk());
    EXPECT_EQ(z, y);
  }
  std::uint8_t v = 0;
  EXPECT_THAT(quantized_clamp(&v, ScalarType::kFloat, 1, {}, &v), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantized_clamp(&v, ScalarType::kByte, 1, {300, 400}, &v),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantized_clamp(nullptr, ScalarType::kByte, 1, {}, &v),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantized_clamp(&v, ScalarType::kByte, -1, {}, &v), ErrorIs(Error::kInvalidArgument));
}

double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_hardswish(double x) { return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0; }

TEST(QuantLutTest, SigmoidAndHardswishMatchReference) {
  struct Fn {
    UnaryFloatKernel kernel;
    double (*ref)(double);
    float y_scale;
  };
  for (const Fn& fn : {Fn{sigmoid, ref_sigmoid, 1.0f / 256}, Fn{hardswish, ref_hardswish, 0.05f}})
    for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
      const std::int32_t lo = testing::type_min(t);
      const QuantInput x{nullptr, t, 0.06f, lo + 128};
      const QuantOutput y{nullptr, t, fn.y_scale, fn.kernel == sigmoid ? lo : lo + 30, {}};
      std::uint8_t lut[256];
      ASSERT_THAT(build_quant_lut(fn.kernel, x, y, lut), IsOk());
      // Apply it to every byte, in place.
      std::vector<std::uint8_t> values(256);
      for (int i = 0; i < 256; ++i)
        values[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
      ASSERT_THAT(apply_quant_lut(values.data(), 256, lut, values.data()), IsOk());
      std::vector<std::int32_t> want;
      for (int i = 0; i < 256; ++i) {
        const double real =
            (value_of(static_cast<std::uint8_t>(i), t) - x.zero_point) * double{x.scale};
        want.push_back(ref_quantize(fn.ref(real) / y.scale, t, y.zero_point));
      }
      expect_close(values, t, want);
    }
}

TEST(QuantLutTest, RejectsBadArguments) {
  std::uint8_t lut[256];
  const QuantInput x{nullptr, ScalarType::kChar, 0.1f, 0};
  const QuantOutput y{nullptr, ScalarType::kChar, 0.1f, 0, {}};
  EXPECT_THAT(build_quant_lut(nullptr, x, y, lut), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(build_quant_lut(sigmoid, x, y, Span<std::uint8_t>(lut, 255)),
              ErrorIs(Error::kInvalidArgument, {"build_quant_lut"}));
  EXPECT_THAT(build_quant_lut(sigmoid, {nullptr, ScalarType::kChar, -0.1f, 0}, y, lut),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(build_quant_lut(sigmoid, x, {nullptr, ScalarType::kByte, 0.1f, 256, {}}, lut),
              ErrorIs(Error::kInvalidArgument));
  std::uint8_t v = 0;
  EXPECT_THAT(apply_quant_lut(&v, 1, Span<const std::uint8_t>(lut, 10), &v),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(apply_quant_lut(nullptr, 1, lut, &v), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(apply_quant_lut(&v, -1, lut, &v), ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::runtime::kernels
