#include "frontends/onnx/constant_folding.h"

#include <gtest/gtest.h>

namespace glassbox::frontends::onnx {
namespace {

TEST(ConstantFoldingTest, BinaryBroadcastsAndKeepsInts) {
  const HostTensor a = HostTensor::of_ints({2, 1}, {6, 9});
  const HostTensor b = HostTensor::of_ints({3}, {1, 2, 3});
  StatusOr<HostTensor> q = fold_binary("Div", a, b);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_FALSE(q->is_float);
  EXPECT_EQ(q->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(q->ints, (std::vector<std::int64_t>{6, 3, 2, 9, 4, 3}));
  EXPECT_FALSE(fold_binary("Div", a, HostTensor::of_ints({}, {0})).ok());
  EXPECT_TRUE(fold_binary("Mul", a, HostTensor::of_floats({}, {0.5f}))->is_float);
}

TEST(ConstantFoldingTest, TransposeGatherConcat) {
  const HostTensor x = HostTensor::of_floats({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(fold_transpose(x, {1, 0})->floats, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_FALSE(fold_transpose(x, {0, 0}).ok());
  // PyTorch's x.size(0): Shape -> Gather(indices=0, a scalar).
  const HostTensor shape = HostTensor::of_ints({4}, {1, 3, 7, 7});
  StatusOr<HostTensor> n = fold_gather(shape, HostTensor::of_ints({}, {0}), 0);
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->shape.empty());
  EXPECT_EQ(n->ints, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(fold_gather(x, HostTensor::of_ints({1}, {-1}), 1)->floats, (std::vector<float>{3, 6}));
  EXPECT_FALSE(fold_gather(x, HostTensor::of_ints({1}, {3}), 1).ok());
  const HostTensor a = HostTensor::of_ints({1}, {1});
  const HostTensor b = HostTensor::of_ints({1}, {-1});
  EXPECT_EQ(fold_concat({&a, &b}, 0)->ints, (std::vector<std::int64_t>{1, -1}));
  EXPECT_EQ(fold_concat({&x, &x}, 1)->shape, (std::vector<std::int64_t>{2, 6}));
  EXPECT_FALSE(fold_concat({&a, &x}, 0).ok());
}

}  // namespace
}  // namespace glassbox::frontends::onnx
