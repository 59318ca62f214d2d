// compare_quantization: the quant view (quant.h). The delegate's output per
// operator comes from compare_numerics (the same join and the same "last
// output of the source op" rule); the references from the ETRecord.

#include "glassbox/inspector/quant.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "glassbox/aot/ops.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/inspector/views.h"
#include "src/inspector/output_quant.h"

namespace glassbox::inspector {
namespace {

constexpr double kFloor = 1e-30;

std::vector<double> as_doubles(const etrecord::ReferenceTensor& t) {
  return std::vector<double>(t.data.begin(), t.data.end());
}

double sqnr_of(const std::vector<double>& reference, const std::vector<double>& x) {
  if (reference.size() != x.size()) return std::nan("");
  double signal = 0, noise = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    signal += reference[i] * reference[i];
    noise += (reference[i] - x[i]) * (reference[i] - x[i]);
  }
  return 10.0 * std::log10(std::max(signal, kFloor) / std::max(noise, kFloor));
}

const etrecord::ReferenceTensor* first_of(
    const std::map<DebugHandle, std::vector<etrecord::ReferenceTensor>>& outputs, DebugHandle h) {
  auto it = outputs.find(h);
  return it == outputs.end() || it->second.empty() ? nullptr : &it->second.front();
}

std::pair<std::int64_t, std::int64_t> type_range(ScalarType t) {
  return t == ScalarType::kByte ? std::pair<std::int64_t, std::int64_t>{0, 255}
                                : std::pair<std::int64_t, std::int64_t>{-128, 127};
}

// Mean time per source op (ns, or ticks) from an ETDump and its ETRecord:
// a row covering several ops shares its time equally among them.
StatusOr<std::map<DebugHandle, double>> time_per_handle(const etdump::ETDumpFile& dump,
                                                        const etrecord::ETRecord& record,
                                                        const NumericOptions& options) {
  InspectorOptions inspector_options;
  inspector_options.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  GLASSBOX_ASSIGN_OR_RETURN(Inspector inspector,
                            Inspector::create(dump, &record, {}, inspector_options));
  std::map<DebugHandle, double> ns;
  for (const OpRow& row : ops_view(inspector)) {
    if (row.debug_handles.empty()) continue;
    const double share = row.stats.mean / static_cast<double>(row.debug_handles.size());
    for (DebugHandle h : row.debug_handles) ns[h] += share;
  }
  return ns;
}

// SQNR gained at the op's output if it stayed float: its own (isolated)
// noise removed from the accumulated noise, the two taken as independent.
std::optional<double> keep_float_gain(const QuantRow& row) {
  if (!row.quant_sqnr_db || !row.isolated_sqnr_db) return std::nullopt;
  const double accumulated = std::pow(10.0, -*row.quant_sqnr_db / 10.0);
  const double own = std::pow(10.0, -*row.isolated_sqnr_db / 10.0);
  const double left = std::max(accumulated - own, accumulated * 1e-6);
  return 10.0 * std::log10(accumulated / left);
}

Status add_keep_float_ranking(const etdump::ETDumpFile& dump, const etrecord::ETRecord& record,
                              const FloatRun& float_run, const NumericOptions& options,
                              QuantReport* report) {
  auto int8_graph = record.edge_graphs.find(std::string(aot::kForwardMethod));
  auto float_graph = float_run.record->edge_graphs.find(std::string(aot::kForwardMethod));
  if (int8_graph == record.edge_graphs.end() ||
      float_graph == float_run.record->edge_graphs.end()) {
    return Status(Error::kInvalidArgument, "both ETRecords need a \"forward\" edge graph");
  }
  GLASSBOX_ASSIGN_OR_RETURN(auto twin_of,
                            aot::align_float_twin(int8_graph->second, float_graph->second));
  NumericOptions float_options = options;
  float_options.allow_fingerprint_mismatch = false;
  GLASSBOX_ASSIGN_OR_RETURN(auto int8_ns, time_per_handle(dump, record, options));
  GLASSBOX_ASSIGN_OR_RETURN(auto float_ns,
                            time_per_handle(*float_run.dump, *float_run.record, float_options));
  for (std::size_t i = 0; i < report->rows.size(); ++i) {
    QuantRow& row = report->rows[i];
    auto twin = twin_of.find(row.handle);
    auto a = int8_ns.find(row.handle);
    if (twin == twin_of.end() || a == int8_ns.end()) continue;
    auto b = float_ns.find(twin->second);
    if (b == float_ns.end()) continue;
    row.int8_ms = a->second / 1e6;
    row.float_ms = b->second / 1e6;
    row.keep_float_gain_db = keep_float_gain(row);
    if (!row.keep_float_gain_db) continue;
    // A float op no slower than its int8 one costs nothing: 1 us stands in,
    // so such ops rank first among equal gains.
    const double cost_ms = std::max(*row.float_ms - *row.int8_ms, 0.001);
    row.gain_db_per_ms = *row.keep_float_gain_db / cost_ms;
    report->keep_float_ranking.push_back(i);
  }
  std::stable_sort(report->keep_float_ranking.begin(), report->keep_float_ranking.end(),
                   [&](std::size_t x, std::size_t y) {
                     return *report->rows[x].gain_db_per_ms > *report->rows[y].gain_db_per_ms;
                   });
  return Status();
}

}  // namespace

double sqnr_db(std::span<const float> reference, std::span<const double> x) {
  return sqnr_of(std::vector<double>(reference.begin(), reference.end()),
                 std::vector<double>(x.begin(), x.end()));
}

StatusOr<QuantReport> compare_quantization(const etdump::ETDumpFile& dump,
                                           const etrecord::ETRecord& record,
                                           std::span<const std::uint8_t> debug_data,
                                           const NumericOptions& options,
                                           const FloatRun& float_run) {
  if (record.float_op_outputs.empty() || record.isolated_op_outputs.empty()) {
    return Status(Error::kInvalidArgument,
                  "the ETRecord has no quantization references: lower an int8 (QDQ) model with "
                  "--etrecord and --reference-inputs (or --reference-seed), optionally "
                  "--float-model");
  }
  NumericOptions numeric_options = options;
  numeric_options.keep_runtime_values = true;
  GLASSBOX_ASSIGN_OR_RETURN(NumericReport numeric,
                            compare_numerics(dump, record, debug_data, numeric_options));
  const aot::Graph& graph = record.edge_graphs.at(std::string(aot::kForwardMethod));
  const std::map<DebugHandle, OutputQuant> quant = output_quantization(graph);

  // The delegate's output of each handle: the last compared row of it.
  std::map<DebugHandle, const NumericRow*> delegate_row;
  for (const NumericRow& row : numeric.rows) {
    if (row.status == NumericStatus::kCompared && row.reference_handle.is_set()) {
      delegate_row[row.reference_handle] = &row;
    }
  }
  QuantReport report;
  report.execution = options.execution;
  report.diagnostics = numeric.diagnostics;
  for (const auto& [handle, q] : quant) {
    const etrecord::ReferenceTensor* isolated = first_of(record.isolated_op_outputs, handle);
    if (isolated == nullptr) continue;  // Not an op's output (the model input's quantize).
    QuantRow row;
    row.handle = handle;
    for (const aot::Node& node : graph.nodes) {
      if (node.debug_handle != handle) continue;
      const bool principal = !aot::is_quantization_op(node.op);
      if (principal) {
        row.op_names.push_back(node.name);
        row.op_types.push_back(node.op);
        if (row.module.empty() && !node.module_hierarchy.empty()) {
          row.module = node.module_hierarchy.back().path;
        }
      }
    }
    row.dtype = q.dtype;
    row.scale = q.scale;
    row.zero_point = q.zero_point;
    row.axis = q.axis;
    const etrecord::ReferenceTensor* fl = first_of(record.float_op_outputs, handle);
    const etrecord::ReferenceTensor* sim = first_of(record.reference_op_outputs, handle);
    if (fl != nullptr) {
      const std::vector<double> f = as_doubles(*fl);
      row.isolated_sqnr_db = sqnr_of(f, as_doubles(*isolated));
      if (sim != nullptr) row.quant_sqnr_db = sqnr_of(f, as_doubles(*sim));
      // Saturated: float values beyond the output type's range.
      const auto [qmin, qmax] = type_range(q.dtype);
      std::size_t clipped = 0;
      for (std::size_t i = 0; i < f.size(); ++i) {
        const std::size_t c = q.scale.size() == 1 ? 0 : channel_of(i, fl->sizes, q.axis);
        if (c >= q.scale.size()) continue;
        const double lo = static_cast<double>(qmin - q.zero_point[c]) * q.scale[c];
        const double hi = static_cast<double>(qmax - q.zero_point[c]) * q.scale[c];
        clipped += f[i] < lo - 0.5 * q.scale[c] || f[i] > hi + 0.5 * q.scale[c];
      }
      if (!f.empty()) row.clipped_fraction = static_cast<double>(clipped) / double(f.size());
    } else {
      row.note = "no float reference for this op";
    }
    auto it = delegate_row.find(handle);
    if (it == delegate_row.end()) {
      row.note += std::string(row.note.empty() ? "" : "; ") +
                  "the run logged no output for it (run with --debug-level intermediates; a "
                  "delegate that fused it with the next op logs that op's output only)";
    } else {
      const NumericRow& runtime = *it->second;
      row.backend = runtime.backend;
      // Already dequantized with `q` by compare_numerics when logged as int8.
      const std::vector<double>& d = runtime.runtime_values;
      if (fl != nullptr) row.sqnr_db = sqnr_of(as_doubles(*fl), d);
      if (sim != nullptr && sim->data.size() == d.size()) {
        const std::vector<double> s = as_doubles(*sim);
        row.kernel_sqnr_db = sqnr_of(s, d);
        double worst = 0;
        for (std::size_t i = 0; i < d.size(); ++i) worst = std::max(worst, std::abs(d[i] - s[i]));
        const double step = *std::min_element(q.scale.begin(), q.scale.end());
        row.max_error_steps = worst / step;
      }
    }
    report.rows.push_back(std::move(row));
  }
  std::stable_sort(
      report.rows.begin(), report.rows.end(), [](const QuantRow& a, const QuantRow& b) {
        return a.isolated_sqnr_db.value_or(INFINITY) < b.isolated_sqnr_db.value_or(INFINITY);
      });
  if (float_run.dump != nullptr && float_run.record != nullptr) {
    GLASSBOX_RETURN_IF_ERROR(add_keep_float_ranking(dump, record, float_run, options, &report));
  }
  return report;
}

}  // namespace glassbox::inspector
