#include "glassbox/aot/debug_handles.h"

namespace glassbox::aot {

void assign_debug_handles(Graph* graph) {
  std::uint32_t next = 1;
  for (Node& node : graph->nodes) node.debug_handle = DebugHandle(next++);
}

Node make_derived_node(const Node& source, std::string name, std::string op) {
  Node node;
  node.name = std::move(name);
  node.op = std::move(op);
  node.debug_handle = source.debug_handle;
  node.module_hierarchy = source.module_hierarchy;
  node.source_location = source.source_location;
  return node;
}

}  // namespace glassbox::aot
