#pragma once
/// @file
/// Text from a file made safe to print: names and strings read from an
/// ETDump, ETRecord or model may hold terminal escape sequences or line
/// breaks that would rewrite the user's screen or forge rows of a table or
/// CSV. Every text format (Inspector tables and CSV/TSV, `etdump show`)
/// passes such strings through printable().

#include <string>
#include <string_view>

namespace glassbox::io {

/// `text` with every byte that could control a terminal or break a line
/// escaped, C style: "\n", "\r", "\t", "\\" and "\xNN" for the other C0
/// controls, DEL and bytes that are not well-formed UTF-8; "\u0080" to
/// "\u009f" for the C1 controls, and "\u202e" and the like for the
/// bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to
/// U+202E, U+2066 to U+2069), which reorder text on screen. Valid UTF-8
/// otherwise passes unchanged, so ordinary names print as they are.
std::string printable(std::string_view text);

}  // namespace glassbox::io
