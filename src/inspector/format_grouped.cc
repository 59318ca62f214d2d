// A view split by a tag value (`--group-by`): the machine formats get the
// tag as their first column (or key), the table one section per value.

#include "glassbox/io/printable.h"
#include "nlohmann/json.hpp"
#include "src/inspector/format_internal.h"

namespace glassbox::inspector {

StatusOr<std::string> render_grouped(const std::vector<TagGroup>& groups, const std::string& tag,
                                     View view, Format format) {
  switch (format) {
    case Format::kTable: {
      std::string text;
      for (const TagGroup& group : groups) {
        if (!text.empty()) text += "\n";
        // Tag values come from paths and sidecars: escaped like every cell.
        text += "== " + io::printable(tag) + " = " +
                (group.value.empty() ? "(none)" : io::printable(group.value)) + " ==\n";
        text += render_table(group.inspector, view);
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
