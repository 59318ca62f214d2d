// Names from a dump reach the terminal and CSV escaped: an event name with
// a terminal escape sequence or a line break neither controls the
// terminal nor forges a row.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"

namespace glassbox::inspector {
namespace {

using testing::DumpBuilder;
using testing::value_of;

constexpr char kHostileName[] = "evil\x1b[2J\nforged,row\t\x07";

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(EscapingTest, HostileEventNamesAreEscapedInEveryTextFormat) {
  DumpBuilder hostile, plain;
  hostile.run("Execute").str_event(kHostileName, 0, 0, 10);
  plain.run("Execute").str_event("plain", 0, 0, 10);
  const Inspector with_hostile = value_of(Inspector::create(hostile.build()));
  const Inspector with_plain = value_of(Inspector::create(plain.build()));
  for (Format format : {Format::kTable, Format::kCsv, Format::kTsv}) {
    const std::string text = render(with_hostile, View::kEvents, format);
    SCOPED_TRACE(to_string(format));
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    EXPECT_EQ(text.find('\x07'), std::string::npos);
    // The same number of lines as with a plain name: no forged row.
    EXPECT_EQ(lines(text), lines(render(with_plain, View::kEvents, format)));
    EXPECT_NE(text.find("evil\\x1b[2J\\nforged"), std::string::npos) << text;
  }
}

// Tag values come from paths and sidecars: a value with a line break or an
// escape sequence forged a section header of `--group-by`'s table.
TEST(EscapingTest, HostileTagValuesAreEscapedInGroupedFormats) {
  DumpBuilder dump;
  dump.run("Execute").str_event("plain", 0, 0, 10);
  const std::vector<TagGroup> groups = {{kHostileName, value_of(Inspector::create(dump.build()))},
                                        {"plain", value_of(Inspector::create(dump.build()))}};
  for (Format format : {Format::kTable, Format::kCsv, Format::kTsv}) {
    const std::string text = value_of(render_grouped(groups, "dev\nice", View::kEvents, format));
    SCOPED_TRACE(to_string(format));
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
    EXPECT_NE(text.find("evil\\x1b[2J\\nforged"), std::string::npos) << text;
    EXPECT_EQ(text.find("dev\nice"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace glassbox::inspector
