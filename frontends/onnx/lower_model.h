#pragma once
/// @file
/// `glassbox lower MODEL.onnx`'s work, callable from the CLI: import an
/// ONNX model and export it with a recipe (exporter::export_model).
///
///   exporter::Recipe recipe;                      // no partitioner: portable
///   recipe.generate_etrecord = true;
///   auto program = frontends::onnx::export_onnx_model("m.onnx", recipe);
///   if (program.ok()) program->save("m.gbx");

#include <string>
#include <string_view>

#include "frontends/onnx/importer.h"
#include "glassbox/export/program_manager.h"

namespace glassbox::frontends::onnx {

/// Whether `path` names an ONNX model by its extension (".onnx", any case).
bool is_onnx_path(std::string_view path);

/// import_onnx, then exporter::export_model with `recipe` (whose
/// partitioners are only used during the call). Errors name the model.
StatusOr<exporter::ExecutorchProgramManager> export_onnx_model(const std::string& model_path,
                                                               const exporter::Recipe& recipe,
                                                               const ImportOptions& options = {});

/// A node predicate for partitioners of backends that read conv2d/pool
/// "padding" as [h, w] only: false for nodes with 4-entry (asymmetric)
/// padding, which the importer writes for ONNX pads such as SAME_UPPER.
bool has_symmetric_padding(const aot::Graph& graph, const aot::Node& node);

}  // namespace glassbox::frontends::onnx
