// Joins two programs' ops views per source operator (compare_runs.h).
//
// Each ops row of a side covers some debug handles of that side's graph;
// the name or structure match links handles across the sides. A union-find
// over (side, handle) then gives the units compared: a row's handles are
// one unit (its time cannot be split), and linked handles are one unit, so
// a fused ConvReLU in A and a separate conv and relu in B become one row.

#include "glassbox/inspector/compare_runs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "glassbox/aot/quantization.h"
#include "glassbox/inspector/views.h"

namespace glassbox::inspector {
namespace {

using HandlePair = std::pair<DebugHandle, DebugHandle>;  // (A's, B's)

// A node a user would name as an operator: not a quantize/dequantize that
// only carries its op's handle, nor a delegate call.
bool is_compute(const aot::Node& node) {
  return !aot::is_quantization_op(node.op) && !node.is_delegate_call();
}

std::set<std::string> compute_names(const aot::Graph& graph) {
  std::set<std::string> names;
  for (const aot::Node& node : graph.nodes) {
    if (is_compute(node)) names.insert(node.name);
  }
  return names;
}

StatusOr<const aot::Graph*> forward_graph(const RunSide& side, const std::string& name) {
  if (side.inspector == nullptr || side.record == nullptr) {
    return Status(Error::kInvalidArgument, "run " + name + " needs its Inspector and ETRecord");
  }
  auto it = side.record->edge_graphs.find(std::string(aot::kForwardMethod));
  if (it == side.record->edge_graphs.end()) {
    return Status(Error::kInvalidArgument,
                  "the ETRecord of run " + name + " has no \"forward\" edge graph");
  }
  return &it->second;
}

// The handle links between the graphs, and how they were found.
StatusOr<std::pair<RunJoin, std::vector<HandlePair>>> match_ops(const aot::Graph& a,
                                                                const aot::Graph& b) {
  const std::set<std::string> names_a = compute_names(a);
  const std::set<std::string> names_b = compute_names(b);
  auto by_names = [&] {
    std::map<std::string, DebugHandle> handle_b;
    for (const aot::Node& node : b.nodes) {
      if (is_compute(node)) handle_b.emplace(node.name, node.debug_handle);
    }
    std::vector<HandlePair> links;
    for (const aot::Node& node : a.nodes) {
      auto it = is_compute(node) ? handle_b.find(node.name) : handle_b.end();
      if (it != handle_b.end()) links.emplace_back(node.debug_handle, it->second);
    }
    return std::make_pair(RunJoin::kNames, std::move(links));
  };
  if (names_a == names_b) return by_names();
  // Different names: an int8 model and its float twin, either way round.
  auto a_quantized = aot::align_float_twin_pairs(a, b);
  if (a_quantized.ok()) return std::make_pair(RunJoin::kStructure, std::move(*a_quantized));
  auto b_quantized = aot::align_float_twin_pairs(b, a);
  if (b_quantized.ok()) {
    for (HandlePair& p : *b_quantized) std::swap(p.first, p.second);
    return std::make_pair(RunJoin::kStructure, std::move(*b_quantized));
  }
  // Two versions of a model: what they share by name, the rest one-sided.
  const bool any_shared = std::any_of(names_a.begin(), names_a.end(),
                                      [&](const std::string& n) { return names_b.contains(n); });
  if (any_shared) return by_names();
  std::string why = a_quantized.message();
  const std::string prefix = "the float model does not align with the quantized one";
  if (why.starts_with(prefix)) why = "the structures differ" + why.substr(prefix.size());
  return Status(Error::kInvalidArgument,
                "the two ETRecords are not of one source model: no operator name in common, "
                "and " +
                    why + " (A read as the quantized model)");
}

class UnionFind {
 public:
  std::size_t add() {
    parent_.push_back(parent_.size());
    return parent_.size() - 1;
  }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::size_t x, std::size_t y) { parent_[find(x)] = find(y); }

 private:
  std::vector<std::size_t> parent_;
};

// One side as the join needs it.
struct Side {
  const aot::Graph* graph = nullptr;
  std::vector<OpRow> rows;
  std::map<DebugHandle, std::size_t> node_of_handle;  // handle -> union-find element
};

// One compared unit while it is built.
struct Unit {
  std::set<DebugHandle> handles[2];
  double mean[2] = {0, 0};
  bool timed[2] = {false, false};
  std::set<std::string> backends[2];
  std::vector<std::string> labels[2];  // rows without a source op
};

struct OpInfo {
  std::vector<std::string> names, types, modules;
};

// The ops of `handles` in graph order: compute nodes, or every node of a
// handle that has no compute node (the model input's quantize).
OpInfo ops_of(const aot::Graph& graph, const std::set<DebugHandle>& handles) {
  OpInfo info;
  std::set<DebugHandle> named;
  for (int pass = 0; pass < 2; ++pass) {
    for (const aot::Node& node : graph.nodes) {
      if (!handles.contains(node.debug_handle) || node.is_delegate_call()) continue;
      if (pass == 0 ? !is_compute(node) : named.contains(node.debug_handle)) continue;
      if (pass == 0) named.insert(node.debug_handle);
      info.names.push_back(node.name);
      info.types.push_back(node.op);
      info.modules.push_back(node.module_hierarchy.empty() ? ""
                                                           : node.module_hierarchy.back().path);
    }
  }
  return info;
}

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::optional<double> ratio_of(double a, double b) {
  if (a > 0) return b / a;
  return std::nullopt;
}

void add_to(std::map<std::string, RunRollupRow>* rollup, const std::string& key, double a,
            double b) {
  RunRollupRow& row = (*rollup)[key];
  row.key = key;
  row.ops += 1;
  row.mean_ns_a += a;
  row.mean_ns_b += b;
}

std::vector<RunRollupRow> finish(std::map<std::string, RunRollupRow> rollup) {
  std::vector<RunRollupRow> rows;
  for (auto& [key, row] : rollup) {
    row.delta_ns = row.mean_ns_b - row.mean_ns_a;
    row.ratio = ratio_of(row.mean_ns_a, row.mean_ns_b);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RunRollupRow& x, const RunRollupRow& y) {
    return std::fabs(x.delta_ns) > std::fabs(y.delta_ns);
  });
  return rows;
}

}  // namespace

std::string_view to_string(RunJoin join) {
  switch (join) {
    case RunJoin::kNames: return "names";
    case RunJoin::kStructure: return "structure";
  }
  return "names";
}

StatusOr<RunComparison> compare_runs(const RunSide& a, const RunSide& b) {
  RunComparison out;
  if (!a.name.empty()) out.name_a = a.name;
  if (!b.name.empty()) out.name_b = b.name;
  Side sides[2];
  const RunSide* runs[2] = {&a, &b};
  for (int s = 0; s < 2; ++s) {
    GLASSBOX_ASSIGN_OR_RETURN(sides[s].graph, forward_graph(*runs[s], s == 0 ? "A" : "B"));
  }
  const std::string unit_a = a.inspector->time().unit;
  const std::string unit_b = b.inspector->time().unit;
  if (unit_a != "ns" || unit_b != "ns") {
    return Status(Error::kInvalidArgument,
                  "both runs' times must be in ns to compare them (A's are in " + unit_a +
                      ", B's in " + unit_b + ")");
  }
  GLASSBOX_ASSIGN_OR_RETURN(auto match, match_ops(*sides[0].graph, *sides[1].graph));
  out.join = match.first;

  UnionFind sets;
  auto element = [&](int s, DebugHandle h) {
    auto [it, inserted] = sides[s].node_of_handle.try_emplace(h, 0);
    if (inserted) it->second = sets.add();
    return it->second;
  };
  // Rows without a source op are units of their own: element per row.
  std::vector<std::size_t> row_element[2];
  for (int s = 0; s < 2; ++s) {
    sides[s].rows = ops_view(*runs[s]->inspector);
    for (const OpRow& row : sides[s].rows) {
      if (row.debug_handles.empty()) {
        row_element[s].push_back(sets.add());
        continue;
      }
      const std::size_t first = element(s, row.debug_handles.front());
      for (DebugHandle h : row.debug_handles) sets.unite(element(s, h), first);
      row_element[s].push_back(first);
    }
  }
  for (const auto& [ha, hb] : match.second) sets.unite(element(0, ha), element(1, hb));

  std::map<std::size_t, Unit> units;  // by union-find root
  for (int s = 0; s < 2; ++s) {
    for (const auto& [h, e] : sides[s].node_of_handle) units[sets.find(e)].handles[s].insert(h);
    for (std::size_t i = 0; i < sides[s].rows.size(); ++i) {
      const OpRow& row = sides[s].rows[i];
      Unit& unit = units[sets.find(row_element[s][i])];
      unit.mean[s] += row.stats.mean;
      unit.timed[s] = true;
      unit.backends[s].insert(row.backend);
      if (row.debug_handles.empty()) unit.labels[s].push_back(row.label);
    }
  }

  std::map<std::string, RunRollupRow> by_module, by_type;
  for (auto& [root, unit] : units) {
    if (!unit.timed[0] && !unit.timed[1]) continue;  // ops neither run timed
    RunCompareRow row;
    const OpInfo info_a = ops_of(*sides[0].graph, unit.handles[0]);
    const OpInfo info_b = ops_of(*sides[1].graph, unit.handles[1]);
    // Names from the side that has the unit, A first.
    const bool use_a = !info_a.names.empty() || (info_b.names.empty() && unit.timed[0]);
    const OpInfo& info = use_a ? info_a : info_b;
    row.op_names = info.names;
    row.op_names_b = info_b.names;
    row.op_types = info.types;
    row.module = info.modules.empty() ? "" : info.modules.front();
    if (row.op_names.empty()) {
      // Rows no source op explains (a delegate call seen only from outside).
      row.op_names = unit.labels[unit.timed[0] ? 0 : 1];
      if (unit.timed[1]) row.op_names_b = unit.labels[1];
    }
    row.backend_a = joined(unit.backends[0]);
    row.backend_b = joined(unit.backends[1]);
    if (unit.timed[0]) row.mean_ns_a = unit.mean[0];
    if (unit.timed[1]) row.mean_ns_b = unit.mean[1];
    if (row.mean_ns_a && row.mean_ns_b) row.ratio = ratio_of(*row.mean_ns_a, *row.mean_ns_b);
    row.delta_ns = unit.mean[1] - unit.mean[0];
    out.total_ns_a += unit.mean[0];
    out.total_ns_b += unit.mean[1];
    // The rollups share a unit's time equally among its ops.
    const std::size_t n = std::max<std::size_t>(info.types.size(), 1);
    const double share_a = unit.mean[0] / static_cast<double>(n);
    const double share_b = unit.mean[1] / static_cast<double>(n);
    if (info.types.empty()) {
      add_to(&by_module, "", share_a, share_b);
      add_to(&by_type, "(no source op)", share_a, share_b);
    }
    for (std::size_t i = 0; i < info.types.size(); ++i) {
      add_to(&by_module, info.modules[i], share_a, share_b);
      add_to(&by_type, info.types[i], share_a, share_b);
    }
    if (unit.timed[0] && unit.timed[1]) {
      out.rows.push_back(std::move(row));
    } else {
      (unit.timed[0] ? out.only_a : out.only_b).push_back(std::move(row));
    }
  }
  for (auto* rows : {&out.rows, &out.only_a, &out.only_b}) {
    std::stable_sort(rows->begin(), rows->end(),
                     [](const RunCompareRow& x, const RunCompareRow& y) {
                       return std::fabs(x.delta_ns) > std::fabs(y.delta_ns);
                     });
  }
  out.by_module = finish(std::move(by_module));
  out.by_type = finish(std::move(by_type));
  return out;
}

}  // namespace glassbox::inspector
