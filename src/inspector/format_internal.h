#pragma once
// Private: the per-format renderers that formats.cc dispatches to.

#include <set>
#include <string>

#include "glassbox/inspector/formats.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {

/// "5 of 5 executions used (0 skipped)".
std::string runs_note(const Inspector& inspector);
/// One "severity: message" line per diagnostic, but those in `omit`
/// (lines as printed, said once elsewhere).
std::string diagnostics_text(const Inspector& inspector, const std::set<std::string>& omit = {});
/// Title line, aligned sheet (as wide as `table_width` says, formats.h),
/// footnote, diagnostics but those in `omit`.
std::string table_text(const Inspector& inspector, const std::string& title, const Sheet& sheet,
                       const TimeScale& scale, const std::string& footnote,
                       std::size_t table_width = kTableCells,
                       const std::set<std::string>& omit = {});

std::string render_table(const Inspector& inspector, View view,
                         std::size_t table_width = kTableCells,
                         const std::set<std::string>& omit = {});
std::string render_delimited(const Inspector& inspector, View view, char separator);
std::string render_json(const Inspector& inspector, View view);
std::string render_comparison_json(const Inspector& baseline, const Inspector& current);

}  // namespace glassbox::inspector
