#include "glassbox/io/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace glassbox::io {
namespace {

TEST(PrintableTest, OrdinaryNamesAreUnchanged) {
  EXPECT_EQ(printable("/layer4/layer4.1/conv2/Conv"), "/layer4/layer4.1/conv2/Conv");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80");
  EXPECT_EQ(printable(""), "");
}

TEST(PrintableTest, TerminalControlsAndLineBreaksAreEscaped) {
  EXPECT_EQ(printable("\x1b[2Jclear"), "\\x1b[2Jclear");
  EXPECT_EQ(printable("row\nforged,row\r\t"), "row\\nforged,row\\r\\t");
  EXPECT_EQ(printable(std::string("nul\0bell\a\x7f", 10)), "nul\\x00bell\\x07\\x7f");
  EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
  // C1 CSI, U+009B, as UTF-8.
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\u009b2J");
}

// "Trojan Source": a right-to-left override shows "gpj.exe" as "exe.jpg".
TEST(PrintableTest, BidirectionalFormattingCharactersAreEscaped) {
  EXPECT_EQ(printable("a\xe2\x80\xaegpj.exe"), "a\\u202egpj.exe");
  EXPECT_EQ(printable("\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c"),
            "\\u2066x\\u2069\\u200f\\u061c");
  // Neighbours of the bidi ranges print as they are.
  EXPECT_EQ(printable("\xe2\x80\x94\xe2\x81\xaa"), "\xe2\x80\x94\xe2\x81\xaa");
}

TEST(PrintableTest, InvalidUtf8IsEscapedByteByByte) {
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("\xc3"), "\\xc3");                    // truncated sequence
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
}

}  // namespace
}  // namespace glassbox::io
