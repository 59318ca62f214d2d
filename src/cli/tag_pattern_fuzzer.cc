// libFuzzer target: any `--tag-from-path` pattern, matched against any path,
// must parse or give an error, and match in time proportional to the two
// lengths' product, never crash, recurse or backtrack.
// The input is "<pattern>\n<path>" (no newline: the pattern alone, matched
// against a path made of it with its tags filled in).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "src/cli/dump_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  const std::string pattern(text.substr(0, newline));
  const glassbox::StatusOr<glassbox::cli::PathTagPattern> parsed =
      glassbox::cli::PathTagPattern::parse(pattern);
  if (!parsed.ok()) return 0;
  if (newline != std::string_view::npos) {
    (void)parsed->match(std::string(text.substr(newline + 1)));
  } else {
    std::string path;
    for (const char c : pattern) path += (c == '{' || c == '}' || c == '*' || c == '?') ? 'x' : c;
    (void)parsed->match(path);
  }
  return 0;
}
