// Export rows, written straight into one string per dump (no JSON library
// per row: export is meant to run at disk speed).

#include "glassbox/inspector/export_rows.h"

#include <charconv>
#include <string_view>
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
                                              "time_unit_source"};
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
                                           "time_unit_source"};

// Shortest text that reads back as the same double.
std::string number(double value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

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

// One row, as a JSON object or a CSV line: the caller gives the fields in
// the schema's column order.
class Row {
 public:
  Row(ExportFormat format, std::string& out) : json_(format == ExportFormat::kNdjson), out_(out) {
    if (json_) out_ += '{';
  }
  ~Row() { out_ += json_ ? "}\n" : "\n"; }
  Row(const Row&) = delete;
  Row& operator=(const Row&) = delete;

  void text(std::string_view name, std::string_view value) {
    key(name);
    if (json_) {
      append_json_string(out_, value);
    } else {
      out_ += delimited_cell(std::string(value), ',');
    }
  }
  void raw(std::string_view name, const std::string& value) {
    key(name);
    out_ += value;
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
        csv += (first ? "" : ";") + name + "=" + value;
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
  bool first_ = true;
  std::string& out_;
};

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

void common_head(Row& row, const ExportSource& source, std::uint32_t run) {
  row.raw("schema_version", std::to_string(kExportSchemaVersion));
  row.text("dump", source.dump);
  row.tags(source.tags);
  row.raw("run", std::to_string(run));
}

void common_tail(Row& row, const Inspector& inspector, double duration) {
  row.raw("duration_ns", number(duration));
  row.text("time_unit", inspector.time().unit);
  row.text("time_unit_source", to_string(inspector.time().source));
}

void event_rows(const Inspector& inspector, const ExportSource& source, ExportFormat format,
                std::string& out) {
  // Op lists per group, computed once rather than per occurrence.
  std::vector<OpsOf> ops;
  ops.reserve(inspector.groups().size());
  for (const EventGroup& g : inspector.groups()) ops.push_back(ops_of(g.source_ops));
  for (const Occurrence& o : inspector.occurrences()) {
    const EventGroup& g = inspector.groups()[o.group];
    Row row(format, out);
    common_head(row, source, o.run);
    row.text("block", g.block);
    row.text("event", g.name);
    row.text("role", to_string(g.role));
    if (g.instruction.is_set()) {
      row.raw("instruction", std::to_string(g.instruction.value));
    } else {
      row.null("instruction");
    }
    if (g.identifier.has_value()) {
      row.text("delegate_identifier", identifier_text(g.identifier));
    } else {
      row.null("delegate_identifier");
    }
    row.list("op_names", ops[o.group].names);
    row.list("op_types", ops[o.group].types);
    row.list("module_paths", ops[o.group].modules);
    row.text("backend", g.backend);
    row.raw("delegated", g.delegated ? "true" : "false");
    row.raw("thread", std::to_string(o.thread));
    row.raw("start_ns", number(o.start));
    common_tail(row, inspector, o.end - o.start);
  }
}

void op_rows(const Inspector& inspector, const ExportSource& source, ExportFormat format,
             std::string& out) {
  struct Sample {
    std::uint32_t run;
    std::size_t row;
    double duration;
  };
  const std::vector<OpRow> ops = ops_view(inspector);
  // By run, then by the view's row order.
  std::vector<Sample> samples;
  for (std::size_t r = 0; r < ops.size(); ++r) {
    for (std::size_t s = 0; s < ops[r].samples.size(); ++s) {
      samples.push_back({ops[r].sample_runs[s], r, ops[r].samples[s]});
    }
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const Sample& a, const Sample& b) { return a.run < b.run; });
  for (const Sample& sample : samples) {
    const OpRow& op = ops[sample.row];
    Row row(format, out);
    common_head(row, source, sample.run);
    row.text("op", op.label);
    row.list("op_names", op.op_names);
    row.list("op_types", op.op_types);
    row.list("module_paths", op.module_hierarchy);
    row.text("backend", op.backend);
    row.raw("delegated", op.delegated ? "true" : "false");
    std::vector<std::string> ids, instructions;
    for (const auto& id : op.delegate_debug_identifiers) ids.push_back(identifier_text(id));
    for (std::int32_t i : op.instructions) instructions.push_back(std::to_string(i));
    row.list("delegate_identifiers", ids);
    row.list("instructions", instructions);
    common_tail(row, inspector, sample.duration);
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
