// csv and tsv: the machine sheet, nothing else (diagnostics go to the JSON
// form or the table; a CSV with prose rows would not load as a frame).

#include "src/inspector/format_internal.h"

namespace glassbox::inspector {

std::string render_delimited(const Inspector& inspector, View view, char separator) {
  TimeScale scale;
  return delimited(make_sheet(inspector, view, SheetMode::kMachine, &scale), separator);
}

}  // namespace glassbox::inspector
