// A view split by a tag value (`--group-by`): the machine formats get the
// tag as their first column (or key), the table one section per value.

#include <algorithm>
#include <set>

#include "glassbox/io/printable.h"
#include "nlohmann/json.hpp"
#include "src/inspector/format_internal.h"

namespace glassbox::inspector {
namespace {

// The diagnostics as printed, one line (with its newline) each.
std::vector<std::string> diagnostic_lines(const Inspector& inspector) {
  const std::string text = diagnostics_text(inspector);
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    lines.push_back(text.substr(at, end + 1 - at));
  }
  return lines;
}

}  // namespace

StatusOr<std::string> render_grouped(const std::vector<TagGroup>& groups, const std::string& tag,
                                     View view, Format format) {
  switch (format) {
    case Format::kTable: {
      // What every group says ("no ETRecord", a shared time unit) is said
      // once, after the sections, not once per section.
      std::set<std::string> common;
      if (groups.size() > 1) {
        for (const std::string& line : diagnostic_lines(groups.front().inspector)) {
          if (std::all_of(groups.begin(), groups.end(), [&](const TagGroup& g) {
                const std::vector<std::string> lines = diagnostic_lines(g.inspector);
                return std::find(lines.begin(), lines.end(), line) != lines.end();
              })) {
            common.insert(line);
          }
        }
      }
      std::string text;
      for (const TagGroup& group : groups) {
        if (!text.empty()) text += "\n";
        // Tag values come from paths and sidecars: escaped like every cell.
        text += "== " + io::printable(tag) + " = " +
                (group.value.empty() ? "(none)" : io::printable(group.value)) + " ==\n";
        text += render_table(group.inspector, view, kTableCells, common);
      }
      if (!common.empty()) {
        text += "\n== every " + io::printable(tag) + " ==\n";
        for (const std::string& line : diagnostic_lines(groups.front().inspector)) {
          if (common.contains(line)) text += line;
        }
      }
      return text;
    }
    case Format::kCsv:
    case Format::kTsv: {
      Sheet all;
      for (const TagGroup& group : groups) {
        TimeScale scale;
        Sheet sheet = make_sheet(group.inspector, view, SheetMode::kMachine, &scale);
        if (all.columns.empty()) {
          all.columns = sheet.columns;
          all.columns.insert(all.columns.begin(), tag);
          all.numeric = sheet.numeric;
          all.numeric.insert(all.numeric.begin(), false);
        }
        for (std::vector<std::string>& row : sheet.rows) {
          row.insert(row.begin(), group.value);
          all.rows.push_back(std::move(row));
        }
      }
      return delimited(all, format == Format::kCsv ? ',' : '\t');
    }
    case Format::kJson: {
      nlohmann::ordered_json doc = {{"format", "glassbox-inspector-grouped"},
                                    {"version", 1},
                                    {"group_by", tag},
                                    {"groups", nlohmann::ordered_json::array()}};
      for (const TagGroup& group : groups) {
        doc["groups"].push_back(
            {{"value", group.value},
             {"inspector", nlohmann::ordered_json::parse(render_json(group.inspector, view))}});
      }
      return doc.dump(2) + "\n";
    }
    case Format::kChrome: break;
  }
  return Status(Error::kInvalidArgument,
                "--group-by has no chrome form; use table, csv, tsv or json");
}

}  // namespace glassbox::inspector
