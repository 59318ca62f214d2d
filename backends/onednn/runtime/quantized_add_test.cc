#include "backends/onednn/runtime/quantized_add.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "glassbox/runtime/kernels/quantized.h"

namespace glassbox::backends::onednn {
namespace {

namespace k = runtime::kernels;

// Every pair of byte values, s8 and u8, several scale ratios (ties
// included: 0.5 and 0.25 make many) and clamps: identical to qlinear_add.
TEST(QuantizedAddTest, MatchesQlinearAddOnEveryPair) {
  std::vector<std::uint8_t> a(65536), b(65536);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<std::uint8_t>(i & 0xff);
    b[i] = static_cast<std::uint8_t>(i >> 8);
  }
  struct Case {
    float sa, sb, sy;
    std::int32_t za, zb, zy, lo, hi;
  };
  for (const bool s8 : {false, true}) {
    const ScalarType t = s8 ? ScalarType::kChar : ScalarType::kByte;
    const std::int32_t tmin = s8 ? -128 : 0, tmax = s8 ? 127 : 255;
    for (const Case& c : {Case{0.02f, 0.03f, 0.04f, 5, -7, 3, tmin, tmax},
                          Case{0.5f, 0.25f, 1.f, 0, 0, 0, tmin, tmax},
                          Case{0.0123f, 0.0456f, 0.0311f, 17, 100, -20, tmin, tmax},
                          Case{0.1f, 0.1f, 0.05f, 10, 10, 12, 12, 100}}) {
      const std::int32_t zb = s8 ? c.zb : c.zb + 20, zy = s8 ? c.zy : c.zy + 30;
      const std::int32_t lo = std::max(c.lo, tmin), hi = std::min(c.hi, tmax);
      std::vector<std::uint8_t> want(a.size()), got(a.size());
      const k::QuantInput qa{a.data(), t, c.sa, c.za};
      const k::QuantInput qb{b.data(), t, c.sb, zb};
      const k::QuantOutput qy{want.data(), t, c.sy, zy, {lo, hi}};
      const std::int64_t n = static_cast<std::int64_t>(a.size());
      ASSERT_EQ(k::qlinear_add(qa, {&n, 1}, qb, {&n, 1}, qy).code, Error::kOk);
      const QuantizedAddParams p{.is_signed = s8,
                                 .a_zero_point = c.za,
                                 .b_zero_point = zb,
                                 .ratio_a = c.sa / c.sy,
                                 .ratio_b = c.sb / c.sy,
                                 .y_zero_point = zy,
                                 .y_min = lo,
                                 .y_max = hi};
      quantized_add(p, a.data(), b.data(), got.data(), n);
      EXPECT_EQ(got, want) << "s8 " << s8 << " scales " << c.sa << " " << c.sb << " " << c.sy;
    }
  }
}

}  // namespace
}  // namespace glassbox::backends::onednn
