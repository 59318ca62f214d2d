#include <cstring>
#include <limits>

#include "glassbox/etdump/etdump_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
void put(std::vector<std::uint8_t>* data, std::size_t at, T value) {
  if (data->size() < at + sizeof(T)) data->resize(at + sizeof(T));
  std::memcpy(data->data() + at, &value, sizeof(T));
}

Tensor tensor_of(ScalarType type, std::vector<std::int64_t> sizes, std::int64_t offset,
                 std::vector<std::int64_t> strides = {}) {
  Tensor t;
  t.scalar_type = static_cast<std::int8_t>(type);
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  t.offset = offset;
  return t;
}

std::vector<double> values_ok(const Tensor& t, const std::vector<std::uint8_t>& data) {
  auto v = read_tensor_values(t, data);
  EXPECT_THAT(v, IsOk());
  return v.ok() ? *v : std::vector<double>{};
}

TEST(TensorValuesTest, ContiguousFloatAtOffset) {
  std::vector<std::uint8_t> data(8, 0xee);  // another tensor's bytes first
  for (int i = 0; i < 6; ++i) put(&data, 8 + 4 * i, 0.5f * static_cast<float>(i));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kFloat, {2, 3}, 8), data),
              ElementsAre(0, 0.5, 1, 1.5, 2, 2.5));
}

TEST(TensorValuesTest, StridesAreHonoured) {
  // A 2x3 view of a 3x2 row-major buffer (a transpose): strides {1, 2}.
  std::vector<std::uint8_t> data;
  for (std::int32_t i = 0; i < 6; ++i) put(&data, 4 * static_cast<std::size_t>(i), i);
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kInt, {2, 3}, 0, {1, 2}), data),
              ElementsAre(0, 2, 4, 1, 3, 5));
}

TEST(TensorValuesTest, IntegerAndBoolTypes) {
  std::vector<std::uint8_t> data;
  put<std::int8_t>(&data, 0, -3);
  put<std::uint8_t>(&data, 1, 200);
  put<std::int16_t>(&data, 2, -300);
  put<std::int64_t>(&data, 8, -5'000'000'000);
  put<std::uint8_t>(&data, 16, 1);
  put<std::uint16_t>(&data, 18, 65535);
  put<std::uint32_t>(&data, 20, 4'000'000'000u);
  put<std::uint64_t>(&data, 24, 1ull << 40);
  put<double>(&data, 32, -1.25);
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kChar, {1}, 0), data), ElementsAre(-3));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kByte, {1}, 1), data), ElementsAre(200));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kShort, {1}, 2), data), ElementsAre(-300));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kLong, {1}, 8), data), ElementsAre(-5'000'000'000.0));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kBool, {1}, 16), data), ElementsAre(1));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kUInt16, {1}, 18), data), ElementsAre(65535));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kUInt32, {1}, 20), data),
              ElementsAre(4'000'000'000.0));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kUInt64, {1}, 24), data),
              ElementsAre(1099511627776.0));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kDouble, {}, 32), data),
              ElementsAre(-1.25));  // rank 0: one element
}

TEST(TensorValuesTest, HalfAndBFloat16) {
  std::vector<std::uint8_t> data;
  put<std::uint16_t>(&data, 0, 0x3c00);  // half 1.0
  put<std::uint16_t>(&data, 2, 0xc000);  // half -2.0
  put<std::uint16_t>(&data, 4, 0x0001);  // half smallest subnormal
  put<std::uint16_t>(&data, 6, 0x7c00);  // half +inf
  put<std::uint16_t>(&data, 8, 0x3fc0);  // bfloat16 1.5
  EXPECT_THAT(
      values_ok(tensor_of(ScalarType::kHalf, {4}, 0), data),
      ElementsAre(1.0, -2.0, 5.9604644775390625e-08, std::numeric_limits<double>::infinity()));
  EXPECT_THAT(values_ok(tensor_of(ScalarType::kBFloat16, {1}, 8), data), ElementsAre(1.5));
}

TEST(TensorValuesTest, EmptyTensorHasNoValues) {
  EXPECT_TRUE(values_ok(tensor_of(ScalarType::kFloat, {0, 4}, 0), {}).empty());
  // As ETDumpGen logs one (no bytes, offset -1): a NonZero that found
  // nothing has values, none, not missing data.
  EXPECT_TRUE(values_ok(tensor_of(ScalarType::kLong, {1, 0}, -1), {}).empty());
}

TEST(TensorValuesTest, Errors) {
  const std::vector<std::uint8_t> data(16, 0);
  const auto error = [&](const Tensor& t) { return read_tensor_values(t, data).status(); };
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {2}, -1)), ErrorIs(Error::kNotFound));
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {2}, -8)), ErrorIs(Error::kCorruptData));
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {5}, 0)).message(),
              HasSubstr("outside the debug data (16 bytes)"));
  // Data past the end: a short debug-data file (or another run's), not a
  // damaged ETDump.
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {1}, 14)), ErrorIs(Error::kMismatch));
  EXPECT_THAT(error(tensor_of(ScalarType::kQInt8, {1}, 0)), ErrorIs(Error::kNotSupported));
  Tensor unknown = tensor_of(ScalarType::kFloat, {1}, 0);
  unknown.scalar_type = 99;
  EXPECT_EQ(error(unknown).message(), "cannot decode tensor data of unknown scalar type 99");
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {-1}, 0)), ErrorIs(Error::kCorruptData));
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {2, 2}, 0, {1})), ErrorIs(Error::kCorruptData));
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {2}, 0, {-1})),
              ErrorIs(Error::kCorruptData));  // would read before the offset
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {huge, huge}, 0)), ErrorIs(Error::kCorruptData));
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {1'000'000}, 0, {0})),
              ErrorIs(Error::kMismatch));  // broadcast far beyond the data
  EXPECT_THAT(error(tensor_of(ScalarType::kFloat, {2}, huge)), ErrorIs(Error::kMismatch));
}

}  // namespace
}  // namespace glassbox::etdump
