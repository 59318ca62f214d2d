#include "src/inspector/text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace glassbox::inspector {
namespace {

TEST(ShortenMiddleTest, KeepsHeadAndTheLongerTail) {
  EXPECT_EQ(shorten_middle("/layer4/layer4.1/conv2/Conv", 18), "/laye...conv2/Conv");
  EXPECT_EQ(shorten_middle("/layer4/layer4.1/conv2/Conv", 18).size(), 18u);
  EXPECT_EQ(shorten_middle("short", 18), "short");
  EXPECT_EQ(shorten_middle("abcdef", 2), "ab");
}

Sheet name_sheet(std::vector<std::string> names) {
  Sheet sheet;
  sheet.columns = {"op", "types"};
  sheet.numeric = {false, false};
  for (std::string& n : names) sheet.rows.push_back({std::move(n), std::string(60, 't')});
  return sheet;
}

TEST(AlignedTest, NamesThatDifferOnlyInTheMiddleStayApart) {
  const std::string a = "/features/features.10/block/block.2/fc1/Conv";
  const std::string b = "/features/features.11/block/block.2/fc1/Conv";
  const std::string text = aligned(name_sheet({a, b}), 10);
  // Both names are long; the name column widened until they differ...
  const std::size_t first = text.find('\n', text.find('\n') + 1) + 1;
  const std::string row_a = text.substr(first, text.find('\n', first) - first);
  const std::size_t second = first + row_a.size() + 1;
  const std::string row_b = text.substr(second, text.find('\n', second) - second);
  EXPECT_NE(row_a.substr(0, row_a.find("  ")), row_b.substr(0, row_b.find("  ")));
  // ...while the other text column is still cut to the limit.
  EXPECT_EQ(text.find(std::string(11, 't')), std::string::npos);
}

TEST(AlignedTest, EqualNamesMayStillPrintAlike) {
  const std::string same(80, 'x');
  const std::string text = aligned(name_sheet({same, same}), 10);
  EXPECT_EQ(text.find(same), std::string::npos);  // shortened: equal is fine
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
  }
  return lines;
}

TEST(AlignedTest, FitsATerminalsWidthCuttingOtherColumnsBeforeNames) {
  const std::string name = "/features/features.7/features.7.1/mlp/mlp.3/Add";
  const std::string text = aligned(name_sheet({name}), SIZE_MAX, 60);
  for (const std::string& line : lines_of(text)) EXPECT_LE(line.size(), 60u) << line;
  // The 60 't's gave way first: the name is whole.
  EXPECT_NE(text.find(name), std::string::npos) << text;

  const std::string narrow = aligned(name_sheet({name}), SIZE_MAX, 30);
  // Too narrow for both: the name keeps its distinctive end.
  EXPECT_NE(narrow.find("...lp/mlp.3/Add  "), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find(name), std::string::npos);
}

TEST(AlignedTest, UnlimitedKeepsEveryName) {
  const std::string name = "/features/features.7/features.7.1/mlp/mlp.3/Add";
  const std::string text = aligned(name_sheet({name}), SIZE_MAX);
  EXPECT_NE(text.find(name), std::string::npos);
  EXPECT_NE(text.find(std::string(60, 't')), std::string::npos);
}

TEST(AlignedTest, ShortNamesAreNotCut) {
  const std::string text = aligned(name_sheet({"DELEGATE_CALL (instruction 12)"}), 24);
  EXPECT_NE(text.find("DELEGATE_CALL (instruction 12)"), std::string::npos);
}

}  // namespace
}  // namespace glassbox::inspector

namespace glassbox::inspector {
namespace {

TEST(MetadataTextTest, TextAsTextBinaryAsHex) {
  const std::string op = "convolution_nhwc_f32";
  std::vector<std::uint8_t> text(op.begin(), op.end());
  text.push_back(0);  // a C string's NUL is not part of the text
  EXPECT_EQ(metadata_text(text), op);
  EXPECT_EQ(metadata_text({1, 2, 0xab}), "0x0102ab");
  EXPECT_EQ(metadata_text(std::vector<std::uint8_t>(40, 0x7f)).size(), 2 + 64 + 3u);
  EXPECT_EQ(metadata_text({}), "");
}

}  // namespace
}  // namespace glassbox::inspector
