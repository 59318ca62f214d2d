#include "glassbox/etdump/delegate_output_filter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

const DelegateDebugIntId kNoId = kUnsetDelegateDebugIntId;

TEST(IdentifierFilterTest, EmptyFilterKeepsEverything) {
  IdentifierFilter filter;
  EXPECT_TRUE(*filter.keep("anything", kNoId));
  EXPECT_TRUE(*filter.keep(nullptr, DelegateDebugIntId(0)));
  EXPECT_TRUE(*filter.keep(nullptr, DelegateDebugIntId(1 << 30)));
}

TEST(IdentifierFilterTest, IntRangeIsHalfOpenAndLeavesNamesAlone) {
  IdentifierFilter filter;
  ASSERT_EQ(filter.set_int_range(DelegateDebugIntId(1), DelegateDebugIntId(10)), Error::kOk);
  EXPECT_FALSE(*filter.keep(nullptr, DelegateDebugIntId(0)));
  EXPECT_TRUE(*filter.keep(nullptr, DelegateDebugIntId(1)));
  EXPECT_TRUE(*filter.keep(nullptr, DelegateDebugIntId(9)));
  EXPECT_FALSE(*filter.keep(nullptr, DelegateDebugIntId(10)));
  EXPECT_TRUE(*filter.keep("conv", kNoId)) << "no pattern: every name is kept";
  filter.clear_int_range();
  EXPECT_TRUE(*filter.keep(nullptr, DelegateDebugIntId(20)));
}

TEST(IdentifierFilterTest, BadRangesAreRefusedAndChangeNothing) {
  IdentifierFilter filter;
  EXPECT_EQ(filter.set_int_range(DelegateDebugIntId(5), DelegateDebugIntId(5)),
            Error::kInvalidArgument);
  EXPECT_EQ(filter.set_int_range(DelegateDebugIntId(6), DelegateDebugIntId(5)),
            Error::kInvalidArgument);
  EXPECT_EQ(filter.set_int_range(kNoId, DelegateDebugIntId(5)), Error::kInvalidArgument);
  EXPECT_FALSE(filter.has_int_range());
}

TEST(IdentifierFilterTest, PatternsMatchWholeNamesWithStars) {
  IdentifierFilter filter;
  ASSERT_EQ(filter.add_name_pattern("*.cos"), Error::kOk);
  ASSERT_EQ(filter.add_name_pattern("conv_relu_*"), Error::kOk);
  EXPECT_TRUE(*filter.keep("tan.cos", kNoId));
  EXPECT_FALSE(*filter.keep("tan.cosh", kNoId)) << "whole-name match, not a substring";
  EXPECT_TRUE(*filter.keep("conv_relu_1", kNoId));
  EXPECT_FALSE(*filter.keep("xconv_relu_1", kNoId));
  EXPECT_FALSE(*filter.keep("tan.sin", kNoId));
  EXPECT_TRUE(*filter.keep(nullptr, DelegateDebugIntId(3))) << "no range: every int is kept";
}

TEST(IdentifierFilterTest, Matcher) {
  EXPECT_TRUE(IdentifierFilter::matches("*", ""));
  EXPECT_TRUE(IdentifierFilter::matches("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(IdentifierFilter::matches("a*b*c", "aXbYbZ"));
  EXPECT_TRUE(IdentifierFilter::matches("**x", "yx"));
  EXPECT_FALSE(IdentifierFilter::matches("abc", "ab"));
  EXPECT_FALSE(IdentifierFilter::matches("", "a"));
  EXPECT_TRUE(IdentifierFilter::matches("a.b", "a.b")) << "'.' is literal";
  EXPECT_FALSE(IdentifierFilter::matches("a.b", "axb"));
}

TEST(IdentifierFilterTest, PatternLimits) {
  IdentifierFilter filter;
  EXPECT_EQ(filter.add_name_pattern(nullptr), Error::kInvalidArgument);
  EXPECT_EQ(filter.add_name_pattern(""), Error::kInvalidArgument);
  const std::string too_long(IdentifierFilter::kMaxPatternLength + 1, 'a');
  EXPECT_EQ(filter.add_name_pattern(too_long.c_str()), Error::kInvalidArgument);
  for (std::size_t i = 0; i < IdentifierFilter::kMaxPatterns; ++i) {
    ASSERT_EQ(filter.add_name_pattern("p*"), Error::kOk);
  }
  EXPECT_EQ(filter.add_name_pattern("q"), Error::kOutOfResources);
  EXPECT_EQ(filter.num_name_patterns(), IdentifierFilter::kMaxPatterns);
  filter.clear_name_patterns();
  EXPECT_TRUE(*filter.keep("q", kNoId));
}

TEST(IdentifierFilterTest, BothOrNeitherIdentifierIsAnError) {
  IdentifierFilter filter;
  EXPECT_THAT(filter.keep("x", DelegateDebugIntId(1)), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(filter.keep(nullptr, kNoId), ErrorIs(Error::kInvalidArgument));
}

// With ETDumpGen: declined outputs are not logged, kept ones are, with data.
TEST(IdentifierFilterTest, LimitsWhatETDumpGenCaptures) {
  IdentifierFilter filter;
  ASSERT_EQ(filter.set_int_range(DelegateDebugIntId(10), DelegateDebugIntId(20)), Error::kOk);
  ASSERT_EQ(filter.add_name_pattern("*.cos"), Error::kOk);
  std::vector<std::uint8_t> storage(4096);
  Result<BufferDataSink> sink = BufferDataSink::create(storage);
  ASSERT_THAT(sink, IsOk());
  ETDumpGen gen;
  gen.set_data_sink(&*sink);
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  gen.set_delegate_output_filter(&filter);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);

  const float values[2] = {1.5f, -2.0f};
  const std::int64_t sizes[1] = {2};
  const TensorView tensor{ScalarType::kFloat, Span<const std::int64_t>(sizes, 1), {}, values};
  EXPECT_FALSE(*gen.log_intermediate_output_delegate(nullptr, DelegateDebugIntId(5), tensor));
  EXPECT_TRUE(*gen.log_intermediate_output_delegate(nullptr, DelegateDebugIntId(15), tensor));
  EXPECT_FALSE(*gen.log_intermediate_output_delegate("tan.sin", kNoId, tensor));
  EXPECT_TRUE(*gen.log_intermediate_output_delegate("tan.cos", kNoId, tensor));

  StatusOr<ETDumpFile> dump = parse_etdump(*gen.get_etdump_data(), "filter");
  ASSERT_THAT(dump, IsOk());
  std::vector<std::string> logged;
  for (const Event& e : dump->runs.at(0).events) {
    const DebugEvent* d = e.debug();
    if (d == nullptr) continue;
    logged.push_back(
        d->delegate_debug_id_str.value_or(std::to_string(d->delegate_debug_id_int.value)));
    StatusOr<std::vector<double>> data = read_tensor_values(*d->value.tensor, sink->data());
    ASSERT_THAT(data, IsOk());
    EXPECT_EQ(*data, (std::vector<double>{1.5, -2.0}));
  }
  EXPECT_EQ(logged, (std::vector<std::string>{"15", "tan.cos"}));
}

}  // namespace
}  // namespace glassbox::etdump
