// The report data as one JSON object, and the page around it.

#include <string>

#include "glassbox/inspector/views.h"
#include "src/report/report_assets.h"
#include "src/report/report_json.h"

namespace glassbox::report {
namespace {

constexpr std::string_view kCssMarker = "/*@GLASSBOX_CSS@*/";
constexpr std::string_view kJsMarker = "/*@GLASSBOX_JS@*/";
constexpr std::string_view kGraphMarker = "/*@GLASSBOX_GRAPH_JS@*/";
constexpr std::string_view kLayoutMarker = "/*@GLASSBOX_LAYOUT_JS@*/";
constexpr std::string_view kDataMarker = "@GLASSBOX_DATA@";

// Names come from untrusted files: bytes that are not UTF-8 are replaced
// rather than thrown on.
std::string compact(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool holds_rows(const Json& j) {
  return j.is_array() && !j.empty() && (j.front().is_object() || j.front().is_array());
}

void write_by_rows(const Json& j, int level, std::string& out) {
  const std::string indent(static_cast<std::size_t>(level) * 2, ' ');
  if (j.is_object() && level < 2 && !j.empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      out += first ? "" : ",\n";
      first = false;
      out += indent + "  " + compact(Json(key)) + ": ";
      write_by_rows(value, level + 1, out);
    }
    out += "\n" + indent + "}";
  } else if (holds_rows(j)) {
    out += "[\n";
    for (std::size_t i = 0; i < j.size(); ++i) {
      out += indent + "  " + compact(j[i]) + (i + 1 < j.size() ? ",\n" : "\n");
    }
    out += indent + "]";
  } else {
    out += compact(j);
  }
}

// `<` appears in JSON only inside strings, where \u003c means the same:
// then no name can close the script block ("</script>") or open a comment.
std::string script_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string dump_by_rows(const Json& data) {
  std::string out;
  write_by_rows(data, 0, out);
  return out;
}

StatusOr<std::string> report_data(const ReportInputs& inputs, const ReportOptions& options) {
  if (inputs.current == nullptr) {
    return Status(Error::kInvalidArgument, "report_data needs the current Inspector");
  }
  const inspector::Inspector& current = *inputs.current;
  const std::vector<inspector::OpRow> ops = inspector::ops_view(current);
  const std::vector<inspector::ModuleRow> modules = inspector::modules_view(current);
  GLASSBOX_ASSIGN_OR_RETURN(Json timeline, timeline_json(current, options));
  Json data{
      {"format", "glassbox-report"},
      {"version", 1},
      {"summary", summary_json(current, ops, options)},
      {"ops", ops_json(current, ops, modules)},
      {"modules", modules_json(modules)},
      {"types", types_json(inspector::types_view(ops))},
      {"timeline", timeline},
      {"numeric", inputs.numeric != nullptr ? numeric_json(*inputs.numeric) : Json()},
      {"baseline", inputs.baseline != nullptr ? baseline_json(*inputs.baseline, current) : Json()}};
  // Only int8 runs have it; other reports keep their bytes.
  if (inputs.quant != nullptr) data["quant"] = quant_json(*inputs.quant);
  if (inputs.comparison != nullptr) data["compare"] = compare_json(*inputs.comparison);
  // Only with an ETRecord: reports without one keep their bytes.
  if (inputs.etrecord != nullptr) {
    data["graph"] = graph_json(*inputs.etrecord, ops, inputs.numeric, inputs.quant);
  }
  return dump_by_rows(data) + "\n";
}

std::string report_page(std::string_view data) {
  // Markers are replaced in page order, each in the text after the previous
  // one, so nothing inserted (CSS, JS, data) is searched for markers again.
  const std::string_view html = assets::kHtml;
  std::string out;
  std::size_t from = 0;
  for (auto [marker, value] :
       {std::pair{kCssMarker, std::string(assets::kCss)}, std::pair{kDataMarker, script_safe(data)},
        std::pair{kLayoutMarker, std::string(assets::kLayoutJs)},
        std::pair{kGraphMarker, std::string(assets::kGraphJs)},
        std::pair{kJsMarker, std::string(assets::kJs)}}) {
    const std::size_t at = html.find(marker, from);
    if (at == std::string_view::npos) continue;
    out += html.substr(from, at - from);
    out += value;
    from = at + marker.size();
  }
  out += html.substr(from);
  return out;
}

StatusOr<std::string> render_report(const ReportInputs& inputs, const ReportOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string data, report_data(inputs, options));
  return report_page(data);
}

}  // namespace glassbox::report
