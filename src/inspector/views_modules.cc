// The modules view: totals over the module hierarchy, built from the ops
// view so that a DELEGATE_CALL and its inner events never both count, and
// a fused row counts once per module however many of its ops are inside.

#include <algorithm>
#include <map>
#include <set>

#include "glassbox/inspector/views.h"

namespace glassbox::inspector {
namespace {

struct Node {
  ModuleRow row;
  std::set<std::string> children;
};

}  // namespace

std::vector<ModuleRow> modules_view(const Inspector& inspector) {
  // Each row's ops, with their full hierarchies, come from the groups.
  std::map<std::string, Node> tree;
  tree[""].row = ModuleRow{};
  std::map<std::uint32_t, const SourceOp*> op_by_handle;
  for (const EventGroup& g : inspector.groups()) {
    for (const SourceOp& op : g.source_ops) op_by_handle.try_emplace(op.handle.value, &op);
  }

  for (const OpRow& row : ops_view(inspector)) {
    // module path -> ops of this row inside it
    std::map<std::string, std::uint32_t> inside;
    std::size_t row_ops = 0;
    for (DebugHandle h : row.debug_handles) {
      auto it = op_by_handle.find(h.value);
      if (it == op_by_handle.end()) continue;
      ++row_ops;
      ++inside[""];
      std::string parent;
      std::uint32_t depth = 0;
      for (const aot::ModuleFrame& frame : it->second->module_hierarchy) {
        Node& node = tree[frame.path];
        node.row.path = frame.path;
        node.row.type = frame.type;
        node.row.depth = ++depth;
        tree[parent].children.insert(frame.path);
        parent = frame.path;
        ++inside[frame.path];
      }
    }
    if (row_ops == 0) {
      // Unmapped time still belongs to the model as a whole.
      inside[""] = 0;
      row_ops = 0;
    }
    for (const auto& [path, count] : inside) {
      ModuleRow& m = tree[path].row;
      m.total_mean += row.stats.mean;
      if (count < row_ops) m.shared_mean += row.stats.mean;
      m.ops += count;
      ++m.rows;
    }
  }

  std::vector<ModuleRow> rows;
  // Depth first; children by total time descending, then by path.
  std::vector<std::string> stack{""};
  while (!stack.empty()) {
    const std::string path = stack.back();
    stack.pop_back();
    const Node& node = tree[path];
    rows.push_back(node.row);
    std::vector<const ModuleRow*> children;
    for (const std::string& c : node.children) children.push_back(&tree[c].row);
    std::sort(children.begin(), children.end(), [](const ModuleRow* a, const ModuleRow* b) {
      if (a->total_mean != b->total_mean) return a->total_mean < b->total_mean;
      return a->path > b->path;
    });
    for (const ModuleRow* c : children) stack.push_back(c->path);
  }
  return rows;
}

}  // namespace glassbox::inspector
