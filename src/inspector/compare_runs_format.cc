// Renders a RunComparison: a table of sections for people, one csv/tsv
// sheet whose first column says the section (for frames), JSON with one
// array per section. Fields are documented in docs/inspector.md
// ("Comparing two programs").

#include <algorithm>
#include <nlohmann/json.hpp>

#include "glassbox/inspector/compare_runs.h"
#include "glassbox/io/printable.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

using Json = nlohmann::ordered_json;

// The scale of a table whose largest time is `largest_ns` (human_scale
// without an Inspector: both runs are in ns).
TimeScale table_scale(double largest_ns) {
  if (largest_ns >= 1e6) return TimeScale{"ms", 1e6, 3};
  if (largest_ns >= 1e3) return TimeScale{"us", 1e3, 3};
  return TimeScale{"ns", 1, 0};
}

std::string ratio_text(const std::optional<double>& ratio, int digits) {
  return ratio ? significant(*ratio, digits) : "";
}

double largest_time(const RunComparison& c) { return std::max(c.total_ns_a, c.total_ns_b); }

Sheet op_sheet(const std::vector<RunCompareRow>& rows, const TimeScale& scale, bool has_a,
               bool has_b) {
  Sheet sheet;
  auto column = [&sheet](std::string name, bool numeric) {
    sheet.columns.push_back(std::move(name));
    sheet.numeric.push_back(numeric);
  };
  column("op", false);
  column("type", false);
  if (has_a) column("A " + scale.unit, true);
  if (has_b) column("B " + scale.unit, true);
  if (has_a && has_b) {
    column("B-A " + scale.unit, true);
    column("B/A", true);
  }
  column(has_a && has_b ? "backends" : "backend", false);
  for (const RunCompareRow& r : rows) {
    std::vector<std::string> cells = {join(r.op_names, "+"), join(r.op_types, "+")};
    if (has_a) cells.push_back(r.mean_ns_a ? scale.format(*r.mean_ns_a) : "-");
    if (has_b) cells.push_back(r.mean_ns_b ? scale.format(*r.mean_ns_b) : "-");
    auto backend = [](const std::string& b) { return b.empty() ? std::string("kernel") : b; };
    if (has_a && has_b) {
      cells.push_back(scale.format(r.delta_ns));
      cells.push_back(ratio_text(r.ratio, 3));
      cells.push_back(backend(r.backend_a) + " / " + backend(r.backend_b));
    } else {
      cells.push_back(backend(has_a ? r.backend_a : r.backend_b));
    }
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

Sheet rollup_sheet(const std::vector<RunRollupRow>& rows, const std::string& key,
                   const TimeScale& scale) {
  Sheet sheet;
  sheet.columns = {key, "ops", "A " + scale.unit, "B " + scale.unit, "B-A " + scale.unit, "B/A"};
  sheet.numeric = {false, true, true, true, true, true};
  for (const RunRollupRow& r : rows) {
    sheet.rows.push_back({r.key.empty() && key == "module" ? "(top level)" : r.key,
                          std::to_string(r.ops), scale.format(r.mean_ns_a),
                          scale.format(r.mean_ns_b), scale.format(r.delta_ns),
                          ratio_text(r.ratio, 3)});
  }
  return sheet;
}

constexpr std::size_t kMaxCellWidth = 40;

std::string table(const RunComparison& c) {
  const TimeScale scale = table_scale(largest_time(c));
  std::string out = "glassbox compare: A = " + io::printable(c.name_a) +
                    ", B = " + io::printable(c.name_b) + "; ops joined by " +
                    std::string(to_string(c.join)) + "; mean time per execution\n";
  out += "total: A " + scale.format(c.total_ns_a) + " " + scale.unit + ", B " +
         scale.format(c.total_ns_b) + " " + scale.unit;
  if (c.total_ns_a > 0) out += ", B/A " + significant(c.total_ns_b / c.total_ns_a, 3);
  out += "\n\nper op, largest |B - A| first:\n";
  out += c.rows.empty() ? "(no op both runs have)\n"
                        : aligned(op_sheet(c.rows, scale, true, true), kMaxCellWidth);
  if (!c.only_a.empty()) {
    out += "\nonly in A (" + std::to_string(c.only_a.size()) + "):\n";
    out += aligned(op_sheet(c.only_a, scale, true, false), kMaxCellWidth);
  }
  if (!c.only_b.empty()) {
    out += "\nonly in B (" + std::to_string(c.only_b.size()) + "):\n";
    out += aligned(op_sheet(c.only_b, scale, false, true), kMaxCellWidth);
  }
  out += "\nby module:\n" + aligned(rollup_sheet(c.by_module, "module", scale), kMaxCellWidth);
  out += "\nby op type:\n" + aligned(rollup_sheet(c.by_type, "type", scale), kMaxCellWidth);
  out +=
      "\nB/A < 1: B is faster. Ops one run times as one unit (a fused conv+relu) are one row;\n"
      "the rollups share a row's time equally among its ops and include the one-run rows.\n";
  return out;
}

// csv/tsv: every section in one sheet, its name in the first column.
Sheet machine_sheet(const RunComparison& c) {
  Sheet sheet;
  sheet.columns = {"section",   "op_names",  "op_names_b", "op_types",  "module",   "ops",
                   "backend_a", "backend_b", "mean_ns_a",  "mean_ns_b", "delta_ns", "ratio"};
  sheet.numeric = {false, false, false, false, false, true, false, false, true, true, true, true};
  sheet.name_column = 1;
  auto ns = [](const std::optional<double>& v) { return v ? fixed(*v, 1) : ""; };
  auto ops = [&](const char* section, const std::vector<RunCompareRow>& rows) {
    for (const RunCompareRow& r : rows) {
      sheet.rows.push_back({section, join(r.op_names, ";"), join(r.op_names_b, ";"),
                            join(r.op_types, ";"), r.module, std::to_string(r.op_names.size()),
                            r.backend_a, r.backend_b, ns(r.mean_ns_a), ns(r.mean_ns_b),
                            fixed(r.delta_ns, 1), ratio_text(r.ratio, 6)});
    }
  };
  ops("op", c.rows);
  ops("only_a", c.only_a);
  ops("only_b", c.only_b);
  auto rollup = [&](const char* section, const std::vector<RunRollupRow>& rows) {
    for (const RunRollupRow& r : rows) {
      const bool module = section == std::string("module");
      sheet.rows.push_back({section, "", "", module ? "" : r.key, module ? r.key : "",
                            std::to_string(r.ops), "", "", fixed(r.mean_ns_a, 1),
                            fixed(r.mean_ns_b, 1), fixed(r.delta_ns, 1), ratio_text(r.ratio, 6)});
    }
  };
  rollup("module", c.by_module);
  rollup("type", c.by_type);
  return sheet;
}

Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json op_rows_json(const std::vector<RunCompareRow>& rows) {
  Json out = Json::array();
  for (const RunCompareRow& r : rows) {
    Json j;
    j["op_names"] = r.op_names;
    j["op_names_b"] = r.op_names_b;
    j["op_types"] = r.op_types;
    j["module"] = r.module;
    j["backend_a"] = r.backend_a;
    j["backend_b"] = r.backend_b;
    j["mean_ns_a"] = optional_json(r.mean_ns_a);
    j["mean_ns_b"] = optional_json(r.mean_ns_b);
    j["delta_ns"] = r.delta_ns;
    j["ratio"] = optional_json(r.ratio);
    out.push_back(std::move(j));
  }
  return out;
}

Json rollup_json(const std::vector<RunRollupRow>& rows, const char* key) {
  Json out = Json::array();
  for (const RunRollupRow& r : rows) {
    Json j;
    j[key] = r.key;
    j["ops"] = r.ops;
    j["mean_ns_a"] = r.mean_ns_a;
    j["mean_ns_b"] = r.mean_ns_b;
    j["delta_ns"] = r.delta_ns;
    j["ratio"] = optional_json(r.ratio);
    out.push_back(std::move(j));
  }
  return out;
}

std::string json(const RunComparison& c) {
  Json doc;
  doc["format"] = "glassbox-compare";
  doc["version"] = 1;
  doc["join"] = to_string(c.join);
  doc["a"] = {{"name", c.name_a}, {"total_ns", c.total_ns_a}};
  doc["b"] = {{"name", c.name_b}, {"total_ns", c.total_ns_b}};
  doc["ratio"] = c.total_ns_a > 0 ? Json(c.total_ns_b / c.total_ns_a) : Json(nullptr);
  doc["rows"] = op_rows_json(c.rows);
  doc["only_a"] = op_rows_json(c.only_a);
  doc["only_b"] = op_rows_json(c.only_b);
  doc["by_module"] = rollup_json(c.by_module, "module");
  doc["by_type"] = rollup_json(c.by_type, "op_type");
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

StatusOr<std::string> render_run_comparison(const RunComparison& comparison, Format format) {
  switch (format) {
    case Format::kTable: return table(comparison);
    case Format::kCsv: return delimited(machine_sheet(comparison), ',');
    case Format::kTsv: return delimited(machine_sheet(comparison), '\t');
    case Format::kJson: return json(comparison);
    case Format::kChrome: break;
  }
  return Status(Error::kInvalidArgument, "compare renders as table, csv, tsv or json");
}

}  // namespace glassbox::inspector
