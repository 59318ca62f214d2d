#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime::kernels {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using testing::expect_close;
using testing::random_bytes;
using testing::random_ints;
using testing::ref_quantize;
using testing::value_of;
using Shape = std::vector<std::int64_t>;

// One quantized matrix product: x [m, k], w [k, n] or [n, k].
struct GemmCase {
  std::int64_t m = 5, k = 37, n = 70;
  ScalarType x_type = ScalarType::kByte;
  ScalarType w_type = ScalarType::kChar;
  ScalarType y_type = ScalarType::kByte;
  bool per_channel = false;
  bool with_bias = true;
  float x_scale = 0.02f;
  std::int32_t x_zp = 120;
  float y_scale = 0.15f;
  std::int32_t y_zp = 110;
  QuantRange range{};
  std::uint32_t seed = 1;
};

struct GemmData {
  std::vector<std::uint8_t> x, w;
  std::vector<float> w_scales;
  std::vector<std::int32_t> w_zps, bias;
};

GemmData make_data(const GemmCase& c) {
  GemmData d;
  d.x = random_bytes(static_cast<std::size_t>(c.m * c.k), c.seed);
  d.w = random_bytes(static_cast<std::size_t>(c.k * c.n), c.seed + 1);
  const std::size_t channels = c.per_channel ? static_cast<std::size_t>(c.n) : 1;
  for (std::size_t i = 0; i < channels; ++i)
    d.w_scales.push_back(0.004f + 0.0013f * static_cast<float>(i % 7));
  const std::int32_t lo = testing::type_min(c.w_type);
  d.w_zps = random_ints(channels, c.seed + 2, lo + 100, lo + 150);
  if (c.with_bias) d.bias = random_ints(static_cast<std::size_t>(c.n), c.seed + 3, -3000, 3000);
  return d;
}

// The double reference: integer accumulation, then one rounding in double.
std::vector<std::int32_t> reference(const GemmCase& c, const GemmData& d, bool w_is_nk) {
  std::vector<std::int32_t> out;
  for (std::int64_t i = 0; i < c.m; ++i)
    for (std::int64_t j = 0; j < c.n; ++j) {
      const std::size_t ch = d.w_scales.size() == 1 ? 0 : static_cast<std::size_t>(j);
      std::int64_t acc = d.bias.empty() ? 0 : d.bias[static_cast<std::size_t>(j)];
      for (std::int64_t kk = 0; kk < c.k; ++kk) {
        const std::int64_t xv = value_of(d.x[static_cast<std::size_t>(i * c.k + kk)], c.x_type);
        const std::size_t wi = static_cast<std::size_t>(w_is_nk ? j * c.k + kk : kk * c.n + j);
        const std::int64_t wv = value_of(d.w[wi], c.w_type);
        acc += (xv - c.x_zp) * (wv - d.w_zps[ch]);
      }
      const double real = static_cast<double>(acc) * c.x_scale * d.w_scales[ch] / c.y_scale;
      out.push_back(ref_quantize(real, c.y_type, c.y_zp, c.range));
    }
  return out;
}

std::vector<std::uint8_t> run_linear(const GemmCase& c, const GemmData& d) {
  std::vector<std::uint8_t> y(static_cast<std::size_t>(c.m * c.n));
  std::vector<std::uint8_t> scratch(qlinear_matmul_scratch_bytes(c.k));
  const QuantInput x{d.x.data(), c.x_type, c.x_scale, c.x_zp};
  const QuantWeight w{d.w.data(), c.w_type, {d.w_scales, d.w_zps}};
  const QuantOutput out{y.data(), c.y_type, c.y_scale, c.y_zp, c.range};
  EXPECT_THAT(
      qlinear_linear(x, c.m, c.k, w, c.n, d.bias.empty() ? nullptr : d.bias.data(), out, scratch),
      IsOk());
  return y;
}

std::vector<std::uint8_t> run_matmul(const GemmCase& c, const GemmData& d, const Shape& a_shape) {
  std::vector<std::uint8_t> y(static_cast<std::size_t>(c.m * c.n));
  std::vector<std::uint8_t> scratch(qlinear_matmul_scratch_bytes(c.k));
  const QuantInput x{d.x.data(), c.x_type, c.x_scale, c.x_zp};
  const QuantWeight w{d.w.data(), c.w_type, {d.w_scales, d.w_zps}};
  const QuantOutput out{y.data(), c.y_type, c.y_scale, c.y_zp, c.range};
  const Shape b_shape{c.k, c.n};
  EXPECT_THAT(qlinear_matmul(x, a_shape, w, b_shape, d.bias.empty() ? nullptr : d.bias.data(), out,
                             scratch),
              IsOk());
  return y;
}

std::vector<GemmCase> cases() {
  std::vector<GemmCase> all;
  for (ScalarType xt : {ScalarType::kChar, ScalarType::kByte})
    for (ScalarType wt : {ScalarType::kChar, ScalarType::kByte})
      for (bool per_channel : {false, true}) {
        GemmCase c;
        c.x_type = c.y_type = xt;
        c.w_type = wt;
        c.x_zp = xt == ScalarType::kChar ? -5 : 120;
        c.y_zp = xt == ScalarType::kChar ? 3 : 110;
        c.per_channel = per_channel;
        c.seed = static_cast<std::uint32_t>(all.size() * 10 + 1);
        all.push_back(c);
      }
  return all;
}

TEST(QLinearMatMulTest, MatchesReferenceForEveryTypeAndGranularity) {
  for (const GemmCase& c : cases()) {
    SCOPED_TRACE(::testing::Message() << "case seed " << c.seed);
    const GemmData d = make_data(c);
    expect_close(run_matmul(c, d, {c.m, c.k}), c.y_type, reference(c, d, false));
  }
}

TEST(QLinearLinearTest, MatchesReferenceForEveryTypeAndGranularity) {
  for (const GemmCase& c : cases()) {
    SCOPED_TRACE(::testing::Message() << "case seed " << c.seed);
    const GemmData d = make_data(c);
    expect_close(run_linear(c, d), c.y_type, reference(c, d, true));
  }
}

TEST(QLinearMatMulTest, BatchDimsOfAAreRows) {
  GemmCase c;
  c.m = 2 * 3 * 4;  // a is [2, 3, 4, K]
  c.with_bias = false;
  c.per_channel = true;
  const GemmData d = make_data(c);
  expect_close(run_matmul(c, d, {2, 3, 4, c.k}), c.y_type, reference(c, d, false));
  // Rank-1 a is one row.
  GemmCase row = c;
  row.m = 1;
  const GemmData dr = make_data(row);
  expect_close(run_matmul(row, dr, {row.k}), row.y_type, reference(row, dr, false));
}

TEST(QLinearMatMulTest, SaturatesAndAppliesFusedRange) {
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    GemmCase c;
    c.x_type = c.y_type = t;
    c.x_zp = testing::type_min(t) + 128;
    c.y_zp = testing::type_min(t) + 128;
    c.y_scale = 0.002f;  // most outputs saturate at one end or the other
    const GemmData d = make_data(c);
    const std::vector<std::int32_t> want = reference(c, d, false);
    EXPECT_NE(std::count(want.begin(), want.end(), testing::type_min(t)), 0);
    EXPECT_NE(std::count(want.begin(), want.end(), testing::type_max(t)), 0);
    expect_close(run_matmul(c, d, {c.m, c.k}), t, want);
    // Fused ReLU: [y_zp, max].
    c.y_scale = 0.15f;
    c.range = QuantRange{c.y_zp, 1000};
    expect_close(run_matmul(c, d, {c.m, c.k}), t, reference(c, d, false));
  }
}

TEST(QLinearMatMulTest, LongKAccumulatesBeyondInt32) {
  // 40000 products of (-255) * (-255) sum to 2.6e9 > 2^31: the kernel's
  // int32 partial sums must be widened. All x = -128 with zp 127, w likewise.
  GemmCase c;
  c.m = 1;
  c.k = 40000;
  c.n = 2;
  c.x_type = c.w_type = c.y_type = ScalarType::kChar;
  c.x_zp = 127;
  c.with_bias = false;
  c.x_scale = 1.0f;
  c.y_scale = 1e8f;
  c.y_zp = 0;
  GemmData d = make_data(c);
  std::fill(d.x.begin(), d.x.end(), std::uint8_t{0x80});
  std::fill(d.w.begin(), d.w.end(), std::uint8_t{0x80});
  d.w_scales = {1.0f};
  d.w_zps = {127};
  const std::vector<std::int32_t> want = reference(c, d, false);
  EXPECT_EQ(want[0], 26);  // 2.601e9 / 1e8
  expect_close(run_matmul(c, d, {c.m, c.k}), c.y_type, want, 1.0);
}

TEST(QLinearMatMulTest, RejectsBadArguments) {
  std::uint8_t x[6] = {}, w[6] = {}, y[4] = {};
  std::vector<std::uint8_t> scratch(qlinear_matmul_scratch_bytes(3));
  const float one = 1.0f;
  const float two[] = {1.0f, 1.0f};
  const float three[] = {1.0f, 1.0f, 1.0f};
  const QuantInput a{x, ScalarType::kChar, 1.0f, 0};
  const QuantWeight b{w, ScalarType::kChar, {{&one, 1}, {}}};
  const QuantOutput out{y, ScalarType::kChar, 1.0f, 0, {}};
  const Shape as{2, 3}, bs{3, 2};
  EXPECT_THAT(qlinear_matmul(a, as, b, bs, nullptr, out, scratch), IsOk());
  EXPECT_THAT(qlinear_matmul(a, as, b, Shape{2, 2}, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument, {"qlinear_matmul"}));
  EXPECT_THAT(qlinear_matmul(a, as, b, Shape{1, 3, 2}, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul(a, Shape{}, b, bs, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(
      qlinear_matmul({nullptr, ScalarType::kChar, 1.0f, 0}, as, b, bs, nullptr, out, scratch),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul(a, as, {nullptr, ScalarType::kChar, {{&one, 1}, {}}}, bs, nullptr, out,
                             scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(
      qlinear_matmul(a, as, b, bs, nullptr, {nullptr, ScalarType::kChar, 1.0f, 0, {}}, scratch),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul(a, as, b, bs, nullptr, out, Span<std::uint8_t>(scratch).first(4)),
              ErrorIs(Error::kInvalidArgument, {"scratch"}));
  // Scales and zero points: per-column counts must be 1 or N (2).
  EXPECT_THAT(qlinear_matmul(a, as, {w, ScalarType::kChar, {three, {}}}, bs, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul(a, as, {w, ScalarType::kChar, {two, {}}}, bs, nullptr, out, scratch),
              IsOk());
  EXPECT_THAT(qlinear_matmul({x, ScalarType::kChar, 0.0f, 0}, as, b, bs, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul({x, ScalarType::kByte, 1.0f, 256}, as, b, bs, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul({x, ScalarType::kFloat, 1.0f, 0}, as, b, bs, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument));
  const std::int32_t bad_zp = 128;
  EXPECT_THAT(qlinear_matmul(a, as, {w, ScalarType::kChar, {{&one, 1}, {&bad_zp, 1}}}, bs, nullptr,
                             out, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul(a, as, b, bs, nullptr, {y, ScalarType::kChar, -1.0f, 0, {}}, scratch),
              ErrorIs(Error::kInvalidArgument));
  // An empty fused range, and a multiplier that overflows float.
  EXPECT_THAT(
      qlinear_matmul(a, as, b, bs, nullptr, {y, ScalarType::kByte, 1.0f, 0, {300, 400}}, scratch),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_matmul({x, ScalarType::kChar, 1e30f, 0}, as, b, bs, nullptr,
                             {y, ScalarType::kChar, 1e-30f, 0, {}}, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_linear(a, 2, 3, b, -1, nullptr, out, scratch),
              ErrorIs(Error::kInvalidArgument, {"qlinear_linear"}));
}

}  // namespace
}  // namespace glassbox::runtime::kernels
