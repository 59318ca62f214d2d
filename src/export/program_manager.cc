#include "glassbox/export/program_manager.h"

#include <fstream>
#include <string>
#include <variant>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/padding_only_conv.h"
#include "glassbox/aot/to_backend.h"

namespace glassbox::exporter {

EdgeProgramManager::EdgeProgramManager(aot::Graph graph, bool generate_etrecord)
    : graph_(std::move(graph)), edge_graph_(graph_), generate_etrecord_(generate_etrecord) {}

StatusOr<EdgeProgramManager> to_edge(aot::Graph graph, EdgeOptions options) {
  GLASSBOX_RETURN_IF_ERROR(aot::verify(graph));
  return EdgeProgramManager(std::move(graph), options.generate_etrecord);
}

StatusOr<EdgeProgramManager> EdgeProgramManager::to_backend(
    const aot::Partitioner& partitioner, std::span<const aot::CompileSpec> compile_specs) const {
  EdgeProgramManager next = *this;
  GLASSBOX_ASSIGN_OR_RETURN(next.graph_, aot::to_backend(graph_, partitioner, compile_specs));
  return next;
}

EdgeProgramManager EdgeProgramManager::transform(
    const std::function<void(aot::Graph*)>& pass) const {
  EdgeProgramManager next = *this;
  pass(&next.graph_);
  return next;
}

StatusOr<ExecutorchProgramManager> EdgeProgramManager::to_executorch() const {
  GLASSBOX_ASSIGN_OR_RETURN(aot::EmitResult emitted,
                            aot::emit(graph_, {.edge_graph = &edge_graph_}));
  std::optional<etrecord::ETRecord> record;
  if (generate_etrecord_) {
    GLASSBOX_ASSIGN_OR_RETURN(record, etrecord::make_etrecord(edge_graph_, emitted));
  }
  return ExecutorchProgramManager(std::move(emitted), std::move(record));
}

StatusOr<etrecord::ETRecord> ExecutorchProgramManager::get_etrecord() const {
  if (!etrecord_) {
    return Status(Error::kInvalidState, "ETRecord was not generated; pass generate_etrecord=true");
  }
  return *etrecord_;
}

Status ExecutorchProgramManager::save(const std::string& path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(buffer().data()),
             static_cast<std::streamsize>(buffer().size()));
  file.close();
  if (!file) return Status(Error::kAccessFailed, path + ": cannot write the program");
  return Status();
}

StatusOr<EdgeProgramManager> to_edge_transform_and_lower(
    aot::Graph graph, std::span<const aot::Partitioner> partitioners, const LowerOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(
      EdgeProgramManager manager,
      to_edge(std::move(graph), {.generate_etrecord = options.generate_etrecord}));
  // After the snapshot: the ETRecord keeps the user's convolution, the
  // program runs the 1x1 one under the same debug handle.
  manager = manager.transform([](aot::Graph* g) { aot::rewrite_padding_only_convs(g); });
  for (const aot::Partitioner& partitioner : partitioners) {
    GLASSBOX_ASSIGN_OR_RETURN(manager, manager.to_backend(partitioner, options.compile_specs));
  }
  return manager;
}

StatusOr<ExecutorchProgramManager> export_model(aot::Graph graph, const Recipe& recipe) {
  GLASSBOX_ASSIGN_OR_RETURN(
      EdgeProgramManager manager,
      to_edge_transform_and_lower(
          std::move(graph), recipe.partitioners,
          {.compile_specs = recipe.compile_specs, .generate_etrecord = recipe.generate_etrecord}));
  return manager.to_executorch();
}

StatusOr<std::vector<InstructionId>> delegate_calls_with_identifier(
    const ExecutorchProgramManager& program, std::string_view identifier) {
  std::vector<InstructionId> calls;
  const auto forward = program.delegate_map().find(aot::kForwardMethod);
  if (forward != program.delegate_map().end()) {
    for (const auto& [instruction, entry] : forward->second) {
      if (!entry.delegate_map.has_value()) continue;
      for (const auto& [id, handles] : *entry.delegate_map) {
        // describe() quotes string identifiers; compare those unquoted.
        const auto* text = std::get_if<std::string>(&id);
        if (aot::describe(id) == identifier || (text != nullptr && *text == identifier)) {
          calls.push_back(instruction);
          break;
        }
      }
    }
  }
  if (calls.empty()) {
    return Status(Error::kInvalidArgument,
                  "no delegate operator has this identifier (see `glassbox etrecord show` or "
                  "`glassbox inspect --view ops` for the identifiers)");
  }
  return calls;
}

}  // namespace glassbox::exporter
