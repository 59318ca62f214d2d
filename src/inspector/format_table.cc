// The terminal table: a header saying what is shown and in which unit, the
// aligned rows, a note on fused rows, then every diagnostic.

#include "glassbox/io/printable.h"
#include "src/inspector/format_internal.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

// Text columns wider than this are cut, so a table of long names stays
// near 100 columns wide; csv and json keep every character.
constexpr std::size_t kMaxCellWidth = 24;

std::string time_note(const Inspector& inspector, const TimeScale& scale) {
  std::string source;
  switch (inspector.time().source) {
    case TimeUnitSource::kDump: source = "tick ratio from the dump"; break;
    case TimeUnitSource::kAssumedNanoseconds:
      source = "ASSUMED nanoseconds: the dump has no tick ratio";
      break;
    case TimeUnitSource::kOverride: source = "unit given by --time-unit"; break;
  }
  std::string delegates;
  for (const TimeInfo::DelegateScale& s : inspector.time().delegate_scales) {
    delegates += "; delegate events of " + io::printable(s.backend) + " in its own ticks, " +
                 std::to_string(s.ns_per_tick.numerator) + "/" +
                 std::to_string(s.ns_per_tick.denominator) + " ns per tick (" +
                 std::string(to_string(s.source)) + ")";
  }
  if (inspector.time().delegate_converter) {
    delegates += "; delegate events converted by the delegate time scale converter";
  }
  return "times in " + scale.unit + " (" + source + delegates + ")";
}

}  // namespace

std::string runs_note(const Inspector& inspector) {
  std::size_t executions = 0, skipped = 0;
  for (const RunInfo& run : inspector.runs()) {
    if (run.name != "Execute") continue;
    ++executions;
    skipped += !run.used;
  }
  return std::to_string(executions - skipped) + " of " + std::to_string(executions) +
         " executions used (" + std::to_string(skipped) + " skipped)";
}

std::string diagnostics_text(const Inspector& inspector, const std::set<std::string>& omit) {
  std::string out;
  for (const Diagnostic& d : inspector.diagnostics()) {
    std::string line = std::string(to_string(d.severity)) + ": " + io::printable(d.message) + "\n";
    if (!omit.contains(line)) out += line;
  }
  return out;
}

std::string table_text(const Inspector& inspector, const std::string& title, const Sheet& sheet,
                       const TimeScale& scale, const std::string& footnote, std::size_t table_width,
                       const std::set<std::string>& omit) {
  std::string out =
      title + ": " + runs_note(inspector) + "; " + time_note(inspector, scale) + "\n\n";
  out += table_width == kTableCells ? aligned(sheet, kMaxCellWidth)
                                    : aligned(sheet, SIZE_MAX, table_width);
  if (sheet.rows.empty()) out += "(no rows)\n";
  if (!footnote.empty()) out += "\n" + footnote + "\n";
  const std::string diagnostics = diagnostics_text(inspector, omit);
  if (!diagnostics.empty()) out += "\n" + diagnostics;
  return out;
}

std::string render_table(const Inspector& inspector, View view, std::size_t table_width,
                         const std::set<std::string>& omit) {
  TimeScale scale;
  const Sheet sheet = make_sheet(inspector, view, SheetMode::kHuman, &scale);
  std::string footnote;
  switch (view) {
    case View::kEvents:
      footnote = "n = runs the event occurred in; a run's value is the sum of its occurrences.";
      break;
    case View::kOps:
      footnote =
          "a+b rows are fused: the ops share that time, which is never split between them.\n"
          "Decomposed ops are summed back into their source op; n = runs.";
      break;
    case View::kModules:
      footnote =
          "total = sum of the mean times of ops rows with an op inside, each row once;\n"
          "shared = the part from fused rows that reach outside the module.";
      break;
    case View::kReconcile:
      footnote = "gaps are computed run by run: time inside the whole that no event accounts for.";
      break;
    case View::kTypes:
      footnote =
          "total = over all executions used; mean = per execution; % of the ops rows' total.\n"
          "A fused row's time is split evenly between its ops (conv2d+relu: half each).";
      if (!inspector.has_etrecord()) {
        // The diagnostics below say once that there is no ETRecord.
        footnote +=
            "\nThe types are the events' names (a delegate's own names for its steps),\n"
            "not the source model's op types: give --etrecord for those.";
      }
      break;
  }
  return table_text(inspector, "glassbox inspect, " + std::string(to_string(view)) + " view", sheet,
                    scale, footnote, table_width, omit);
}

}  // namespace glassbox::inspector
