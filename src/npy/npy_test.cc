#include "glassbox/npy/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "src/testing/status_matchers.h"

namespace glassbox::npy {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using Bytes = std::vector<std::uint8_t>;

// A file as numpy would write it: `header` is the dict text; `payload`
// follows the padded header.
Bytes make_file(const std::string& dict, const Bytes& payload, std::uint8_t major = 1) {
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  std::string header = dict + "\n";
  const std::uint32_t n = static_cast<std::uint32_t>(header.size());
  out.push_back(static_cast<std::uint8_t>(n & 0xff));
  out.push_back(static_cast<std::uint8_t>(n >> 8));
  if (major >= 2) {
    out.push_back(0);
    out.push_back(0);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

template <typename T>
Bytes bytes_of(std::initializer_list<T> values) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

TEST(NpyTest, RoundTripsFloat32) {
  const Array a{{2, 3}, {1, 2, 3, 4, 5, 6}};
  StatusOr<Bytes> bytes = serialize(a);
  ASSERT_THAT(bytes, IsOk());
  // numpy aligns the data to 64 bytes.
  EXPECT_EQ((bytes->size() - a.data.size() * sizeof(float)) % 64, 0u);
  StatusOr<Array> back = parse(*bytes);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, a);
}

TEST(NpyTest, RoundTripsScalarsAndVectors) {
  for (const Array& a : {Array{{}, {7}}, Array{{3}, {1, 2, 3}}, Array{{0, 4}, {}}}) {
    StatusOr<Array> back = parse(*serialize(a));
    ASSERT_THAT(back, IsOk());
    EXPECT_EQ(*back, a);
  }
  const Bytes vector = *serialize(Array{{3}, {1, 2, 3}});
  const std::string text(vector.begin(), vector.end());
  EXPECT_NE(text.find("'shape': (3,)"), std::string::npos);  // Python's 1-tuple.
}

// Integer outputs (token ids, indices) are written exactly, in their own
// dtype; truth values as numpy's bool.
TEST(NpyTest, WritesIntegersAndBooleansInTheirOwnDtype) {
  Array ids{{2}, {0, 0}};
  ids.int_data = {16777217, -1};
  const Bytes i8 = *serialize(ids);
  const std::string text(i8.begin(), i8.end());
  EXPECT_NE(text.find("'descr': '<i8'"), std::string::npos);
  EXPECT_EQ(parse(i8)->int_data, (std::vector<std::int64_t>{16777217, -1}));
  EXPECT_EQ(i8.size() % 64, 16u) << "header padded to 64, then 2 x 8 bytes";
  Array mask{{3}, {0, 0, 0}};
  mask.int_data = {1, 0, 1};
  mask.int_dtype = ScalarType::kBool;
  const Bytes b1 = *serialize(mask);
  const std::string btext(b1.begin(), b1.end());
  EXPECT_NE(btext.find("'descr': '|b1'"), std::string::npos);
  EXPECT_EQ(b1.size() % 64, 3u);
  EXPECT_EQ(b1.back(), 1);
  Array wrong{{3}, {0, 0, 0}};
  wrong.int_data = {1};
  EXPECT_FALSE(serialize(wrong).ok());
}

// A uint8 output of 64 KiB is 64 KiB of data (it was written as 4-byte
// elements), each value truncated to its dtype's width.
TEST(NpyTest, WritesNarrowIntegersAtTheirOwnWidth) {
  Array bytes{{2, 2}, {0, 0, 0, 0}};
  bytes.int_data = {0, 7, 255, 256};
  bytes.int_dtype = ScalarType::kByte;
  const Bytes u1 = *serialize(bytes);
  const std::string text(u1.begin(), u1.end());
  EXPECT_NE(text.find("'descr': '|u1'"), std::string::npos);
  EXPECT_EQ(u1.size() % 64, 4u);
  EXPECT_EQ(Bytes(u1.end() - 4, u1.end()), (Bytes{0, 7, 255, 0}));
  bytes.int_dtype = ScalarType::kChar;
  bytes.int_data = {-1, 1, -128, 127};
  const Bytes i1 = *serialize(bytes);
  EXPECT_NE(std::string(i1.begin(), i1.end()).find("'descr': '|i1'"), std::string::npos);
  EXPECT_EQ(Bytes(i1.end() - 4, i1.end()), (Bytes{255, 1, 128, 127}));
  bytes.int_dtype = ScalarType::kInt;
  const Bytes i4 = *serialize(bytes);
  EXPECT_NE(std::string(i4.begin(), i4.end()).find("'descr': '<i4'"), std::string::npos);
  EXPECT_EQ(parse(i4)->int_data, (std::vector<std::int64_t>{-1, 1, -128, 127}));
  bytes.int_dtype = ScalarType::kHalf;
  EXPECT_FALSE(serialize(bytes).ok());
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  // Header bytes of np.save(np.arange(6, dtype=np.float64).reshape(2, 3)).
  const Bytes f8 =
      make_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }          ",
                bytes_of<double>({0, 1, 2, 3, 4, 5}));
  StatusOr<Array> a = parse(f8);
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a->data, (std::vector<float>{0, 1, 2, 3, 4, 5}));

  const Bytes i8 = make_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                             bytes_of<std::int64_t>({-3, 9}));
  EXPECT_EQ(parse(i8)->data, (std::vector<float>{-3, 9}));
  // Integers keep their exact values beside the float copy (token ids).
  const Bytes ids = make_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                              bytes_of<std::int64_t>({16777217, -1}));
  EXPECT_EQ(parse(ids)->int_data, (std::vector<std::int64_t>{16777217, -1}));
  EXPECT_TRUE(parse(f8)->int_data.empty());
  const Bytes v2 = make_file("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": ()}",
                             bytes_of<float>({2.5f}), 2);
  EXPECT_EQ(parse(v2)->data, (std::vector<float>{2.5f}));
}

struct BadCase {
  const char* name;
  Bytes bytes;
  Error error;
  const char* fragment;
};

TEST(NpyTest, RejectsBadFilesClearly) {
  const Bytes one = bytes_of<float>({1});
  const std::vector<BadCase> cases = {
      {"empty", {}, Error::kCorruptData, "magic"},
      {"not npy", Bytes{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}, Error::kCorruptData, "magic"},
      {"version", make_file("{}", {}, 9), Error::kVersionMismatch, "version 9.0"},
      {"fortran", make_file("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", one),
       Error::kNotSupported, "fortran_order"},
      {"big endian", make_file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", one),
       Error::kNotSupported, "big-endian"},
      {"dtype", make_file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", one),
       Error::kNotSupported, "'<c8' is not supported"},
      {"short payload", make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", one),
       Error::kCorruptData, "payload is 4 bytes"},
      {"missing key", make_file("{'descr': '<f4', 'shape': (1,), }", one), Error::kCorruptData,
       "exactly the keys"},
      {"bad shape", make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", one),
       Error::kCorruptData, "non-negative integer"},
      {"overflow",
       make_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                 "(4294967296, 4294967296, 4294967296), }",
                 one),
       Error::kCorruptData, "overflows"},
      {"garbage", make_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", one),
       Error::kCorruptData, "trailing"},
  };
  for (const BadCase& c : cases) {
    StatusOr<Array> a = parse(c.bytes, "case.npy");
    ASSERT_FALSE(a.ok()) << c.name;
    EXPECT_EQ(a.error(), c.error) << c.name << ": " << a.message();
    EXPECT_NE(a.message().find(c.fragment), std::string::npos) << c.name << ": " << a.message();
    EXPECT_NE(a.message().find("case.npy"), std::string::npos) << c.name;
  }
  // Every truncation of a valid file is an error, never a crash.
  const Bytes good = *serialize(Array{{2, 2}, {1, 2, 3, 4}});
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(parse(std::span(good.data(), n)).ok()) << n;
  }
}

TEST(NpyTest, WritesAndReadsFiles) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "glassbox_npy_test.npy").string();
  const Array a{{1, 2}, {0.5f, -1.5f}};
  ASSERT_TRUE(write_file(path, a).ok());
  StatusOr<Array> back = read_file(path);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, a);
  std::remove(path.c_str());
  EXPECT_THAT(read_file(path), ErrorIs(Error::kAccessFailed));
  EXPECT_THAT(serialize(Array{{3}, {1}}), ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::npy
