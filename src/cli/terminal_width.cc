#include "src/cli/terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "glassbox/inspector/formats.h"

namespace glassbox::cli {

std::size_t terminal_columns(const char* columns_env, unsigned short ioctl_columns) {
  if (columns_env != nullptr) {
    std::size_t columns = 0;
    const char* end = columns_env + std::strlen(columns_env);
    const auto [ptr, ec] = std::from_chars(columns_env, end, columns);
    if (ec == std::errc() && ptr == end && columns > 0) return columns;
  }
  return ioctl_columns;
}

std::size_t table_width_for(const std::ostream& out, bool to_file) {
  // A stream the caller captures (tests, a library user) is not a terminal
  // even when the process's standard output is one.
  if (to_file || &out != &std::cout || ::isatty(STDOUT_FILENO) == 0) {
    return inspector::kTableFullNames;
  }
  winsize size{};
  const unsigned short ioctl_columns =
      ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
  const std::size_t columns = terminal_columns(std::getenv("COLUMNS"), ioctl_columns);
  return columns > 0 ? columns : inspector::kTableCells;
}

}  // namespace glassbox::cli
