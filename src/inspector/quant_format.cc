// Renders a QuantReport: a table for people (worst op first, then the
// keep-in-float candidates), csv/tsv for frames, JSON for tools. The fields
// are documented in docs/inspector.md ("quant view").

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "glassbox/inspector/quant.h"
#include "glassbox/io/printable.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

using Json = nlohmann::ordered_json;

std::string number(const std::optional<double>& v, int digits) {
  return v ? significant(*v, digits) : "";
}

Json number_json(const std::optional<double>& v) {
  if (!v) return nullptr;
  if (!std::isfinite(*v)) return number(v, 0);
  return *v == 0 ? 0.0 : *v;
}

std::string list_text(const std::vector<double>& values) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < values.size() && i < 4; ++i) out.push_back(number(values[i], 6));
  if (values.size() > 4) out.push_back("... (" + std::to_string(values.size()) + ")");
  return join(out, ";");
}

std::string list_text(const std::vector<std::int64_t>& values) {
  std::vector<double> d(values.begin(), values.end());
  return list_text(d);
}

std::string type_text(ScalarType t) { return t == ScalarType::kByte ? "uint8" : "int8"; }

Sheet make_quant_sheet(const QuantReport& report, bool machine) {
  Sheet sheet;
  auto column = [&sheet](std::string name, bool numeric) {
    sheet.columns.push_back(std::move(name));
    sheet.numeric.push_back(numeric);
  };
  column("rank", true);
  column(machine ? "op_names" : "op", false);
  column(machine ? "op_types" : "type", false);
  column("module", false);
  if (machine) column("debug_handle", true);
  column(machine ? "isolated_sqnr_db" : "isolated dB", true);
  column(machine ? "quant_sqnr_db" : "quant dB", true);
  column(machine ? "kernel_sqnr_db" : "kernel dB", true);
  column(machine ? "sqnr_db" : "total dB", true);
  column(machine ? "max_error_steps" : "max steps", true);
  column(machine ? "clipped_fraction" : "clipped", true);
  column("dtype", false);
  column("scale", false);
  column("zero_point", false);
  column("backend", false);
  if (machine) {
    for (const char* name :
         {"int8_ms", "float_ms", "keep_float_gain_db", "gain_db_per_ms", "note"}) {
      column(name, name != std::string("note"));
    }
  }
  sheet.name_column = 1;
  const int digits = machine ? 9 : 4;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const QuantRow& row = report.rows[i];
    std::vector<std::string> cells;
    cells.push_back(std::to_string(i + 1));
    cells.push_back(join(row.op_names, machine ? ";" : "+"));
    cells.push_back(join(row.op_types, machine ? ";" : "+"));
    cells.push_back(row.module);
    if (machine) cells.push_back(std::to_string(row.handle.value));
    cells.push_back(number(row.isolated_sqnr_db, digits));
    cells.push_back(number(row.quant_sqnr_db, digits));
    cells.push_back(number(row.kernel_sqnr_db, digits));
    cells.push_back(number(row.sqnr_db, digits));
    cells.push_back(number(row.max_error_steps, digits));
    if (machine) {
      cells.push_back(number(row.clipped_fraction, digits));
    } else {
      cells.push_back(row.clipped_fraction ? fixed(*row.clipped_fraction * 100, 2) + "%" : "");
    }
    cells.push_back(type_text(row.dtype));
    cells.push_back(list_text(row.scale));
    cells.push_back(list_text(row.zero_point));
    cells.push_back(row.backend);
    if (machine) {
      for (const auto& v :
           {row.int8_ms, row.float_ms, row.keep_float_gain_db, row.gain_db_per_ms}) {
        cells.push_back(number(v, digits));
      }
      cells.push_back(row.note);
    }
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

constexpr std::size_t kMaxCellWidth = 32;

std::string table(const QuantReport& report) {
  std::string out = "glassbox inspect --view quant: execution " + std::to_string(report.execution) +
                    "; SQNR in dB (higher is better), worst isolated loss first\n\n";
  out += aligned(make_quant_sheet(report, false), kMaxCellWidth);
  if (report.rows.empty()) out += "(no quantized operators)\n";
  out +=
      "\nisolated = float vs the op alone on float inputs (its own quantization); quant = float "
      "vs\nthe int8 simulation; kernel = simulation vs the run; total = float vs the run. max "
      "steps:\n|run - simulation| in output quantization steps. clipped: float values beyond "
      "the\noutput type's range.\n";
  if (!report.keep_float_ranking.empty()) {
    out +=
        "\nkeep-in-float candidates (SQNR gained at the op per ms it would cost, from the int8 "
        "and float runs):\n";
    for (std::size_t k = 0; k < report.keep_float_ranking.size() && k < 10; ++k) {
      const QuantRow& row = report.rows[report.keep_float_ranking[k]];
      out += "  " + std::to_string(k + 1) + ". " + io::printable(join(row.op_names, "+")) + ": +" +
             number(row.keep_float_gain_db, 3) + " dB for " +
             number(std::max(*row.float_ms - *row.int8_ms, 0.0), 3) + " ms (" +
             number(row.gain_db_per_ms, 4) + " dB/ms); lower --keep-float " +
             io::printable(row.op_names.empty() ? "" : row.op_names.front()) + "\n";
    }
  }
  if (!report.diagnostics.empty()) out += "\n";
  for (const Diagnostic& d : report.diagnostics) {
    out += std::string(to_string(d.severity)) + ": " + io::printable(d.message) + "\n";
  }
  return out;
}

std::string json(const QuantReport& report) {
  Json doc;
  doc["format"] = "glassbox-quant";
  doc["version"] = 1;
  doc["execution"] = report.execution;
  Json rows = Json::array();
  for (const QuantRow& row : report.rows) {
    Json r;
    r["op_names"] = row.op_names;
    r["op_types"] = row.op_types;
    r["module"] = row.module.empty() ? Json(nullptr) : Json(row.module);
    r["debug_handle"] = row.handle.value;
    r["backend"] = row.backend.empty() ? Json(nullptr) : Json(row.backend);
    r["sqnr_db"] = number_json(row.sqnr_db);
    r["quant_sqnr_db"] = number_json(row.quant_sqnr_db);
    r["kernel_sqnr_db"] = number_json(row.kernel_sqnr_db);
    r["isolated_sqnr_db"] = number_json(row.isolated_sqnr_db);
    r["max_error_steps"] = number_json(row.max_error_steps);
    r["clipped_fraction"] = number_json(row.clipped_fraction);
    r["dtype"] = type_text(row.dtype);
    r["scale"] = row.scale;
    r["zero_point"] = row.zero_point;
    r["axis"] = row.axis;
    r["int8_ms"] = number_json(row.int8_ms);
    r["float_ms"] = number_json(row.float_ms);
    r["keep_float_gain_db"] = number_json(row.keep_float_gain_db);
    r["gain_db_per_ms"] = number_json(row.gain_db_per_ms);
    r["note"] = row.note.empty() ? Json(nullptr) : Json(row.note);
    rows.push_back(std::move(r));
  }
  doc["rows"] = rows;
  doc["keep_float_ranking"] = report.keep_float_ranking;
  Json diagnostics = Json::array();
  for (const Diagnostic& d : report.diagnostics) {
    diagnostics.push_back({{"severity", to_string(d.severity)}, {"message", d.message}});
  }
  doc["diagnostics"] = diagnostics;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

StatusOr<std::string> render_quant(const QuantReport& report, Format format) {
  switch (format) {
    case Format::kTable: return table(report);
    case Format::kCsv: return delimited(make_quant_sheet(report, true), ',');
    case Format::kTsv: return delimited(make_quant_sheet(report, true), '\t');
    case Format::kJson: return json(report);
    case Format::kChrome: break;
  }
  return Status(Error::kInvalidArgument, "--view quant renders as table, csv, tsv or json");
}

}  // namespace glassbox::inspector
