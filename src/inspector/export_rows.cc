// Export rows, written straight into one string per dump (no JSON library
// per row: export is meant to run at disk speed).

#include "glassbox/inspector/export_rows.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>
#include <vector>

#include "glassbox/inspector/views.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

constexpr std::string_view kEventColumns[] = {"schema_version",
                                              "dump",
                                              "tags",
                                              "run",
                                              "block",
                                              "event",
                                              "role",
                                              "instruction",
                                              "delegate_identifier",
                                              "op_names",
                                              "op_types",
                                              "module_paths",
                                              "backend",
                                              "delegated",
                                              "thread",
                                              "start_ns",
                                              "duration_ns",
                                              "time_unit",
                                              "time_unit_source",
                                              "time_scale",
                                              "counters"};
constexpr std::string_view kOpColumns[] = {"schema_version",
                                           "dump",
                                           "tags",
                                           "run",
                                           "op",
                                           "op_names",
                                           "op_types",
                                           "module_paths",
                                           "backend",
                                           "delegated",
                                           "delegate_identifiers",
                                           "instructions",
                                           "duration_ns",
                                           "time_unit",
                                           "time_unit_source",
                                           "time_scale",
                                           "counters"};

// json_string, without its per-byte checks for the common case: printable
// ASCII with nothing to escape is copied as it is.
void append_json_string(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
      out += json_string(text);
      return;
    }
  }
  out += '"';
  out += text;
  out += '"';
}

// A tag name or value in the CSV `tags` cell, `name=value;name=value`:
// `%`, `;` and `=` percent-encoded (`%25`, `%3B`, `%3D`, as in a URL), so
// no value can forge another tag. Not a backslash: the cell escapes those.
std::string tag_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '%': out += "%25"; break;
      case ';': out += "%3B"; break;
      case '=': out += "%3D"; break;
      default: out += c; break;
    }
  }
  return out;
}

// Fields of a row in the schema's column order, appended to `out` as JSON
// members or CSV cells. `first` says whether a field precedes them in the
// row (the separator is written before each field but the first).
class Fields {
 public:
  Fields(ExportFormat format, std::string& out, bool first)
      : json_(format == ExportFormat::kNdjson), first_(first), out_(out) {}
  Fields(const Fields&) = delete;
  Fields& operator=(const Fields&) = delete;

  void text(std::string_view name, std::string_view value) {
    key(name);
    if (json_) {
      append_json_string(out_, value);
    } else {
      out_ += delimited_cell(std::string(value), ',');
    }
  }
  void raw(std::string_view name, std::string_view value) {
    key(name);
    out_ += value;
  }
  void integer(std::string_view name, std::int64_t value) {
    char buffer[24];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    raw(name, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
  }
  // A JSON null, an empty CSV cell.
  void null(std::string_view name) {
    key(name);
    if (json_) out_ += "null";
  }
  void list(std::string_view name, const std::vector<std::string>& items) {
    key(name);
    if (!json_) {
      out_ += delimited_cell(join(items, ";"), ',');
      return;
    }
    out_ += '[';
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += ',';
      append_json_string(out_, items[i]);
    }
    out_ += ']';
  }
  void tags(const std::map<std::string, std::string>& tags) {
    key("tags");
    std::string csv;
    if (json_) out_ += '{';
    bool first = true;
    for (const auto& [name, value] : tags) {
      if (json_) {
        if (!first) out_ += ',';
        append_json_string(out_, name);
        out_ += ':';
        append_json_string(out_, value);
      } else {
        csv += (first ? "" : ";") + tag_text(name) + "=" + tag_text(value);
      }
      first = false;
    }
    out_ += json_ ? "}" : delimited_cell(csv, ',');
  }

 private:
  void key(std::string_view name) {
    if (json_) {
      if (!first_) out_ += ',';
      out_ += '"';
      out_ += name;
      out_ += "\":";
    } else if (!first_) {
      out_ += ',';
    }
    first_ = false;
  }
  bool json_;
  bool first_;
  std::string& out_;
};

// Every row of a dump starts with the same fields (schema version, dump,
// tags) and ends with the same time unit: their text is made once per
// dump, and each row adds only what is its own.
struct RowFrame {
  std::string head;  // the row's opening and its first fields
  std::string tail;  // the time unit fields
};

// How the row's durations were scaled (its group's or ops row's): the
// column before the row's counters.
std::string time_scale_field(ExportFormat format, TimeScaleSource scale) {
  std::string text;
  Fields(format, text, false).text("time_scale", to_string(scale));
  return text;
}

// A row's own numeric field after the shared ones: its separator and key
// (`,"run":` in JSON, `,` in CSV), then the number, with no formatting
// machinery per row.
std::string field_prefix(ExportFormat format, std::string_view name) {
  if (format == ExportFormat::kCsv) return ",";
  return ",\"" + std::string(name) + "\":";
}

template <typename Number>
void append_number(std::string& out, const std::string& prefix, Number value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out += prefix;
  out.append(buffer, end);
}

// A counter of a row: its name and value (the occurrence's own, or an op
// row's sum in its run).
using RowCounter = std::pair<std::string_view, std::int64_t>;

// The last column, the row's counters, and the row's end. NDJSON has a
// "counters" object only in a dump with counters (a dump without keeps
// its rows as they were); CSV always has the cell, `name=value;...`
// encoded as the tags cell is, so its column set stays fixed.
void append_counters_and_end(std::string& out, ExportFormat format, bool dump_has_counters,
                             const std::vector<RowCounter>& counters) {
  if (format == ExportFormat::kNdjson) {
    if (dump_has_counters) {
      out += ",\"counters\":{";
      for (std::size_t i = 0; i < counters.size(); ++i) {
        if (i > 0) out += ',';
        append_json_string(out, counters[i].first);
        append_number(out, ":", counters[i].second);
      }
      out += '}';
    }
    out += "}\n";
    return;
  }
  std::string cell;
  for (const auto& [name, value] : counters) {
    if (!cell.empty()) cell += ';';
    cell += tag_text(name);
    append_number(cell, "=", value);
  }
  out += ',';
  out += delimited_cell(cell, ',');
  out += '\n';
}

RowFrame row_frame(const Inspector& inspector, const ExportSource& source, ExportFormat format) {
  RowFrame frame;
  if (format == ExportFormat::kNdjson) frame.head += '{';
  Fields head(format, frame.head, true);
  head.integer("schema_version", kExportSchemaVersion);
  head.text("dump", source.dump);
  head.tags(source.tags);
  Fields tail(format, frame.tail, false);
  tail.text("time_unit", inspector.time().unit);
  tail.text("time_unit_source", to_string(inspector.time().source));
  return frame;
}

struct OpsOf {
  std::vector<std::string> names, types, modules;
};

OpsOf ops_of(const std::vector<SourceOp>& source_ops) {
  OpsOf ops;
  for (const SourceOp& op : source_ops) {
    ops.names.push_back(op.name);
    ops.types.push_back(op.type);
    ops.modules.push_back(op.module_path());
  }
  return ops;
}

void event_rows(const Inspector& inspector, const ExportSource& source, ExportFormat format,
                std::string& out) {
  const RowFrame frame = row_frame(inspector, source, format);
  // What each group's rows share (from "block" to "delegated"), made once
  // per group rather than per occurrence.
  std::vector<std::string> group_fields, group_ends;
  group_fields.reserve(inspector.groups().size());
  group_ends.reserve(inspector.groups().size());
  for (const EventGroup& g : inspector.groups()) {
    group_ends.push_back(time_scale_field(format, g.time_scale));
    const OpsOf ops = ops_of(g.source_ops);
    std::string& text = group_fields.emplace_back();
    Fields f(format, text, false);
    f.text("block", g.block);
    f.text("event", g.name);
    f.text("role", to_string(g.role));
    if (g.instruction.is_set()) {
      f.integer("instruction", g.instruction.value);
    } else {
      f.null("instruction");
    }
    if (g.identifier.has_value()) {
      f.text("delegate_identifier", identifier_text(g.identifier));
    } else {
      f.null("delegate_identifier");
    }
    f.list("op_names", ops.names);
    f.list("op_types", ops.types);
    f.list("module_paths", ops.modules);
    f.text("backend", g.backend);
    f.raw("delegated", g.delegated ? "true" : "false");
  }
  // One allocation for the dump's rows (growing by doubling copied the
  // text several times over).
  std::size_t group_bytes = 0;
  for (const std::string& text : group_fields) group_bytes += text.size();
  const std::size_t per_row = frame.head.size() + frame.tail.size() + 96 +
                              group_bytes / std::max<std::size_t>(group_fields.size(), 1);
  out.reserve(out.size() + inspector.occurrences().size() * per_row);
  const std::string run = field_prefix(format, "run"), thread = field_prefix(format, "thread"),
                    start = field_prefix(format, "start_ns"),
                    duration = field_prefix(format, "duration_ns");
  const std::vector<Occurrence>& occurrences = inspector.occurrences();
  const std::vector<std::string>& names = inspector.counter_names();
  const bool has_counters = !names.empty();
  std::vector<RowCounter> counters;
  for (std::size_t i = 0; i < occurrences.size(); ++i) {
    const Occurrence& o = occurrences[i];
    out += frame.head;
    append_number(out, run, o.run);
    out += group_fields[o.group];
    append_number(out, thread, inspector.occurrence_thread(i));
    append_number(out, start, o.start);
    append_number(out, duration, o.end - o.start);
    out += frame.tail;
    out += group_ends[o.group];
    counters.clear();
    for (const OccurrenceCounter& c : inspector.occurrence_counters(i)) {
      counters.emplace_back(names[c.name], c.value);
    }
    append_counters_and_end(out, format, has_counters, counters);
  }
}

void op_rows(const Inspector& inspector, const ExportSource& source, ExportFormat format,
             std::string& out) {
  struct Sample {
    std::uint32_t run;
    std::size_t row;
    std::size_t index;  // in the row's samples
    double duration;
  };
  const RowFrame frame = row_frame(inspector, source, format);
  const std::vector<OpRow> ops = ops_view(inspector);
  // What each ops-view row's rows share (from "op" to "instructions").
  std::vector<std::string> op_fields, op_ends;
  op_fields.reserve(ops.size());
  op_ends.reserve(ops.size());
  for (const OpRow& op : ops) {
    op_ends.push_back(time_scale_field(format, op.time_scale));
    std::string& text = op_fields.emplace_back();
    Fields f(format, text, false);
    f.text("op", op.label);
    f.list("op_names", op.op_names);
    f.list("op_types", op.op_types);
    f.list("module_paths", op.module_hierarchy);
    f.text("backend", op.backend);
    f.raw("delegated", op.delegated ? "true" : "false");
    std::vector<std::string> ids, instructions;
    for (const auto& id : op.delegate_debug_identifiers) ids.push_back(identifier_text(id));
    for (std::int32_t i : op.instructions) instructions.push_back(std::to_string(i));
    f.list("delegate_identifiers", ids);
    f.list("instructions", instructions);
  }
  // By run, then by the view's row order.
  std::vector<Sample> samples;
  for (std::size_t r = 0; r < ops.size(); ++r) {
    for (std::size_t s = 0; s < ops[r].samples.size(); ++s) {
      samples.push_back({ops[r].sample_runs[s], r, s, ops[r].samples[s]});
    }
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return a.run < b.run; });
  const std::string run = field_prefix(format, "run"),
                    duration = field_prefix(format, "duration_ns");
  const bool has_counters = !inspector.counter_names().empty();
  std::vector<RowCounter> counters;
  for (const Sample& sample : samples) {
    out += frame.head;
    append_number(out, run, sample.run);
    out += op_fields[sample.row];
    append_number(out, duration, sample.duration);
    out += frame.tail;
    out += op_ends[sample.row];
    counters.clear();
    const OpRow& op = ops[sample.row];
    if (sample.index < op.sample_counters.size()) {
      for (const CounterTotal& c : op.sample_counters[sample.index]) {
        counters.emplace_back(c.name, c.sum);
      }
    }
    append_counters_and_end(out, format, has_counters, counters);
  }
}

}  // namespace

StatusOr<ExportRows> parse_export_rows(std::string_view text) {
  if (text == "events") return ExportRows::kEvents;
  if (text == "ops") return ExportRows::kOps;
  return Status(Error::kInvalidArgument,
                "unknown rows \"" + std::string(text) + "\" (events or ops)");
}

StatusOr<ExportFormat> parse_export_format(std::string_view text) {
  if (text == "ndjson") return ExportFormat::kNdjson;
  if (text == "csv") return ExportFormat::kCsv;
  return Status(Error::kInvalidArgument,
                "unknown export format \"" + std::string(text) + "\" (ndjson or csv)");
}

std::string export_header(ExportRows rows, ExportFormat format) {
  if (format == ExportFormat::kNdjson) return {};
  std::string line;
  auto add = [&line](std::string_view column) {
    if (!line.empty()) line += ',';
    line += column;
  };
  if (rows == ExportRows::kEvents) {
    for (std::string_view c : kEventColumns) add(c);
  } else {
    for (std::string_view c : kOpColumns) add(c);
  }
  return line + "\n";
}

void append_export_rows(const Inspector& inspector, const ExportSource& source, ExportRows rows,
                        ExportFormat format, std::string& out) {
  if (rows == ExportRows::kEvents) {
    event_rows(inspector, source, format, out);
  } else {
    op_rows(inspector, source, format, out);
  }
}

}  // namespace glassbox::inspector
