#pragma once
// Many ETDumps on the command line: `--etdump` values that are files,
// folders (their *.etdp files, not recursive) or globs expanded here
// (glob(3), for quoted patterns), and the tags each dump carries (from its
// path through a `{name}` pattern, and from a sidecar `<dump>.json`).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::cli {

/// Tag name -> value.
using Tags = std::map<std::string, std::string>;

/// The dumps `values` name, sorted by path, each once. Errors
/// (kNotFound/kAccessFailed/kInvalidArgument) name the value: a missing
/// file, an unreadable folder, a folder without *.etdp, a glob matching
/// nothing.
StatusOr<std::vector<std::string>> expand_dump_paths(const std::vector<std::string>& values);

/// The dump files `values` name, for the check that no output overwrites
/// an input: their expansion (what a folder or glob matches), or the values
/// as given when they do not expand (the command reports that itself).
std::vector<std::string> dump_files_to_protect(const std::vector<std::string>& values);

/// Whether any value needs expanding (a folder or a glob pattern), i.e.
/// the command reads several dumps even when one value is given.
bool names_many_dumps(const std::vector<std::string>& values);

/// `runs/{device}/{app_version}/*.etdp`: `{name}` matches one path
/// component and becomes a tag, `*` and `?` match within a component. The
/// pattern matches the end of a path, at a component boundary. A `*` or
/// tag takes the longest value that lets the rest match. Matching a path
/// takes time and memory proportional to the pattern's length times the
/// longest file name's (255 bytes on Linux) however many stars there are:
/// no backtracking, no recursion.
class PathTagPattern {
 public:
  /// Errors (kInvalidArgument), "'<pattern>': <problem>": an unclosed `{`,
  /// an empty or repeated name, no name at all.
  static StatusOr<PathTagPattern> parse(const std::string& pattern);
  /// The tags of `path`, or nullopt when the path does not match.
  std::optional<Tags> match(const std::string& path) const;

 private:
  // One token of a component: a literal byte, `?`, `*` (runs of stars are
  // one) or `{name}` (the next of names_).
  struct Token {
    enum class Kind : std::uint8_t { kLiteral, kAnyOne, kAnyRun, kTag };
    Kind kind;
    char literal = 0;
  };
  using Component = std::vector<Token>;

  // Whether `tokens` match all of `text`; appends its tags' values.
  static bool match_component(const Component& tokens, std::string_view text,
                              std::vector<std::string>* values);

  std::vector<Component> components_;  ///< The pattern split at '/'.
  std::vector<std::string> names_;     ///< Tag names, in pattern order.
};

/// The largest tag sidecar read: a few tags take a few hundred bytes.
inline constexpr std::uint64_t kMaxSidecarBytes = std::uint64_t{1} << 20;

/// The tags of the sidecar `<dump>.json` (a flat JSON object of strings),
/// none when there is no such file. It is read as every input is
/// (io::read_file): a regular file of at most kMaxSidecarBytes, or an
/// error naming the sidecar (a FIFO, a device, a folder, a larger file).
StatusOr<Tags> read_sidecar_tags(const std::string& dump_path);

/// The tags of a sidecar's `text`; errors name `sidecar`.
StatusOr<Tags> parse_sidecar_tags(std::string_view text, const std::string& sidecar);

}  // namespace glassbox::cli
