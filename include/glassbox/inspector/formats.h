#pragma once
/// @file
/// Renders the views (views.h) as text. Every format is deterministic: the
/// same input gives the same bytes. The shapes are documented, and kept
/// stable, in docs/inspector.md.
///
/// | format | what                                                          |
/// |--------|---------------------------------------------------------------|
/// | table  | aligned columns for a terminal, one time unit chosen per table |
/// | csv    | RFC 4180, times in ns with 1 decimal, lists joined with ";"   |
/// | tsv    | as csv, tab-separated, tabs/newlines in fields become spaces  |
/// | json   | {"format": "glassbox-inspector", "version": 1, ...}           |
/// | chrome | Chrome Trace Event JSON (Perfetto UI, chrome://tracing)       |
///
/// chrome is a timeline of every occurrence and ignores the view.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/io/output_files.h"

namespace glassbox::inspector {

enum class View : std::uint8_t { kEvents, kOps, kModules, kReconcile, kTypes };
enum class Format : std::uint8_t { kTable, kCsv, kTsv, kJson, kChrome };

/// "events", "ops", "modules", "reconcile", "types".
std::string_view to_string(View view);
/// "table", "csv", "tsv", "json", "chrome".
std::string_view to_string(Format format);
/// Inverses of to_string; kInvalidArgument names the accepted values.
StatusOr<View> parse_view(std::string_view text);
StatusOr<Format> parse_format(std::string_view text);

/// How wide a table (Format::kTable) may be: kTableCells cuts text cells
/// at 24 characters (about 100 columns); kTableFullNames never cuts (a
/// file or a pipe, where every name stays whole); any other value is a
/// terminal's width in columns, which the table fits by shortening its
/// widest text columns in the middle. Other formats ignore it.
inline constexpr std::size_t kTableCells = 0;
inline constexpr std::size_t kTableFullNames = SIZE_MAX;

/// `view` of `inspector` in `format`.
std::string render(const Inspector& inspector, View view, Format format,
                   std::size_t table_width = kTableCells);

/// The Inspector of the dumps that share one value of a tag.
struct TagGroup {
  std::string value;  ///< "" for dumps without the tag.
  Inspector inspector;
};

/// `view` split by the value of `tag` (groups in the order given): csv and
/// tsv get `tag` as their first column, json is {"format":
/// "glassbox-inspector-grouped", "version": 1, "group_by": tag, "groups":
/// [{"value": v, "inspector": <the json form>}]}, the table one section per
/// value. chrome is not offered (kInvalidArgument).
StatusOr<std::string> render_grouped(const std::vector<TagGroup>& groups, const std::string& tag,
                                     View view, Format format);

/// Per-op deltas (compare_ops) in `format` (chrome is not offered:
/// kInvalidArgument).
StatusOr<std::string> render_comparison(const Inspector& baseline, const Inspector& current,
                                        Format format, std::size_t table_width = kTableCells);

/// The Chrome Trace Event JSON of every occurrence: "X" complete events
/// with microsecond ts/dur (3 decimals: ns precision) relative to the first
/// event, one track (tid) per (run, logging thread); events of the thread
/// that ran the method share its track, so measured delegate events nest
/// under their DELEGATE_CALL in time, while worker threads get tracks of
/// their own (overlap on one track is out of spec for Perfetto); "M"
/// process_name / thread_name / thread_sort_index metadata; displayTimeUnit
/// "ns". Events are sorted by track, start, then longest first.
std::string to_chrome_trace(const Inspector& inspector);

/// The same trace, handed to `write` about a megabyte at a time (a million
/// events' trace is half a gigabyte of text, never held whole); `write`'s
/// first error stops it and is returned.
Status write_chrome_trace(const Inspector& inspector, const io::ChunkSink& write);

}  // namespace glassbox::inspector
