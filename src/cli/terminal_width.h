#pragma once
// How wide `inspect`'s table may be: a terminal's width when standard
// output is one, every name whole when the text goes to a file or a pipe
// (where nothing wraps it and a reader greps for the full name).

#include <cstddef>
#include <ostream>

namespace glassbox::cli {

/// A terminal's columns: COLUMNS when it holds a positive number (as `ls`
/// lets the user choose), else the ioctl's count; 0 when neither is known.
/// `columns_env` may be null.
std::size_t terminal_columns(const char* columns_env, unsigned short ioctl_columns);

/// The table width (inspector::kTableCells, kTableFullNames or a width;
/// glassbox/inspector/formats.h) for text written to `out`, or to a file
/// when `to_file`: the terminal's width only for the process's standard
/// output on a terminal.
std::size_t table_width_for(const std::ostream& out, bool to_file);

}  // namespace glassbox::cli
