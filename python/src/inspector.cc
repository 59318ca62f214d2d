// The Inspector: the C++ join of ETDump and ETRecord, its views rendered by
// the same formatters as `glassbox inspect` (JSON, parsed in Python), and
// its event groups with their raw samples.

#include "glassbox/inspector/inspector.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/compare_runs.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/inspector/quant.h"
#include "glassbox/io/file.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace glassbox::python {
namespace {

// What one Inspector needs kept together: the dump and record it joined
// (numeric comparison reads them again) and the debug data.
struct PyInspector {
  etdump::ETDumpFile dump;
  std::optional<etrecord::ETRecord> record;
  std::string etdump_path;
  std::string debug_data_path;
  std::optional<inspector::Inspector> inspector;
};

py::object identifier_object(const inspector::Identifier& id) {
  if (!id.has_value()) return py::none();
  if (const auto* number = std::get_if<std::int64_t>(&*id)) return py::int_(*number);
  return py::str(std::get<std::string>(*id));
}

py::dict stats_dict(const inspector::PerfStats& s) {
  py::dict d;
  d["count"] = s.count;
  d["total"] = s.total;
  d["min"] = s.min;
  d["max"] = s.max;
  d["avg"] = s.mean;
  d["p10"] = s.p10;
  d["p50"] = s.p50;
  d["p90"] = s.p90;
  d["stddev"] = s.stddev;
  return d;
}

py::dict source_op_dict(const inspector::SourceOp& op) {
  py::dict d;
  d["debug_handle"] = op.handle.value;
  d["name"] = op.name;
  d["type"] = op.type;
  py::list hierarchy;
  for (const aot::ModuleFrame& frame : op.module_hierarchy) {
    hierarchy.append(py::make_tuple(frame.path, frame.type));
  }
  d["module_hierarchy"] = hierarchy;
  d["source_location"] =
      op.source_location.file.empty()
          ? std::string()
          : op.source_location.file + ":" + std::to_string(op.source_location.line);
  return d;
}

py::dict group_dict(const inspector::EventGroup& g) {
  py::dict d;
  d["block"] = g.block;
  d["name"] = g.name;
  d["role"] = std::string(inspector::to_string(g.role));
  d["instruction"] =
      g.instruction.is_set() ? py::object(py::int_(g.instruction.value)) : py::none();
  d["delegate_debug_identifier"] = identifier_object(g.identifier);
  d["delegated"] = g.delegated;
  d["backend"] = g.backend;
  d["resolved"] = g.resolved;
  std::vector<std::int64_t> handles;
  for (DebugHandle h : g.debug_handles) handles.push_back(h.value);
  d["debug_handles"] = handles;
  py::list ops;
  for (const inspector::SourceOp& op : g.source_ops) ops.append(source_op_dict(op));
  d["source_ops"] = ops;
  d["samples"] = g.samples;
  d["sample_runs"] = g.sample_runs;
  d["occurrences"] = g.occurrences;
  d["stats"] = stats_dict(g.stats);
  d["time_scale"] = std::string(inspector::to_string(g.time_scale));
  d["delegate_debug_metadata"] =
      py::bytes(reinterpret_cast<const char*>(g.delegate_debug_metadata.data()),
                g.delegate_debug_metadata.size());
  return d;
}

py::object identifier_of(const etdump::DebugEvent& event) {
  if (event.delegate_debug_id_str.has_value()) return py::str(*event.delegate_debug_id_str);
  if (event.delegate_debug_id_int.is_set()) return py::int_(event.delegate_debug_id_int.value);
  return py::none();
}

// A logged tensor as a NumPy array of its own dtype and shape, its values
// read (and bounds-checked) from the debug data by the C++ reader; None
// when the tensor was logged without data.
py::object tensor_array(const etdump::Tensor& tensor, std::span<const std::uint8_t> debug_data,
                        const std::string& where) {
  if (tensor.offset < 0) return py::none();
  StatusOr<std::vector<double>> values = etdump::read_tensor_values(tensor, debug_data);
  if (!values.ok()) throw_status(values.status().with_context(where));
  py::array_t<double> array(std::vector<py::ssize_t>(tensor.sizes.begin(), tensor.sizes.end()));
  std::copy(values->begin(), values->end(), array.mutable_data());
  const std::optional<ScalarType> type = tensor.known_scalar_type();
  return array.attr("astype")(numpy_dtype(type.value_or(ScalarType::kDouble)));
}

py::object value_object(const etdump::Value& value, std::span<const std::uint8_t> debug_data,
                        const std::string& where) {
  if (value.tensor.has_value()) return tensor_array(*value.tensor, debug_data, where);
  if (value.tensor_list.has_value()) {
    py::list list;
    for (const etdump::Tensor& t : *value.tensor_list)
      list.append(tensor_array(t, debug_data, where));
    return list;
  }
  if (value.int_value.has_value()) return py::int_(*value.int_value);
  if (value.float_value.has_value()) return py::float_(*value.float_value);
  if (value.double_value.has_value()) return py::float_(*value.double_value);
  if (value.bool_value.has_value()) return py::bool_(*value.bool_value);
  return py::none();
}

// The logged values of the first used run of each block name, as
// ExecuTorch's Event.debug_data shows them (one run's values); none
// without debug data, which the values point into.
py::list debug_events(const PyInspector& self) {
  py::list events;
  if (self.debug_data_path.empty()) return events;
  const std::vector<inspector::RunInfo>& runs = self.inspector->runs();
  std::vector<std::string> blocks_seen;
  const std::vector<std::uint8_t>& debug_data = self.inspector->debug_data();
  for (std::size_t r = 0; r < runs.size() && r < self.dump.runs.size(); ++r) {
    if (!runs[r].used ||
        std::find(blocks_seen.begin(), blocks_seen.end(), runs[r].name) != blocks_seen.end()) {
      continue;
    }
    blocks_seen.push_back(runs[r].name);
    for (const etdump::Event& event : self.dump.runs[r].events) {
      const etdump::DebugEvent* debug = event.debug();
      if (debug == nullptr) continue;
      py::dict d;
      d["block"] = runs[r].name;
      d["instruction"] = debug->instruction_id.is_set()
                             ? py::object(py::int_(debug->instruction_id.value))
                             : py::none();
      d["delegate_debug_identifier"] = identifier_of(*debug);
      d["name"] = debug->name.has_value() ? py::object(py::str(*debug->name)) : py::none();
      d["value"] = value_object(debug->value, debug_data, self.debug_data_path);
      events.append(d);
    }
  }
  return events;
}

// Python's delegate_time_scale_converter as the C++ option: it returns the
// time in the target time scale (ExecuTorch's meaning), the C++ Inspector
// wants nanoseconds. Called with the GIL held (the Inspector runs on the
// calling thread); a Python exception propagates to the caller, and so do
// a TypeError for a result that is no number and an InvalidArgumentError
// for one that is not finite (it would reach the views as null).
std::function<double(std::string_view, double)> converter_in_ns(py::function converter,
                                                                double ns_per_target_unit) {
  return [converter = std::move(converter), ns_per_target_unit](std::string_view name,
                                                                double raw_time) {
    const py::object returned = converter(py::str(name.data(), name.size()), raw_time);
    const auto called = [&] {  // Only for messages: no cost per call.
      return "delegate_time_scale_converter('" + std::string(name) + "', " +
             std::to_string(raw_time) + ")";
    };
    double time = 0;
    try {
      time = py::cast<double>(returned);
    } catch (const py::cast_error&) {
      throw py::type_error(called() + " returned a " + Py_TYPE(returned.ptr())->tp_name +
                           ", not a number");
    }
    if (!std::isfinite(time)) {
      throw_status(Status(Error::kInvalidArgument, called() + " returned " + std::to_string(time) +
                                                       ": times must be finite"));
    }
    return time * ns_per_target_unit;
  };
}

PyInspector create(
    const std::string& etdump_path, const etrecord::ETRecord* record,
    const std::optional<std::string>& debug_data_path, const std::optional<std::string>& time_unit,
    std::uint32_t skip_first_runs, bool allow_fingerprint_mismatch,
    std::optional<py::function> converter, double ns_per_target_unit,
    const std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>& delegate_time_scales) {
  PyInspector result;
  result.etdump_path = etdump_path;
  result.dump = value_or_throw(etdump::load_etdump_file(etdump_path));
  // Raw traces (deferred decoding) expanded by the decoders of the plug-ins
  // load_plugin loaded, as the CLI's --plugin does; none: the backend named.
  const StatusOr<etdump::RawTraceExpansion> expanded =
      etdump::expand_raw_traces(&result.dump, backends::raw_trace_decoders());
  if (!expanded.ok()) throw_status(expanded.status().with_context(etdump_path));
  if (record != nullptr) result.record = *record;
  std::vector<std::uint8_t> debug_data;
  if (debug_data_path.has_value()) {
    debug_data = value_or_throw(io::read_file(*debug_data_path));
    result.debug_data_path = *debug_data_path;
  }
  inspector::InspectorOptions options;
  options.skip_first_runs = skip_first_runs;
  options.allow_fingerprint_mismatch = allow_fingerprint_mismatch;
  if (time_unit.has_value())
    options.time_unit = value_or_throw(inspector::parse_time_unit(*time_unit));
  if (converter.has_value()) {
    options.delegate_time_scale_converter =
        converter_in_ns(std::move(*converter), ns_per_target_unit);
  }
  for (const auto& [backend, ratio] : delegate_time_scales) {
    if (ratio.first == 0 || ratio.second == 0) {
      throw_status(Status(Error::kInvalidArgument, "delegate_time_scales['" + backend +
                                                       "']: nanoseconds per tick must be a "
                                                       "(numerator, denominator) of positive "
                                                       "integers"));
    }
    options.delegate_time_scales[backend] = TickRatio{ratio.first, ratio.second};
  }
  StatusOr<inspector::Inspector> created = inspector::Inspector::create(
      result.dump, result.record ? &*result.record : nullptr, debug_data, options);
  if (!created.ok()) throw_status(created.status().with_context(etdump_path));
  result.inspector.emplace(std::move(*created));
  return result;
}

}  // namespace

void register_inspector(py::module_& m) {
  // glassbox.compare: what `glassbox compare` prints, as JSON.
  m.def(
      "compare_runs",
      [](const std::string& a_etdump, const std::string& a_etrecord, const std::string& b_etdump,
         const std::string& b_etrecord, std::uint32_t skip_first_runs, const std::string& format) {
        const inspector::RunComparison comparison = value_or_throw(
            inspector::compare_run_files({a_etdump, a_etrecord}, {b_etdump, b_etrecord},
                                         {skip_first_runs, backends::raw_trace_decoders()}));
        return value_or_throw(inspector::render_run_comparison(
            comparison, value_or_throw(inspector::parse_format(format))));
      },
      py::arg("a_etdump"), py::arg("a_etrecord"), py::arg("b_etdump"), py::arg("b_etrecord"),
      py::arg("skip_first_runs"), py::arg("format"));
  py::class_<PyInspector>(m, "Inspector")
      .def(py::init(&create), py::arg("etdump_path"), py::arg("etrecord"),
           py::arg("debug_data_path"), py::arg("time_unit"), py::arg("skip_first_runs"),
           py::arg("allow_fingerprint_mismatch"), py::arg("delegate_time_scale_converter"),
           py::arg("ns_per_target_unit"), py::arg("delegate_time_scales"))
      .def("render",
           [](const PyInspector& self, const std::string& view, const std::string& format) {
             return inspector::render(*self.inspector, value_or_throw(inspector::parse_view(view)),
                                      value_or_throw(inspector::parse_format(format)));
           })
      .def("render_comparison",
           [](const PyInspector& self, const PyInspector& baseline, const std::string& format) {
             return value_or_throw(
                 inspector::render_comparison(*baseline.inspector, *self.inspector,
                                              value_or_throw(inspector::parse_format(format))));
           })
      .def("render_numeric",
           [](const PyInspector& self, const std::string& comparators,
              const std::string& threshold_metric, std::optional<double> threshold,
              std::uint32_t execution, const std::string& format) {
             if (!self.record.has_value()) {
               throw_status(Status(Error::kInvalidArgument,
                                   "numeric comparison needs an ETRecord with reference outputs "
                                   "(lower with reference inputs)"));
             }
             inspector::NumericOptions options;
             options.comparators = value_or_throw(inspector::parse_comparators(comparators));
             options.threshold_metric =
                 value_or_throw(inspector::parse_comparator(threshold_metric));
             options.threshold = threshold;
             options.execution = execution;
             StatusOr<inspector::NumericReport> report = inspector::compare_numerics(
                 self.dump, *self.record, self.inspector->debug_data(), options);
             if (!report.ok()) throw_status(report.status().with_context(self.etdump_path));
             return value_or_throw(inspector::render_numeric(
                 *report, value_or_throw(inspector::parse_format(format))));
           })
      .def("render_quant",
           [](const PyInspector& self, std::uint32_t execution, const std::string& format) {
             if (!self.record.has_value()) {
               throw_status(Status(Error::kInvalidArgument,
                                   "the quant view needs an ETRecord of an int8 model lowered "
                                   "with reference inputs"));
             }
             inspector::NumericOptions options;
             options.execution = execution;
             StatusOr<inspector::QuantReport> report = inspector::compare_quantization(
                 self.dump, *self.record, self.inspector->debug_data(), options);
             if (!report.ok()) throw_status(report.status().with_context(self.etdump_path));
             return value_or_throw(
                 inspector::render_quant(*report, value_or_throw(inspector::parse_format(format))));
           })
      .def("groups",
           [](const PyInspector& self) {
             py::list groups;
             for (const inspector::EventGroup& g : self.inspector->groups()) {
               groups.append(group_dict(g));
             }
             return groups;
           })
      .def("debug_events", &debug_events)
      .def("runs",
           [](const PyInspector& self) {
             py::list runs;
             for (const inspector::RunInfo& run : self.inspector->runs()) {
               runs.append(py::make_tuple(run.name, run.used));
             }
             return runs;
           })
      .def_property_readonly("time_unit",
                             [](const PyInspector& self) { return self.inspector->time().unit; })
      .def_property_readonly(
          "has_etrecord", [](const PyInspector& self) { return self.inspector->has_etrecord(); });
}

}  // namespace glassbox::python
