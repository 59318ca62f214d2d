#pragma once
// Private: text helpers shared by the formats, and the "sheet" form of a
// view (named columns of strings) that table, csv and tsv all render.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// `value` with exactly `decimals` decimals ("-0.0" printed as "0.0").
std::string fixed(double value, int decimals);

/// `value` with `digits` significant digits ("%g"); non-finite values
/// spelled out ("nan", "inf", "-inf"), never printed as numbers; -0 as 0.
/// The metrics of the numeric and quant views.
std::string significant(double value, int digits);

/// Items joined with `separator`.
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// How times are printed: value_ns / divisor with `decimals` decimals.
struct TimeScale {
  std::string unit = "ns";
  double divisor = 1;
  int decimals = 1;
  std::string format(double value_ns) const { return fixed(value_ns / divisor, decimals); }
};

/// The scale for machine formats: ns (or ticks) with 1 decimal.
TimeScale machine_scale(const Inspector& inspector);
/// The scale for a table whose largest time is `largest_ns`: ns, us or ms
/// (ticks stay ticks), 3 decimals except for ns.
TimeScale human_scale(const Inspector& inspector, double largest_ns);

/// Columns of strings. `numeric[i]` right-aligns column i in tables.
struct Sheet {
  std::vector<std::string> columns;
  std::vector<bool> numeric;
  std::vector<std::vector<std::string>> rows;
  /// The column that names each row: shortening never makes two of its
  /// different cells print alike.
  std::size_t name_column = 0;
};

enum class SheetMode : std::uint8_t {
  kMachine,  ///< every column, times in ns (csv, tsv)
  kHuman,    ///< the columns a terminal has room for, scaled times (table)
};

/// The sheet of `view`; `scale` receives the scale used.
Sheet make_sheet(const Inspector& inspector, View view, SheetMode mode, TimeScale* scale);
/// The sheet of a comparison.
Sheet make_comparison_sheet(const Inspector& baseline, const Inspector& current, SheetMode mode,
                            TimeScale* scale);

/// A delegate's debug metadata as text: the bytes themselves when they are
/// text (trailing NULs dropped; escaped later like every file string), else
/// "0x" and the hex of the first 32 bytes ("..." when there are more).
std::string metadata_text(const std::vector<std::uint8_t>& metadata);

/// One cell of a csv (quoted when needed) or tsv line.
std::string delimited_cell(const std::string& raw, char separator);
/// RFC 4180 (csv) or tab-separated (tsv) text of `sheet`.
std::string delimited(const Sheet& sheet, char separator);
/// `text` cut to `width` characters by replacing its middle with "...",
/// keeping a third of the room for the head and the rest for the tail.
std::string shorten_middle(std::string_view text, std::size_t width);
/// Aligned columns. Text cells longer than `max_width` (SIZE_MAX: none)
/// are shortened in the middle; the name column is widened as far as needed
/// so that no two different names print alike. Then, when the lines would
/// be wider than `total_width` (a terminal's columns), the widest text
/// columns are cut further, the name column last, none below 8 characters
/// (16 for names).
std::string aligned(const Sheet& sheet, std::size_t max_width, std::size_t total_width = SIZE_MAX);

/// A JSON string literal of `text` (bytes that are not valid UTF-8 are
/// replaced, so the output always parses).
std::string json_string(std::string_view text);

}  // namespace glassbox::inspector
