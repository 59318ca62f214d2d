#pragma once
// Private: text helpers shared by the formats, and the "sheet" form of a
// view (named columns of strings) that table, csv and tsv all render.

#include <string>
#include <string_view>
#include <vector>

#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// `value` with exactly `decimals` decimals ("-0.0" printed as "0.0").
std::string fixed(double value, int decimals);

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

/// One cell of a csv (quoted when needed) or tsv line.
std::string delimited_cell(const std::string& raw, char separator);
/// RFC 4180 (csv) or tab-separated (tsv) text of `sheet`.
std::string delimited(const Sheet& sheet, char separator);
/// Aligned columns, text cells cut to `max_width` with "...".
std::string aligned(const Sheet& sheet, std::size_t max_width);

/// A JSON string literal of `text` (bytes that are not valid UTF-8 are
/// replaced, so the output always parses).
std::string json_string(std::string_view text);

}  // namespace glassbox::inspector
