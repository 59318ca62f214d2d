#include "glassbox/runtime/kernels/unique.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace glassbox::runtime::kernels {
namespace {

using Ints = std::vector<std::int64_t>;

template <typename T>
struct Found {
  std::vector<T> y;  // [outer, U, inner]
  Ints indices, inverse, counts;
};

template <typename T>
Found<T> run(const std::vector<T>& x, UniqueShape s, bool sorted) {
  Found<T> f;
  std::vector<T> y(x.size());
  Ints indices(static_cast<std::size_t>(s.length)), inverse(indices.size()), counts(indices.size()),
      scratch(static_cast<std::size_t>(unique_scratch_entries(s.length)));
  std::int64_t count = -1;
  EXPECT_EQ(unique(x.data(), s, sorted, y.data(), indices.data(), inverse.data(), counts.data(),
                   scratch, &count),
            Error::kOk);
  const auto u = static_cast<std::size_t>(count);
  f.y.assign(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(s.outer * count * s.inner));
  f.indices.assign(indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(u));
  f.counts.assign(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(u));
  f.inverse = inverse;
  return f;
}

// The naive reference: slices gathered into vectors, each looked up in the
// list of those seen so far (first-occurrence order), then, when sorted,
// that list sorted by std::vector's lexicographic order and the inverse
// renumbered. Inputs hold no NaN, so plain comparisons order them.
template <typename T>
Found<T> reference(const std::vector<T>& x, UniqueShape s, bool sorted) {
  std::vector<std::vector<T>> seen;
  Ints first, counts, inverse;
  for (std::int64_t j = 0; j < s.length; ++j) {
    std::vector<T> slice;
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < s.inner; ++i) {
        slice.push_back(x[static_cast<std::size_t>((o * s.length + j) * s.inner + i)]);
      }
    }
    const auto at = std::find(seen.begin(), seen.end(), slice);
    if (at == seen.end()) {
      inverse.push_back(static_cast<std::int64_t>(seen.size()));
      seen.push_back(slice);
      first.push_back(j);
      counts.push_back(1);
    } else {
      inverse.push_back(at - seen.begin());
      ++counts[static_cast<std::size_t>(at - seen.begin())];
    }
  }
  Ints order(seen.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int64_t>(k);
  if (sorted) {
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return seen[static_cast<std::size_t>(a)] < seen[static_cast<std::size_t>(b)];
    });
  }
  Found<T> f;
  Ints rank(order.size());
  const auto u = static_cast<std::int64_t>(order.size());
  f.y.resize(static_cast<std::size_t>(s.outer * u * s.inner));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto g = static_cast<std::size_t>(order[k]);
    rank[g] = static_cast<std::int64_t>(k);
    f.indices.push_back(first[g]);
    f.counts.push_back(counts[g]);
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < s.inner; ++i) {
        f.y[static_cast<std::size_t>((o * u + static_cast<std::int64_t>(k)) * s.inner + i)] =
            seen[g][static_cast<std::size_t>(o * s.inner + i)];
      }
    }
  }
  for (std::int64_t& v : inverse) v = rank[static_cast<std::size_t>(v)];
  f.inverse = inverse;
  return f;
}

template <typename T>
void expect_same(const Found<T>& a, const Found<T>& b) {
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.inverse, b.inverse);
  EXPECT_EQ(a.counts, b.counts);
}

TEST(UniqueTest, OnnxExampleWithoutAxis) {
  const std::vector<float> x = {2, 1, 1, 3, 4, 3};
  const Found<float> f = run(x, {1, 6, 1}, true);
  EXPECT_EQ(f.y, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(f.indices, (Ints{1, 0, 3, 4}));
  EXPECT_EQ(f.inverse, (Ints{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(f.counts, (Ints{2, 1, 2, 1}));
  const Found<float> unsorted = run(x, {1, 6, 1}, false);
  EXPECT_EQ(unsorted.y, (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(unsorted.indices, (Ints{0, 1, 3, 4}));
  EXPECT_EQ(unsorted.inverse, (Ints{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(unsorted.counts, (Ints{1, 2, 2, 1}));
}

TEST(UniqueTest, MatchesTheReferenceOnEveryAxisBothOrdersAndDtypes) {
  // [3, 4, 2] with few distinct values, so slices along each axis repeat.
  const Ints shape = {3, 4, 2};
  std::vector<std::int64_t> xi(24);
  for (std::size_t e = 0; e < xi.size(); ++e) {
    xi[e] = static_cast<std::int64_t>((e * 5 + e / 8) % 3) - 1;
  }
  // Rows 0 and 2 of axis 1 equal (so that axis has a repeated slice).
  for (std::int64_t o = 0; o < 3; ++o) {
    for (std::int64_t i = 0; i < 2; ++i) xi[(o * 4 + 2) * 2 + i] = xi[(o * 4 + 0) * 2 + i];
  }
  std::vector<float> xf(xi.size());
  for (std::size_t e = 0; e < xi.size(); ++e) xf[e] = 0.5f * static_cast<float>(xi[e]);
  std::vector<UniqueShape> views = {{1, 24, 1}};  // no axis
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    UniqueShape s{1, shape[axis], 1};
    for (std::size_t d = 0; d < axis; ++d) s.outer *= shape[d];
    for (std::size_t d = axis + 1; d < shape.size(); ++d) s.inner *= shape[d];
    views.push_back(s);
  }
  for (const UniqueShape& s : views) {
    for (bool sorted : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "view [" << s.outer << ", " << s.length << ", "
                                        << s.inner << "] sorted " << sorted);
      expect_same(run(xi, s, sorted), reference(xi, s, sorted));
      expect_same(run(xf, s, sorted), reference(xf, s, sorted));
    }
  }
}

TEST(UniqueTest, NegativeZeroEqualsZeroAndNansAreOneValueAboveEveryNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, 0.0f, -0.0f, 3.0f, nan};
  const Found<float> f = run(x, {1, 5, 1}, true);
  ASSERT_EQ(f.y.size(), 3u);
  EXPECT_EQ(f.y[0], 0.0f);
  EXPECT_EQ(f.y[1], 3.0f);
  EXPECT_TRUE(std::isnan(f.y[2]));
  EXPECT_EQ(f.counts, (Ints{2, 1, 2}));
  EXPECT_EQ(f.inverse, (Ints{2, 0, 0, 1, 2}));
}

TEST(UniqueTest, RefusesShortScratchAndNegativeSizes) {
  const std::vector<float> x = {1, 2};
  std::vector<float> y(2);
  Ints a(2), b(2), c(2), scratch(static_cast<std::size_t>(unique_scratch_entries(2)) - 1);
  std::int64_t count = 0;
  EXPECT_EQ(
      unique(x.data(), {1, 2, 1}, true, y.data(), a.data(), b.data(), c.data(), scratch, &count),
      Error::kInvalidArgument);
  EXPECT_EQ(
      unique(x.data(), {1, -2, 1}, true, y.data(), a.data(), b.data(), c.data(), scratch, &count),
      Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels
