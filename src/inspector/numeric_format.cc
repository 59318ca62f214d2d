// Renders a NumericReport: a table for people, csv/tsv for frames, JSON for
// tools. Shapes are documented in docs/inspector.md ("--numeric").

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "glassbox/inspector/numeric.h"
#include "glassbox/io/printable.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

using Json = nlohmann::ordered_json;

// Metrics keep 6 significant digits in tables and 9 (float32 round trip)
// in csv; non-finite values are spelled out, never printed as numbers.
std::string number(double v, int digits) { return significant(v, digits); }

Json number_json(double v) {
  if (!std::isfinite(v)) return number(v, 0);
  return v == 0 ? 0.0 : v;
}

std::string id_text(const aot::DelegateDebugIdentifier& id) { return identifier_text(id); }

std::string identifiers_text(const NumericRow& row, std::string_view separator) {
  std::vector<std::string> ids;
  for (const auto& id : row.identifiers) ids.push_back(id_text(id));
  return join(ids, separator);
}

std::string shape_text(const std::vector<std::int64_t>& sizes) {
  std::vector<std::string> dims;
  for (std::int64_t s : sizes) dims.push_back(std::to_string(s));
  return join(dims, "x");
}

std::string handles_text(const std::vector<DebugHandle>& handles) {
  std::vector<std::string> out;
  for (DebugHandle h : handles) out.push_back(std::to_string(h.value));
  return join(out, ";");
}

std::string nonfinite_text(const NumericRow& row) {
  const NonFinite& a = row.runtime_nonfinite;
  const NonFinite& b = row.reference_nonfinite;
  if (a.nan + a.inf + b.nan + b.inf + row.nonfinite_mismatches == 0) return "";
  return "run " + std::to_string(a.nan) + "nan/" + std::to_string(a.inf) + "inf, ref " +
         std::to_string(b.nan) + "nan/" + std::to_string(b.inf) + "inf, " +
         std::to_string(row.nonfinite_mismatches) + " mismatched";
}

std::string mark(const NumericRow& row) {
  if (row.first_failure) return ">>";
  return row.exceeds ? "x" : "";
}

std::string instruction_text(const NumericRow& row) {
  return row.instruction.is_set() ? std::to_string(row.instruction.value) : "";
}

std::string fails_when(Comparator metric) {
  return metric == Comparator::kSnr || metric == Comparator::kCosine ? "below" : "above";
}

Sheet make_numeric_sheet(const NumericReport& report, bool machine) {
  Sheet sheet;
  auto column = [&sheet](std::string name, bool numeric) {
    sheet.columns.push_back(std::move(name));
    sheet.numeric.push_back(numeric);
  };
  column("order", true);
  column(machine ? "first_failure" : "!", false);
  if (machine) column("exceeds", false);
  column("kind", false);
  column(machine ? "instruction" : "instr", true);
  if (machine) column("backend", false);
  column(machine ? "identifiers" : "identifier(s)", false);
  if (machine) column("output_index", true);
  column(machine ? "debug_handles" : "handles", false);
  column(machine ? "op_names" : "source ops", false);
  if (machine) column("op_types", false);
  column("reference_op", false);
  if (machine) column("reference_handle", true);
  column(machine ? "runtime_shape" : "shape", false);
  if (machine) column("reference_shape", false);
  for (Comparator c : report.comparators) column(std::string(to_string(c)), true);
  if (machine) {
    for (const char* name :
         {"runtime_nan", "runtime_inf", "reference_nan", "reference_inf", "nonfinite_mismatches"}) {
      column(name, true);
    }
  } else {
    column("non-finite", false);
  }
  column("status", false);
  if (machine) column("note", false);

  const int digits = machine ? 9 : 6;
  const std::string separator = machine ? ";" : "+";
  for (const NumericRow& row : report.rows) {
    std::vector<std::string> cells;
    cells.push_back(std::to_string(row.order));
    if (machine) {
      cells.push_back(row.first_failure ? "true" : "false");
      cells.push_back(row.exceeds ? "true" : "false");
    } else {
      cells.push_back(mark(row));
    }
    cells.push_back(std::string(to_string(row.kind)));
    cells.push_back(instruction_text(row));
    if (machine) cells.push_back(row.backend);
    cells.push_back(identifiers_text(row, machine ? ";" : ","));
    if (machine) cells.push_back(std::to_string(row.output_index));
    cells.push_back(handles_text(row.debug_handles));
    cells.push_back(join(row.op_names, separator));
    if (machine) cells.push_back(join(row.op_types, ";"));
    cells.push_back(row.reference_op);
    if (machine) {
      cells.push_back(row.reference_handle.is_set() ? std::to_string(row.reference_handle.value)
                                                    : "");
    }
    // A value sized by data: this execution's size and the program's bound.
    cells.push_back(
        shape_text(row.runtime_sizes) +
        (row.bound_sizes.empty() || machine ? "" : " (bound " + shape_text(row.bound_sizes) + ")"));
    if (machine) cells.push_back(shape_text(row.reference_sizes));
    for (Comparator c : report.comparators) {
      std::string cell;
      for (const MetricValue& m : row.metrics) {
        if (m.comparator == c) cell = number(m.value, digits);
      }
      cells.push_back(cell);
    }
    if (machine) {
      for (std::uint64_t n :
           {row.runtime_nonfinite.nan, row.runtime_nonfinite.inf, row.reference_nonfinite.nan,
            row.reference_nonfinite.inf, row.nonfinite_mismatches}) {
        cells.push_back(std::to_string(n));
      }
    } else {
      cells.push_back(nonfinite_text(row));
    }
    cells.push_back(std::string(to_string(row.status)));
    if (machine) cells.push_back(row.note);
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

// Text cells wider than this are cut in the table (csv and json keep all).
constexpr std::size_t kMaxCellWidth = 30;

std::string table(const NumericReport& report) {
  std::string out = "glassbox inspect --numeric: execution " + std::to_string(report.execution) +
                    "; a row exceeds when " + std::string(to_string(report.threshold_metric)) +
                    " is " + fails_when(report.threshold_metric) + " " +
                    number(report.threshold, 6) + "\n\n";
  out += aligned(make_numeric_sheet(report, false), kMaxCellWidth);
  if (report.rows.empty()) out += "(no rows)\n";
  out +=
      "\n>> = first operator (in execution order) whose output exceeds the threshold; x = "
      "exceeds.\nEach row is compared with the reference output of its LAST source op; a "
      "decomposition\n(several identifiers) is compared at its last output.\n";
  if (report.first_failure) {
    const NumericRow& row = report.rows[*report.first_failure];
    std::string line = "first failure: " + std::string(to_string(row.kind)) +
                       " output at instruction " + instruction_text(row);
    if (!row.identifiers.empty()) line += ", identifier(s) " + identifiers_text(row, ", ");
    line += "; source op(s) " + join(row.op_names, ", ") + " (compared with " + row.reference_op +
            "'s reference: " + std::string(to_string(report.threshold_metric)) + " = " +
            number(row.threshold_value, 6) + ")";
    out += "\n" + io::printable(line) + "\n";
  } else {
    out += "\nno operator exceeds the threshold\n";
  }
  if (!report.diagnostics.empty()) out += "\n";
  for (const Diagnostic& d : report.diagnostics) {
    out += std::string(to_string(d.severity)) + ": " + io::printable(d.message) + "\n";
  }
  return out;
}

Json identifier_json(const aot::DelegateDebugIdentifier& id) {
  if (const auto* i = std::get_if<std::int64_t>(&id)) return *i;
  return std::get<std::string>(id);
}

Json nonfinite_json(const NonFinite& n) { return {{"nan", n.nan}, {"inf", n.inf}}; }

std::string json(const NumericReport& report) {
  Json doc;
  doc["format"] = "glassbox-numeric";
  doc["version"] = 1;
  doc["execution"] = report.execution;
  Json comparators = Json::array();
  for (Comparator c : report.comparators) comparators.push_back(to_string(c));
  doc["comparators"] = comparators;
  doc["threshold"] = {{"metric", to_string(report.threshold_metric)},
                      {"value", number_json(report.threshold)},
                      {"fails_when", fails_when(report.threshold_metric)}};
  doc["first_failure"] = report.first_failure ? Json(*report.first_failure) : Json(nullptr);
  Json rows = Json::array();
  for (const NumericRow& row : report.rows) {
    Json r;
    r["order"] = row.order;
    r["kind"] = to_string(row.kind);
    r["instruction"] = row.instruction.is_set() ? Json(row.instruction.value) : Json(nullptr);
    r["backend"] = row.backend.empty() ? Json(nullptr) : Json(row.backend);
    Json ids = Json::array();
    for (const auto& id : row.identifiers) ids.push_back(identifier_json(id));
    r["identifiers"] = ids;
    r["output_index"] = row.output_index;
    Json handles = Json::array();
    for (DebugHandle h : row.debug_handles) handles.push_back(h.value);
    r["debug_handles"] = handles;
    r["op_names"] = row.op_names;
    r["op_types"] = row.op_types;
    r["reference_op"] = row.reference_op.empty() ? Json(nullptr) : Json(row.reference_op);
    r["reference_handle"] =
        row.reference_handle.is_set() ? Json(row.reference_handle.value) : Json(nullptr);
    r["reference_output"] = row.reference_output;
    r["runtime_shape"] = row.runtime_sizes;
    r["reference_shape"] = row.reference_sizes;
    if (!row.bound_sizes.empty()) r["bound_shape"] = row.bound_sizes;
    r["status"] = to_string(row.status);
    r["dequantized"] = row.dequantized;
    r["note"] = row.note.empty() ? Json(nullptr) : Json(row.note);
    Json metrics = Json::object();
    for (const MetricValue& m : row.metrics)
      metrics[std::string(to_string(m.comparator))] = number_json(m.value);
    r["metrics"] = metrics;
    r["runtime_nonfinite"] = nonfinite_json(row.runtime_nonfinite);
    r["reference_nonfinite"] = nonfinite_json(row.reference_nonfinite);
    r["nonfinite_mismatches"] = row.nonfinite_mismatches;
    r["exceeds"] = row.exceeds;
    r["first_failure"] = row.first_failure;
    rows.push_back(std::move(r));
  }
  doc["rows"] = rows;
  Json diagnostics = Json::array();
  for (const Diagnostic& d : report.diagnostics) {
    diagnostics.push_back({{"severity", to_string(d.severity)}, {"message", d.message}});
  }
  doc["diagnostics"] = diagnostics;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

StatusOr<std::string> render_numeric(const NumericReport& report, Format format) {
  switch (format) {
    case Format::kTable: return table(report);
    case Format::kCsv: return delimited(make_numeric_sheet(report, true), ',');
    case Format::kTsv: return delimited(make_numeric_sheet(report, true), '\t');
    case Format::kJson: return json(report);
    case Format::kChrome: break;
  }
  return Status(Error::kInvalidArgument,
                "--numeric renders as table, csv, tsv or json, not chrome");
}

}  // namespace glassbox::inspector
