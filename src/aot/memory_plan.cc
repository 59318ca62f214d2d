#include "glassbox/aot/memory_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <string>
#include <vector>

namespace glassbox::aot {
namespace {

std::int64_t align_up(std::int64_t n) {
  return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

std::string value_label(const Graph& graph, ValueId id) {
  const Value* value = graph.find_value(id);
  return "value " + std::to_string(id.value) +
         (value != nullptr ? " ('" + value->name + "')" : std::string());
}

StatusOr<std::int64_t> byte_size(const Value& value) {
  const auto element = static_cast<std::int64_t>(element_size(value.dtype));
  const std::int64_t numel = value.numel();
  if (element == 0 || numel < 0 || numel > std::numeric_limits<std::int64_t>::max() / 2 / element) {
    return Status(Error::kInvalidArgument,
                  "memory plan: value '" + value.name + "' has no valid byte size");
  }
  return numel * element;
}

// Lifetimes without placement: [first_step, last_step] per non-constant value.
std::map<ValueId, PlannedValue> lifetimes(const Graph& graph) {
  std::map<ValueId, PlannedValue> out;
  for (ValueId in : graph.inputs) out[in] = PlannedValue{};
  const auto steps = static_cast<std::int64_t>(graph.nodes.size());
  for (std::int64_t k = 0; k < steps; ++k) {
    const Node& node = graph.nodes[static_cast<std::size_t>(k)];
    for (ValueId in : node.inputs) {
      auto it = out.find(in);
      if (it != out.end()) it->second.last_step = std::max(it->second.last_step, k);
    }
    for (ValueId o : node.outputs) out[o] = PlannedValue{0, 0, k, k};
  }
  // Graph inputs live to the end too: a caller sets them once and may
  // execute many times (glassbox run --iterations), so no intermediate may
  // reuse their bytes. Outputs must survive until they are read.
  for (const auto& ids : {graph.inputs, graph.outputs}) {
    for (ValueId id : ids) {
      auto it = out.find(id);
      if (it != out.end()) it->second.last_step = steps;
    }
  }
  return out;
}

}  // namespace

StatusOr<MemoryPlan> plan_memory(const Graph& graph) {
  GLASSBOX_RETURN_IF_ERROR(verify(graph));
  std::map<ValueId, PlannedValue> planned = lifetimes(graph);

  // Production order: graph inputs, then node outputs in node order. Since
  // first steps never decrease along it, an already placed value overlaps
  // the next one in time exactly when it is still live at its first step.
  std::vector<ValueId> order(graph.inputs.begin(), graph.inputs.end());
  for (const Node& node : graph.nodes) {
    order.insert(order.end(), node.outputs.begin(), node.outputs.end());
  }

  // The placed values still live, by offset (first fit walks them in that
  // order), and the same values by last step, to retire them once the
  // production order passes it. Only live values are ever looked at, so a
  // long chain costs O(n log n), not O(n^2).
  MemoryPlan plan;
  std::multimap<std::int64_t, const PlannedValue*> live_by_offset;
  using Retirement =
      std::pair<std::int64_t, std::multimap<std::int64_t, const PlannedValue*>::iterator>;
  auto later_first = [](const Retirement& a, const Retirement& b) { return a.first > b.first; };
  std::priority_queue<Retirement, std::vector<Retirement>, decltype(later_first)> retire(
      later_first);
  for (ValueId id : order) {
    PlannedValue& entry = planned.at(id);
    GLASSBOX_ASSIGN_OR_RETURN(entry.size_bytes, byte_size(*graph.find_value(id)));
    if (entry.size_bytes == 0) continue;  // Occupies nothing; offset 0.
    while (!retire.empty() && retire.top().first < entry.first_step) {
      live_by_offset.erase(retire.top().second);
      retire.pop();
    }
    std::int64_t candidate = 0;
    for (const auto& [offset, p] : live_by_offset) {
      if (candidate + entry.size_bytes <= offset) break;  // Fits in the gap.
      candidate = std::max(candidate, align_up(offset + p->size_bytes));
    }
    entry.offset = candidate;
    plan.arena_bytes = std::max(plan.arena_bytes, align_up(candidate + entry.size_bytes));
    retire.emplace(entry.last_step, live_by_offset.emplace(candidate, &entry));
  }
  plan.values = std::move(planned);
  return plan;
}

Status check_memory_plan(const Graph& graph, const MemoryPlan& plan) {
  auto bug = [](const std::string& message) {
    return Status(Error::kInternal, "memory plan: " + message);
  };
  std::vector<ValueId> expected;
  for (const Value& value : graph.values) {
    if (value.kind != ValueKind::kConstant) expected.push_back(value.id);
  }
  if (expected.size() != plan.values.size()) {
    return bug("plans " + std::to_string(plan.values.size()) + " values, the graph has " +
               std::to_string(expected.size()) + " non-constant ones");
  }
  for (ValueId id : expected) {
    auto it = plan.values.find(id);
    if (it == plan.values.end()) return bug(value_label(graph, id) + " is not planned");
    const PlannedValue& p = it->second;
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t size, byte_size(*graph.find_value(id)));
    if (p.size_bytes != size) return bug(value_label(graph, id) + " has the wrong size");
    if (p.offset < 0 || p.offset % kArenaAlignment != 0 ||
        p.offset + p.size_bytes > plan.arena_bytes) {
      return bug(value_label(graph, id) + " is misaligned or outside the arena");
    }
  }

  // Liveness by brute force, step by step, from the graph alone.
  const std::size_t steps = graph.nodes.size();
  auto live_at = [&](ValueId id, std::size_t step) {
    bool born = false;
    for (ValueId in : graph.inputs) born = born || in == id;
    for (std::size_t k = 0; k <= step && k < steps && !born; ++k) {
      for (ValueId o : graph.nodes[k].outputs) born = born || o == id;
    }
    if (!born) return false;
    for (const auto& ids : {graph.inputs, graph.outputs}) {
      for (ValueId o : ids) {
        if (o == id) return true;
      }
    }
    for (std::size_t k = step; k < steps; ++k) {
      for (ValueId in : graph.nodes[k].inputs) {
        if (in == id) return true;
      }
    }
    // Produced at this very step and never read: live for that step only.
    if (step < steps) {
      for (ValueId o : graph.nodes[step].outputs) {
        if (o == id) return true;
      }
    }
    return false;
  };
  for (std::size_t step = 0; step <= steps; ++step) {
    std::vector<ValueId> live;
    for (ValueId id : expected) {
      if (live_at(id, step)) live.push_back(id);
    }
    for (std::size_t i = 0; i < live.size(); ++i) {
      for (std::size_t j = i + 1; j < live.size(); ++j) {
        const PlannedValue& a = plan.values.at(live[i]);
        const PlannedValue& b = plan.values.at(live[j]);
        if (a.offset < b.offset + b.size_bytes && b.offset < a.offset + a.size_bytes) {
          return bug(value_label(graph, live[i]) + " and " + value_label(graph, live[j]) +
                     " overlap while both live at step " + std::to_string(step));
        }
      }
    }
  }
  return Status();
}

}  // namespace glassbox::aot
