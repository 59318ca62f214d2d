// Run time: a loaded program run on NumPy arrays with an ETDumpGen tracer,
// through the runner library's LoadedProgram (as `glassbox run`).

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runner/loaded_program.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace glassbox::python {
namespace {

// ETDumpGen with the memory it records into (a caller buffer when a size
// is given, else heap mode) and an optional in-memory debug buffer.
class Tracer {
 public:
  explicit Tracer(std::optional<std::size_t> buffer_size) {
    if (buffer_size.has_value()) {
      buffer_.resize(*buffer_size);
      gen_ =
          std::make_unique<etdump::ETDumpGen>(Span<std::uint8_t>(buffer_.data(), buffer_.size()));
    } else {
      gen_ = std::make_unique<etdump::ETDumpGen>();
    }
  }
  etdump::ETDumpGen& gen() { return *gen_; }

  void set_debug_buffer(std::size_t size) {
    sink_.reset();
    debug_memory_.assign(size, 0);
    Result<etdump::BufferDataSink> sink = etdump::BufferDataSink::create(
        Span<std::uint8_t>(debug_memory_.data(), debug_memory_.size()));
    if (!sink.ok()) {
      throw_status(
          Status(sink.error(), "cannot use a debug buffer of " + std::to_string(size) + " bytes"));
    }
    sink_.emplace(std::move(*sink));
    gen_->set_data_sink(&*sink_);
  }
  py::bytes debug_buffer() const {
    if (!sink_.has_value()) return py::bytes();
    Span<const std::uint8_t> used = sink_->data();
    return py::bytes(reinterpret_cast<const char*>(used.data()), used.size());
  }
  py::bytes etdump_data() {
    Result<Span<const std::uint8_t>> dump = gen_->get_etdump_data();
    if (!dump.ok()) throw_status(Status(dump.error_info()));
    return py::bytes(reinterpret_cast<const char*>(dump->data()), dump->size());
  }

 private:
  std::vector<std::uint8_t> buffer_;
  std::unique_ptr<etdump::ETDumpGen> gen_;
  std::vector<std::uint8_t> debug_memory_;
  std::optional<etdump::BufferDataSink> sink_;
};

// The input as the program takes it: cast to its dtype (no copy when the
// array already is C-contiguous of that dtype), then its bytes.
runner::HostTensor host_tensor(const py::array& given, const runner::TensorSpec& spec) {
  const py::array array = py::array::ensure(
      given.attr("astype")(numpy_dtype(spec.dtype), "C", "same_kind", true, false),
      py::array::c_style);
  runner::HostTensor t{spec.dtype, {array.shape(), array.shape() + array.ndim()}, {}};
  const auto* data = static_cast<const std::uint8_t*>(array.data());
  t.bytes.assign(data, data + array.nbytes());
  return t;
}

py::array numpy_array(const runner::HostTensor& t) {
  py::array array(numpy_dtype(t.dtype), t.shape);
  if (!t.bytes.empty()) std::memcpy(array.mutable_data(), t.bytes.data(), t.bytes.size());
  return array;
}

}  // namespace

// NumPy's dtype for each ScalarType the runtime and the ETDump have
// (bfloat16, which NumPy lacks, and the quantized types read as float32).
py::dtype numpy_dtype(ScalarType type) {
  switch (type) {
    case ScalarType::kByte: return py::dtype::of<std::uint8_t>();
    case ScalarType::kChar: return py::dtype::of<std::int8_t>();
    case ScalarType::kShort: return py::dtype::of<std::int16_t>();
    case ScalarType::kInt: return py::dtype::of<std::int32_t>();
    case ScalarType::kLong: return py::dtype::of<std::int64_t>();
    case ScalarType::kHalf: return py::dtype("float16");
    case ScalarType::kDouble: return py::dtype::of<double>();
    case ScalarType::kBool: return py::dtype::of<bool>();
    case ScalarType::kUInt16: return py::dtype::of<std::uint16_t>();
    case ScalarType::kUInt32: return py::dtype::of<std::uint32_t>();
    case ScalarType::kUInt64: return py::dtype::of<std::uint64_t>();
    default: return py::dtype::of<float>();
  }
}

void register_runtime(py::module_& m) {
  py::class_<Tracer>(m, "ETDumpGen")
      .def(py::init<std::optional<std::size_t>>(), py::arg("buffer_size") = py::none())
      .def("set_debug_level",
           [](Tracer& t, int level) {
             t.gen().set_debug_level(static_cast<runtime::DebugLevel>(level));
           })
      .def("set_profiling_level",
           [](Tracer& t, int level) {
             t.gen().set_profiling_level(static_cast<runtime::ProfilingLevel>(level));
           })
      .def("set_debug_buffer", &Tracer::set_debug_buffer)
      .def("get_debug_buffer", &Tracer::debug_buffer)
      .def("get_etdump_data", &Tracer::etdump_data)
      .def_property_readonly("num_events", [](Tracer& t) { return t.gen().num_events(); })
      .def_property_readonly("dropped_events", [](Tracer& t) { return t.gen().dropped_events(); })
      .def("reset", [](Tracer& t) { t.gen().reset(); });

  py::class_<runner::LoadedProgram>(m, "Program")
      .def_static("load",
                  [](const std::string& path) {
                    return value_or_throw(runner::LoadedProgram::load_file(path));
                  })
      .def_static("from_bytes",
                  [](const py::bytes& bytes, const std::string& name) {
                    const std::string_view view = bytes;
                    return value_or_throw(runner::LoadedProgram::load(
                        std::vector<std::uint8_t>(view.begin(), view.end()), name));
                  })
      .def_property_readonly("fingerprint",
                             [](const runner::LoadedProgram& p) { return p.fingerprint(); })
      .def(
          "run",
          [](const runner::LoadedProgram& program, const std::vector<py::array>& inputs,
             Tracer* tracer, std::uint32_t threads, int iterations) {
            runner::LoadedMethod method = value_or_throw(program.load_method(
                tracer ? &tracer->gen() : nullptr, {.log_mode = {}, .threads = threads}));
            // A surplus input gets no conversion: set_inputs refuses the count.
            const std::vector<runner::TensorSpec> specs = method.input_specs();
            std::vector<runner::HostTensor> tensors;
            for (std::size_t i = 0; i < inputs.size(); ++i) {
              tensors.push_back(host_tensor(inputs[i], i < specs.size() ? specs[i] : specs.back()));
            }
            check(without_gil([&] {
              GLASSBOX_RETURN_IF_ERROR(method.set_inputs(tensors));
              for (int run = 0; run < iterations; ++run) {
                GLASSBOX_RETURN_IF_ERROR(method.execute());
              }
              return Status();
            }));
            py::list outputs;
            for (const runner::HostTensor& t : method.outputs()) outputs.append(numpy_array(t));
            return outputs;
          },
          py::arg("inputs"), py::arg("tracer") = nullptr, py::arg("threads") = 0,
          py::arg("iterations") = 1);
}

}  // namespace glassbox::python
