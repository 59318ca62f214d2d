#include "glassbox/runtime/kernels/dynamic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace glassbox::runtime::kernels {
namespace {

using Shape = std::vector<std::int64_t>;

TEST(NonZeroTest, MatchesNestedLoopsOnARank3Tensor) {
  const Shape shape = {2, 3, 4};
  std::mt19937 rng(7);
  std::vector<float> x(24);
  for (float& v : x) v = rng() % 3 == 0 ? 0.0F : 1.5F;
  x[5] = -0.0F;  // zero
  // The reference: three loops, coordinates appended per dim.
  std::vector<std::int64_t> rows[3];
  for (std::int64_t i = 0; i < 2; ++i) {
    for (std::int64_t j = 0; j < 3; ++j) {
      for (std::int64_t k = 0; k < 4; ++k) {
        if (x[static_cast<std::size_t>(i * 12 + j * 4 + k)] != 0.0F) {
          rows[0].push_back(i);
          rows[1].push_back(j);
          rows[2].push_back(k);
        }
      }
    }
  }
  std::vector<std::int64_t> out(3 * 24, -1);
  Result<std::int64_t> count = non_zero(x.data(), sizeof(float), true, shape, 24, out.data());
  ASSERT_TRUE(count.ok());
  const auto n = static_cast<std::size_t>(*count);
  ASSERT_EQ(n, rows[0].size());
  for (std::size_t d = 0; d < 3; ++d) {
    EXPECT_EQ(std::vector<std::int64_t>(out.begin() + static_cast<std::ptrdiff_t>(d * n),
                                        out.begin() + static_cast<std::ptrdiff_t>((d + 1) * n)),
              rows[d])
        << "dim " << d;
  }
}

TEST(NonZeroTest, CountsBytesAndLongs) {
  const std::vector<std::uint8_t> flags = {0, 1, 0, 1, 1};
  std::vector<std::int64_t> out(5);
  Result<std::int64_t> count = non_zero(flags.data(), 1, false, Shape{5}, 5, out.data());
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 3);
  EXPECT_EQ(std::vector<std::int64_t>(out.begin(), out.begin() + 3),
            (std::vector<std::int64_t>{1, 3, 4}));
  const std::vector<std::int64_t> longs = {0, 0, -7};
  count = non_zero(longs.data(), 8, false, Shape{3}, 3, out.data());
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1);
  EXPECT_EQ(out[0], 2);
  EXPECT_FALSE(non_zero(longs.data(), 8, false, Shape{3}, 2, out.data()).ok());  // capacity
  EXPECT_FALSE(non_zero(longs.data(), 8, false, Shape{}, 3, out.data()).ok());   // rank 0
}

// The reference: each line's (value, index) pairs fully sorted by a stable
// sort on the value alone, so equal values keep index order.
template <typename T>
void top_k_reference(const std::vector<T>& x, std::int64_t outer, std::int64_t length,
                     std::int64_t inner, std::int64_t k, bool largest, std::vector<T>* values,
                     std::vector<std::int64_t>* indices) {
  values->assign(static_cast<std::size_t>(outer * k * inner), T{});
  indices->assign(values->size(), -1);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t in = 0; in < inner; ++in) {
      std::vector<std::pair<T, std::int64_t>> line;
      for (std::int64_t i = 0; i < length; ++i) {
        line.emplace_back(x[static_cast<std::size_t>((o * length + i) * inner + in)], i);
      }
      std::stable_sort(line.begin(), line.end(), [&](const auto& a, const auto& b) {
        return largest ? a.first > b.first : a.first < b.first;
      });
      for (std::int64_t i = 0; i < k; ++i) {
        const auto at = static_cast<std::size_t>((o * k + i) * inner + in);
        (*values)[at] = line[static_cast<std::size_t>(i)].first;
        (*indices)[at] = line[static_cast<std::size_t>(i)].second;
      }
    }
  }
}

TEST(TopKTest, MatchesAStableSortWithTiesToTheLowerIndex) {
  std::mt19937 rng(3);
  const std::int64_t outer = 3, length = 9, inner = 2;
  std::vector<float> x(static_cast<std::size_t>(outer * length * inner));
  for (float& v : x) v = static_cast<float>(rng() % 4);  // many ties
  std::vector<std::int64_t> scratch(static_cast<std::size_t>(length));
  for (bool largest : {true, false}) {
    for (std::int64_t k : {0, 1, 4, 9}) {
      std::vector<float> want_v, got_v(static_cast<std::size_t>(outer * k * inner));
      std::vector<std::int64_t> want_i, got_i(got_v.size());
      top_k_reference(x, outer, length, inner, k, largest, &want_v, &want_i);
      ASSERT_EQ(top_k(x.data(), outer, length, inner, k, largest, got_v.data(), got_i.data(),
                      scratch.data()),
                Error::kOk);
      EXPECT_EQ(got_v, want_v) << "largest " << largest << " k " << k;
      EXPECT_EQ(got_i, want_i) << "largest " << largest << " k " << k;
    }
  }
  std::vector<float> v(10);
  std::vector<std::int64_t> i(10);
  EXPECT_EQ(top_k(x.data(), outer, length, inner, 10, true, v.data(), i.data(), scratch.data()),
            Error::kInvalidArgument);
}

TEST(TopKTest, TakesInt64) {
  const std::vector<std::int64_t> x = {5, -1, 5, 9};
  std::vector<std::int64_t> v(2), i(2), scratch(4);
  ASSERT_EQ(top_k(x.data(), 1, 4, 1, 2, false, v.data(), i.data(), scratch.data()), Error::kOk);
  EXPECT_EQ(v, (std::vector<std::int64_t>{-1, 5}));
  EXPECT_EQ(i, (std::vector<std::int64_t>{1, 0}));
}

// The reference NMS: repeatedly the best remaining box (highest score,
// then lowest index), then every remaining box overlapping it by more than
// the threshold is dropped; IoU in double precision, corners (y1, x1, y2,
// x2 in any order).
std::vector<std::int64_t> nms_reference(const std::vector<float>& boxes,
                                        const std::vector<float>& scores, std::int64_t count,
                                        std::int64_t max_per_class, double iou_threshold,
                                        double score_threshold) {
  auto corner = [&](std::int64_t b, int axis, bool high) {
    const double p = boxes[static_cast<std::size_t>(b * 4 + axis)];
    const double q = boxes[static_cast<std::size_t>(b * 4 + axis + 2)];
    return high ? std::max(p, q) : std::min(p, q);
  };
  auto iou = [&](std::int64_t a, std::int64_t b) {
    double inter = 1.0, area_a = 1.0, area_b = 1.0;
    for (int axis = 0; axis < 2; ++axis) {
      inter *= std::max(0.0, std::min(corner(a, axis, true), corner(b, axis, true)) -
                                 std::max(corner(a, axis, false), corner(b, axis, false)));
      area_a *= corner(a, axis, true) - corner(a, axis, false);
      area_b *= corner(b, axis, true) - corner(b, axis, false);
    }
    const double u = area_a + area_b - inter;
    return area_a <= 0 || area_b <= 0 || u <= 0 ? 0.0 : inter / u;
  };
  std::vector<bool> alive(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    alive[static_cast<std::size_t>(i)] = scores[static_cast<std::size_t>(i)] > score_threshold;
  }
  std::vector<std::int64_t> picked;
  while (static_cast<std::int64_t>(picked.size()) < max_per_class) {
    std::int64_t best = -1;
    for (std::int64_t i = 0; i < count; ++i) {
      if (alive[static_cast<std::size_t>(i)] &&
          (best < 0 ||
           scores[static_cast<std::size_t>(i)] > scores[static_cast<std::size_t>(best)])) {
        best = i;
      }
    }
    if (best < 0) break;
    picked.push_back(best);
    alive[static_cast<std::size_t>(best)] = false;
    for (std::int64_t i = 0; i < count; ++i) {
      if (alive[static_cast<std::size_t>(i)] && iou(best, i) > iou_threshold) {
        alive[static_cast<std::size_t>(i)] = false;
      }
    }
  }
  return picked;
}

// `count` random boxes, in `groups` clusters set apart along x (as a batched
// NMS offsets each class), against the reference.
void expect_reference_selection(std::int64_t count, int groups) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> coord(0.0F, 10.0F), size(0.5F, 4.0F);
  std::vector<float> boxes, scores;
  for (std::int64_t i = 0; i < count; ++i) {
    const float y = coord(rng), x = coord(rng) + 20.0F * static_cast<float>(i % groups);
    // Corners in either order: ONNX takes min and max.
    if (i % 2 == 0) {
      boxes.insert(boxes.end(), {y, x, y + size(rng), x + size(rng)});
    } else {
      boxes.insert(boxes.end(), {y + size(rng), x + size(rng), y, x});
    }
    scores.push_back(static_cast<float>(rng() % 10) / 10.0F);  // ties
  }
  std::vector<std::int64_t> selected(static_cast<std::size_t>(3 * count)),
      scratch(static_cast<std::size_t>(nms_scratch_size(count)));
  for (const auto& [max_per_class, iou, score] :
       std::vector<std::tuple<std::int64_t, float, float>>{{40, 0.3F, -1.0F},
                                                           {5, 0.5F, 0.25F},
                                                           {40, 0.0F, 0.5F},
                                                           {0, 0.5F, -1.0F},
                                                           {count, 0.4F, -1.0F}}) {
    NmsParams p;
    p.max_per_class = max_per_class;
    p.iou_threshold = iou;
    p.has_score_threshold = score >= 0.0F;
    p.score_threshold = score;
    Result<std::int64_t> n = non_max_suppression(boxes.data(), scores.data(), 1, 1, count, p, count,
                                                 selected.data(), scratch.data());
    ASSERT_TRUE(n.ok());
    const std::vector<std::int64_t> want =
        nms_reference(boxes, scores, count, max_per_class, iou, p.has_score_threshold ? score : -2);
    ASSERT_EQ(*n, static_cast<std::int64_t>(want.size())) << "iou " << iou;
    for (std::size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(selected[k * 3], 0);
      EXPECT_EQ(selected[k * 3 + 1], 0);
      EXPECT_EQ(selected[k * 3 + 2], want[k]) << "selection " << k << " iou " << iou;
    }
  }
}

TEST(NonMaxSuppressionTest, MatchesTheGreedyReferenceOnRandomBoxes) {
  expect_reference_selection(40, 1);
}

TEST(NonMaxSuppressionTest, ManyCandidatesInClustersMatchTheReference) {
  // Enough candidates that the kernel lists kept boxes by position along x
  // and tests a candidate only against those near it.
  expect_reference_selection(1500, 30);
  expect_reference_selection(700, 1);
}

// ONNX's test_nonmaxsuppression_center_point_box_format, two classes and
// two batches made of it: each (batch, class) selects 3, 0, 5.
TEST(NonMaxSuppressionTest, CentrePointBoxesPerBatchAndClass) {
  const std::vector<float> one = {0.5F, 0.5F,  1.0F, 1.0F, 0.5F, 0.6F,   1.0F, 1.0F,
                                  0.5F, 0.4F,  1.0F, 1.0F, 0.5F, 10.5F,  1.0F, 1.0F,
                                  0.5F, 10.6F, 1.0F, 1.0F, 0.5F, 100.5F, 1.0F, 1.0F};
  const std::vector<float> one_scores = {0.9F, 0.75F, 0.6F, 0.95F, 0.5F, 0.3F};
  std::vector<float> boxes = one, scores;
  boxes.insert(boxes.end(), one.begin(), one.end());
  for (int i = 0; i < 4; ++i) scores.insert(scores.end(), one_scores.begin(), one_scores.end());
  NmsParams p;
  p.center_point_box = true;
  p.max_per_class = 3;
  p.iou_threshold = 0.5F;
  std::vector<std::int64_t> selected(36), scratch(nms_scratch_size(6));
  Result<std::int64_t> n = non_max_suppression(boxes.data(), scores.data(), 2, 2, 6, p, 12,
                                               selected.data(), scratch.data());
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(*n, 12);
  std::vector<std::int64_t> want;
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t c = 0; c < 2; ++c) {
      for (std::int64_t box : {3, 0, 5}) want.insert(want.end(), {b, c, box});
    }
  }
  EXPECT_EQ(selected, want);
  // Room for fewer triples than selected: refused, not overrun.
  EXPECT_FALSE(non_max_suppression(boxes.data(), scores.data(), 2, 2, 6, p, 11, selected.data(),
                                   scratch.data())
                   .ok());
}

}  // namespace
}  // namespace glassbox::runtime::kernels
