#include "glassbox/runtime/kernels/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using testing::RefValue;

std::vector<float> scratch_for(std::size_t bytes) {
  return std::vector<float>(bytes / sizeof(float));
}

// c[i][j] = sum_p a[i*ars + p*acs] * b[p*brs + j*bcs], in double.
std::vector<RefValue> reference(const float* a, std::int64_t ars, std::int64_t acs, const float* b,
                                std::int64_t brs, std::int64_t bcs, const float* bias,
                                std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<RefValue> c(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      RefValue r;
      if (bias != nullptr) r = {bias[j], std::abs(bias[j])};
      for (std::int64_t p = 0; p < k; ++p) {
        const double prod = double{a[i * ars + p * acs]} * b[p * brs + j * bcs];
        r.value += prod;
        r.magnitude += std::abs(prod);
      }
      c[static_cast<std::size_t>(i * n + j)] = r;
    }
  return c;
}

struct Mnk {
  std::int64_t m, n, k;
};

// Tile/block edges: 6x16 register tile, K blocks of 256, M blocks of 72,
// N blocks of 512.
constexpr Mnk kSizes[] = {{1, 1, 1},     {6, 16, 8},    {7, 17, 3}, {5, 15, 300},
                          {73, 33, 257}, {13, 530, 40}, {2, 3, 0}};

TEST(GemmTest, MatchesReference) {
  for (const Mnk& s : kSizes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k);
    const auto a = testing::random_floats(static_cast<std::size_t>(s.m * s.k), 11);
    const auto b = testing::random_floats(static_cast<std::size_t>(s.k * s.n), 12);
    auto scratch = scratch_for(gemm_scratch_bytes(s.m, s.n, s.k));
    std::vector<float> c(static_cast<std::size_t>(s.m * s.n), NAN);
    ASSERT_EQ(gemm(a.data(), b.data(), c.data(), s.m, s.n, s.k, scratch), Error::kOk);
    testing::expect_dot_near(
        c, reference(a.data(), s.k, 1, b.data(), s.n, 1, nullptr, s.m, s.n, s.k), s.k);
  }
}

TEST(LinearTest, MatchesReferenceWithAndWithoutBias) {
  for (const Mnk& s : kSizes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k);
    const auto x = testing::random_floats(static_cast<std::size_t>(s.m * s.k), 21);
    const auto w = testing::random_floats(static_cast<std::size_t>(s.n * s.k), 22);
    const auto bias = testing::random_floats(static_cast<std::size_t>(s.n), 23);
    auto scratch = scratch_for(linear_scratch_bytes(s.m, s.n, s.k));
    for (const float* b : {static_cast<const float*>(nullptr), bias.data()}) {
      std::vector<float> y(static_cast<std::size_t>(s.m * s.n), NAN);
      ASSERT_EQ(linear(x.data(), s.m, s.k, w.data(), s.n, b, y.data(), scratch), Error::kOk);
      // W is [n, k]: B(p, j) = w[j * k + p].
      testing::expect_dot_near(y, reference(x.data(), s.k, 1, w.data(), 1, s.k, b, s.m, s.n, s.k),
                               s.k + 1);
    }
  }
}

TEST(LinearTest, RejectsBadArguments) {
  std::vector<float> x(8), w(8), y(4);
  std::vector<float> small(1);
  EXPECT_EQ(linear(x.data(), -1, 2, w.data(), 2, nullptr, y.data(), small),
            Error::kInvalidArgument);
  EXPECT_EQ(linear(x.data(), 2, 4, nullptr, 2, nullptr, y.data(), small), Error::kInvalidArgument);
  EXPECT_EQ(linear(x.data(), 2, 4, w.data(), 2, nullptr, y.data(), small),
            Error::kInvalidArgument);  // scratch too small
}

TEST(MatmulTest, BroadcastsBatchDims) {
  const std::int64_t a_shape[] = {2, 1, 5, 7};
  const std::int64_t b_shape[] = {3, 7, 18};
  Result<Dims> out = matmul_output_shape(a_shape, b_shape);
  ASSERT_TRUE(out.ok());
  const std::int64_t want[] = {2, 3, 5, 18};
  EXPECT_EQ(*out, *make_dims(want));

  const auto a = testing::random_floats(2 * 5 * 7, 31);
  const auto b = testing::random_floats(3 * 7 * 18, 32);
  auto scratch = scratch_for(matmul_scratch_bytes(a_shape, b_shape));
  std::vector<float> c(static_cast<std::size_t>(out->numel()), NAN);
  ASSERT_EQ(matmul(a.data(), a_shape, b.data(), b_shape, c.data(), scratch), Error::kOk);
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      SCOPED_TRACE(::testing::Message() << "batch " << i << "," << j);
      const std::size_t off = static_cast<std::size_t>((i * 3 + j) * 5 * 18);
      std::vector<float> slice(c.begin() + static_cast<std::ptrdiff_t>(off),
                               c.begin() + static_cast<std::ptrdiff_t>(off + 5 * 18));
      testing::expect_dot_near(
          slice,
          reference(a.data() + i * 35, 7, 1, b.data() + j * 7 * 18, 18, 1, nullptr, 5, 18, 7), 7);
    }
}

// One weight matrix shared by every batch entry ([197, 1, 768] x [768, N]
// in ViT's attention projection): computed as one GEMM over the stacked
// rows; the result must equal each entry's own product, also with the
// weight given as [1, K, N].
TEST(MatmulTest, SharedWeightOverBatchedRows) {
  const std::int64_t a_shape[] = {9, 1, 7};
  const auto a = testing::random_floats(9 * 7, 41);
  const auto b = testing::random_floats(7 * 18, 42);
  for (const std::vector<std::int64_t>& b_dims :
       {std::vector<std::int64_t>{7, 18}, std::vector<std::int64_t>{1, 7, 18}}) {
    const Span<const std::int64_t> b_shape(b_dims.data(), b_dims.size());
    auto scratch = scratch_for(matmul_scratch_bytes(a_shape, b_shape));
    std::vector<float> c(9 * 18, NAN);
    ASSERT_EQ(matmul(a.data(), a_shape, b.data(), b_shape, c.data(), scratch), Error::kOk);
    for (std::int64_t i = 0; i < 9; ++i) {
      SCOPED_TRACE(::testing::Message() << "batch " << i << ", b rank " << b_dims.size());
      const std::size_t off = static_cast<std::size_t>(i * 18);
      std::vector<float> row(c.begin() + static_cast<std::ptrdiff_t>(off),
                             c.begin() + static_cast<std::ptrdiff_t>(off + 18));
      testing::expect_dot_near(
          row, reference(a.data() + i * 7, 7, 1, b.data(), 18, 1, nullptr, 1, 18, 7), 7);
    }
  }
}

TEST(MatmulTest, PlainTwoD) {
  const std::int64_t a_shape[] = {9, 20};
  const std::int64_t b_shape[] = {20, 4};
  const auto a = testing::random_floats(180, 41);
  const auto b = testing::random_floats(80, 42);
  auto scratch = scratch_for(matmul_scratch_bytes(a_shape, b_shape));
  std::vector<float> c(36, NAN);
  ASSERT_EQ(matmul(a.data(), a_shape, b.data(), b_shape, c.data(), scratch), Error::kOk);
  testing::expect_dot_near(c, reference(a.data(), 20, 1, b.data(), 4, 1, nullptr, 9, 4, 20), 20);
}

TEST(MatmulTest, RejectsMismatchedShapes) {
  const std::int64_t a[] = {2, 3, 4};
  const std::int64_t inner_mismatch[] = {5, 6};
  const std::int64_t batch_mismatch[] = {3, 4, 6};
  const std::int64_t rank1[] = {4};
  EXPECT_EQ(matmul_output_shape(a, inner_mismatch).error(), Error::kInvalidArgument);
  EXPECT_EQ(matmul_output_shape(a, batch_mismatch).error(), Error::kInvalidArgument);
  EXPECT_EQ(matmul_output_shape(a, rank1).error(), Error::kInvalidArgument);
  std::vector<float> buf(64);
  EXPECT_EQ(matmul(buf.data(), a, buf.data(), batch_mismatch, buf.data(), buf),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels
