// Ahead of time: import, lower through the backend plug-ins, emit, and the
// ETRecord, as the exporter library does them for `glassbox lower`.

#include <dlfcn.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "backends/common/plugin_loader.h"
#include "backends/demo/aot/demo_model.h"
#include "frontends/onnx/importer.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace glassbox::python {
namespace {

// A partitioner as Python describes it: (backend name, identifiers,
// perturb); the plug-in makes the real one.
using BackendChoice = std::tuple<std::string, std::string, std::string>;

exporter::Recipe recipe_for(const std::vector<BackendChoice>& backends_chosen,
                            bool generate_etrecord) {
  exporter::Recipe recipe;
  recipe.generate_etrecord = generate_etrecord;
  for (const auto& [name, identifiers, perturb] : backends_chosen) {
    const backends::BackendPlugin* plugin = backends::find_backend_plugin(name);
    if (plugin == nullptr) {
      throw_status(
          Status(Error::kInvalidArgument,
                 "backend '" + name + "' is not registered (built in, or loaded by load_plugin)"));
    }
    check(backends::add_to_recipe(*plugin, {.identifiers = identifiers, .perturb = perturb},
                                  &recipe));
  }
  return recipe;
}

std::vector<etrecord::ReferenceTensor> reference_tensors(
    const std::vector<py::array_t<float, py::array::c_style | py::array::forcecast>>& arrays) {
  std::vector<etrecord::ReferenceTensor> tensors;
  for (const auto& array : arrays) {
    etrecord::ReferenceTensor t;
    t.sizes.assign(array.shape(), array.shape() + array.ndim());
    t.data.assign(array.data(), array.data() + array.size());
    tensors.push_back(std::move(t));
  }
  return tensors;
}

py::bytes to_py_bytes(const std::vector<std::uint8_t>& bytes) {
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

void register_aot(py::module_& m) {
  py::class_<aot::Graph>(m, "Graph")
      .def_property_readonly("num_nodes", [](const aot::Graph& g) { return g.nodes.size(); })
      .def_property_readonly("op_types", [](const aot::Graph& g) {
        std::vector<std::string> ops;
        for (const aot::Node& node : g.nodes) ops.push_back(node.op);
        return ops;
      });

  m.def(
      "load_onnx",
      [](const std::string& path, const std::map<std::string, std::vector<std::int64_t>>& shapes) {
        frontends::onnx::ImportOptions options;
        options.input_shapes.insert(shapes.begin(), shapes.end());
        return value_or_throw(
            without_gil([&] { return frontends::onnx::import_onnx(path, options); }));
      },
      py::arg("path"),
      py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{});
  m.def("demo_model", [] { return value_or_throw(backends::demo::build_conv_relu_tan_model()); });
  m.def("load_plugin", [](const std::string& path) {
    // Python opens extension modules RTLD_LOCAL, so a plug-in could not
    // bind to this module's symbols (the backend registries); make them
    // global first, as the glassbox program's are (-rdynamic).
    Dl_info self;
    if (dladdr(reinterpret_cast<void*>(&register_aot), &self) == 0 ||
        dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == nullptr) {
      throw_status(Status(Error::kInternal, "cannot export _glassbox's symbols to plug-ins"));
    }
    check(backends::load_backend_plugin(path));
  });
  m.def("backend_names", [] {
    std::vector<std::string> names;
    for (const backends::BackendPlugin* plugin : backends::backend_plugins()) {
      names.emplace_back(plugin->name);
    }
    return names;
  });

  py::class_<etrecord::ETRecord>(m, "ETRecord")
      .def_static(
          "load",
          [](const std::string& path) { return value_or_throw(etrecord::ETRecord::load(path)); })
      .def("save",
           [](const etrecord::ETRecord& r, const std::string& path) { check(r.save(path)); })
      .def("to_bytes",
           [](const etrecord::ETRecord& r) { return to_py_bytes(value_or_throw(r.to_bytes())); })
      .def_readonly("fingerprint", &etrecord::ETRecord::fingerprint)
      .def_property_readonly("has_reference", [](const etrecord::ETRecord& r) {
        return !r.reference_op_outputs.empty();
      });

  py::class_<exporter::ExecutorchProgramManager>(m, "ExecutorchProgramManager")
      .def_property_readonly(
          "buffer",
          [](const exporter::ExecutorchProgramManager& p) { return to_py_bytes(p.buffer()); })
      .def_property_readonly("fingerprint", &exporter::ExecutorchProgramManager::fingerprint)
      .def("save", [](const exporter::ExecutorchProgramManager& p,
                      const std::string& path) { check(p.save(path)); })
      .def("get_etrecord", [](const exporter::ExecutorchProgramManager& p) {
        return value_or_throw(p.get_etrecord());
      });

  py::class_<exporter::EdgeProgramManager>(m, "EdgeProgramManager")
      .def_property_readonly("graph", &exporter::EdgeProgramManager::graph)
      .def_property_readonly("edge_graph", &exporter::EdgeProgramManager::edge_graph)
      .def("to_backend",
           [](const exporter::EdgeProgramManager& edge, const std::vector<BackendChoice>& chosen) {
             exporter::Recipe recipe = recipe_for(chosen, edge.generate_etrecord());
             std::optional<exporter::EdgeProgramManager> current = edge;
             for (const aot::Partitioner& partitioner : recipe.partitioners) {
               current = value_or_throw(current->to_backend(partitioner, recipe.compile_specs));
             }
             return *current;
           })
      .def("to_executorch", [](const exporter::EdgeProgramManager& edge) {
        return value_or_throw(without_gil([&] { return edge.to_executorch(); }));
      });

  m.def(
      "to_edge",
      [](const aot::Graph& graph, bool generate_etrecord) {
        return value_or_throw(exporter::to_edge(graph, {.generate_etrecord = generate_etrecord}));
      },
      py::arg("graph"), py::arg("generate_etrecord") = false);
  m.def(
      "to_edge_transform_and_lower",
      [](const aot::Graph& graph, const std::vector<BackendChoice>& chosen,
         bool generate_etrecord) {
        const exporter::Recipe recipe = recipe_for(chosen, generate_etrecord);
        return value_or_throw(without_gil([&] {
          return exporter::to_edge_transform_and_lower(
              graph, recipe.partitioners,
              {.compile_specs = recipe.compile_specs, .generate_etrecord = generate_etrecord});
        }));
      },
      py::arg("graph"), py::arg("backends"), py::arg("generate_etrecord") = false);
  // A partitioner's perturb must name an identifier some delegate has, as
  // `glassbox lower --perturb` requires: the same exporter check.
  m.def("check_perturb",
        [](const exporter::ExecutorchProgramManager& program, const std::string& identifier) {
          StatusOr<std::vector<InstructionId>> calls =
              exporter::delegate_calls_with_identifier(program, identifier);
          if (!calls.ok()) throw_status(calls.status().with_context("perturb=" + identifier));
        });
  m.def("make_etrecord", [](const exporter::EdgeProgramManager& edge,
                            const exporter::ExecutorchProgramManager& program) {
    return value_or_throw(etrecord::make_etrecord(edge.edge_graph(), program.emit_result()));
  });
  // Reference inputs for numeric debugging, as `lower --reference-*`:
  // the edge graph (with its weights) run on the portable kernels.
  m.def(
      "attach_reference",
      [](etrecord::ETRecord& record, const exporter::EdgeProgramManager& edge,
         std::optional<std::uint32_t> seed,
         const std::vector<py::array_t<float, py::array::c_style | py::array::forcecast>>& inputs) {
        std::vector<etrecord::ReferenceTensor> tensors =
            seed.has_value()
                ? value_or_throw(etrecord::seeded_reference_inputs(edge.edge_graph(), *seed))
                : reference_tensors(inputs);
        check(without_gil([&] {
          return etrecord::attach_reference(edge.edge_graph(), std::move(tensors), &record);
        }));
      },
      py::arg("record"), py::arg("edge"), py::arg("seed"), py::arg("inputs"));
}

}  // namespace glassbox::python
