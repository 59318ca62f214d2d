#include "frontends/onnx/lower_model.h"

#include <algorithm>
#include <cctype>

namespace glassbox::frontends::onnx {

bool is_onnx_path(std::string_view path) {
  constexpr std::string_view kExtension = ".onnx";
  if (path.size() < kExtension.size()) return false;
  const std::string_view tail = path.substr(path.size() - kExtension.size());
  return std::equal(tail.begin(), tail.end(), kExtension.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

StatusOr<exporter::ExecutorchProgramManager> export_onnx_model(const std::string& model_path,
                                                               const exporter::Recipe& recipe,
                                                               const ImportOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(aot::Graph graph, import_onnx(model_path, options));
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(std::move(graph), recipe);
  if (!program.ok()) return program.status().with_context(model_path);
  return program;
}

bool has_symmetric_padding(const aot::Graph&, const aot::Node& node) {
  auto it = node.attributes.find("padding");
  if (it == node.attributes.end()) return true;
  const auto* padding = std::get_if<std::vector<std::int64_t>>(&it->second);
  return padding == nullptr || padding->size() == 2;
}

}  // namespace glassbox::frontends::onnx
