#include "glassbox/runtime/kernels/shape_ops.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace glassbox::runtime::kernels {
namespace {

// 0, 1, 2, ...: every element is its own linear index, so a copy kernel's
// output spells out where each element came from.
std::vector<float> iota(std::int64_t n, float start = 0.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(ConcatTest, MiddleAxisOfThreeInputs) {
  const std::int64_t s0[] = {2, 1, 2};
  const std::int64_t s1[] = {2, 2, 2};
  const std::int64_t s2[] = {2, 0, 2};
  const auto a = iota(4);
  const auto b = iota(8, 100.0f);
  const ConstTensor inputs[] = {{a.data(), s0}, {b.data(), s1}, {nullptr, s2}};
  Result<Dims> out = concat_output_shape(inputs, 1);
  ASSERT_TRUE(out.ok());
  const std::int64_t want_shape[] = {2, 3, 2};
  EXPECT_EQ(*out, *make_dims(want_shape));
  std::vector<float> y(12);
  ASSERT_EQ(concat(inputs, -2, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{0, 1, 100, 101, 102, 103, 2, 3, 104, 105, 106, 107}));
}

TEST(ConcatTest, FirstAndLastAxis) {
  const std::int64_t s[] = {2, 3};
  const auto a = iota(6);
  const auto b = iota(6, 10.0f);
  const ConstTensor inputs[] = {{a.data(), s}, {b.data(), s}};
  std::vector<float> y(12);
  ASSERT_EQ(concat(inputs, 0, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}));
  ASSERT_EQ(concat(inputs, 1, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}));
}

TEST(ConcatTest, RejectsMismatchedShapes) {
  const std::int64_t s0[] = {2, 3};
  const std::int64_t s1[] = {3, 3};
  const std::int64_t s2[] = {2, 3, 1};
  float buf[32] = {};
  const ConstTensor sizes_differ[] = {{buf, s0}, {buf, s1}};
  const ConstTensor ranks_differ[] = {{buf, s0}, {buf, s2}};
  EXPECT_EQ(concat(sizes_differ, 1, buf), Error::kInvalidArgument);
  EXPECT_EQ(concat(ranks_differ, 0, buf), Error::kInvalidArgument);
  EXPECT_EQ(concat_output_shape(sizes_differ, 2).error(), Error::kInvalidArgument);
  EXPECT_EQ(concat_output_shape({}, 0).error(), Error::kInvalidArgument);
}

// out[idx] = in[idx permuted back], by explicit index arithmetic.
std::vector<float> reference_transpose(const std::vector<float>& in,
                                       const std::vector<std::int64_t>& shape,
                                       const std::vector<std::int64_t>& perm) {
  const std::size_t r = shape.size();
  std::vector<std::int64_t> out_shape(r);
  for (std::size_t i = 0; i < r; ++i) out_shape[i] = shape[static_cast<std::size_t>(perm[i])];
  std::vector<float> out(in.size());
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t linear = 0; linear < in.size(); ++linear) {
    std::size_t rest = linear;
    for (std::size_t d = r; d-- > 0;) {
      idx[d] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(out_shape[d]));
      rest /= static_cast<std::size_t>(out_shape[d]);
    }
    std::int64_t src = 0;
    std::vector<std::int64_t> in_idx(r);
    for (std::size_t d = 0; d < r; ++d) in_idx[static_cast<std::size_t>(perm[d])] = idx[d];
    for (std::size_t d = 0; d < r; ++d) src = src * shape[d] + in_idx[d];
    out[linear] = in[static_cast<std::size_t>(src)];
  }
  return out;
}

TEST(TransposeTest, MatchesReference) {
  const std::vector<std::vector<std::int64_t>> shapes = {
      {3, 5},
      {2, 3, 4},
      {2, 3, 4, 5},
      {2, 1, 3, 2, 2, 3},
      // Larger than one tile and not a multiple of it on either side.
      {35, 33},
      {2, 37, 5, 19},
      {4, 1, 17, 18},
      // Last dim kept (row copies), identity, and dims that merge.
      {3, 4, 5},
      {2, 3, 4},
      {6, 7, 8, 9},
      {1, 1},
      {}};
  const std::vector<std::vector<std::int64_t>> perms = {
      {1, 0},       {2, 0, 1}, {0, 2, 3, 1}, {5, 3, 1, 0, 4, 2}, {1, 0}, {0, 2, 3, 1},
      {2, 3, 0, 1}, {1, 0, 2}, {0, 1, 2},    {2, 3, 0, 1},       {1, 0}, {}};
  for (std::size_t c = 0; c < shapes.size(); ++c) {
    SCOPED_TRACE(c);
    std::int64_t n = 1;
    for (std::int64_t d : shapes[c]) n *= d;
    const auto in = iota(n);
    std::vector<float> out(in.size());
    ASSERT_EQ(transpose(in.data(), shapes[c], perms[c], out.data()), Error::kOk);
    EXPECT_EQ(out, reference_transpose(in, shapes[c], perms[c]));
  }
}

TEST(TransposeTest, RejectsBadPermutation) {
  const std::int64_t s[] = {2, 3};
  const std::int64_t dup[] = {0, 0};
  const std::int64_t short_perm[] = {0};
  const std::int64_t out_of_range[] = {0, 2};
  float buf[6] = {};
  EXPECT_EQ(transpose(buf, s, dup, buf), Error::kInvalidArgument);
  EXPECT_EQ(transpose(buf, s, short_perm, buf), Error::kInvalidArgument);
  EXPECT_EQ(transpose(buf, s, out_of_range, buf), Error::kInvalidArgument);
}

TEST(ReshapeTest, ValidatesElementCounts) {
  const std::int64_t a[] = {2, 3, 4};
  const std::int64_t b[] = {6, 4};
  const std::int64_t c[] = {5, 5};
  EXPECT_EQ(check_reshape(a, b), Error::kOk);
  EXPECT_EQ(check_reshape(a, c), Error::kInvalidArgument);
  const auto in = iota(24);
  std::vector<float> out(24);
  ASSERT_EQ(reshape(in.data(), a, b, out.data()), Error::kOk);
  EXPECT_EQ(out, in);
  EXPECT_EQ(reshape(in.data(), a, c, out.data()), Error::kInvalidArgument);
}

TEST(FlattenTest, MergesInclusiveRange) {
  const std::int64_t s[] = {2, 3, 4, 5};
  const std::int64_t from1[] = {2, 60};
  const std::int64_t middle[] = {2, 12, 5};
  const std::int64_t all[] = {120};
  EXPECT_EQ(*flatten_shape(s, 1, -1), *make_dims(from1));
  EXPECT_EQ(*flatten_shape(s, 1, 2), *make_dims(middle));
  EXPECT_EQ(*flatten_shape(s, 0, 3), *make_dims(all));
  EXPECT_EQ(flatten_shape(s, 2, 1).error(), Error::kInvalidArgument);
  EXPECT_EQ(flatten_shape(s, 0, 4).error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels
