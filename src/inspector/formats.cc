#include "glassbox/inspector/formats.h"

#include "src/inspector/format_internal.h"

namespace glassbox::inspector {

std::string render(const Inspector& inspector, View view, Format format, std::size_t table_width) {
  switch (format) {
    case Format::kTable: return render_table(inspector, view, table_width);
    case Format::kCsv: return render_delimited(inspector, view, ',');
    case Format::kTsv: return render_delimited(inspector, view, '\t');
    case Format::kJson: return render_json(inspector, view);
    case Format::kChrome: return to_chrome_trace(inspector);
  }
  return {};
}

StatusOr<std::string> render_comparison(const Inspector& baseline, const Inspector& current,
                                        Format format, std::size_t table_width) {
  TimeScale scale;
  switch (format) {
    case Format::kTable: {
      const Sheet sheet = make_comparison_sheet(baseline, current, SheetMode::kHuman, &scale);
      return table_text(current, "glassbox inspect, per-op comparison with the baseline", sheet,
                        scale, "delta = current - baseline, per op (matched by debug handles).",
                        table_width);
    }
    case Format::kCsv:
    case Format::kTsv:
      return delimited(make_comparison_sheet(baseline, current, SheetMode::kMachine, &scale),
                       format == Format::kCsv ? ',' : '\t');
    case Format::kJson: return render_comparison_json(baseline, current);
    case Format::kChrome: break;
  }
  return Status(Error::kInvalidArgument,
                "a comparison with --baseline has no chrome form; use table, csv, tsv or json");
}

}  // namespace glassbox::inspector
