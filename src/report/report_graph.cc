// The report's graph section: the ETRecord's edge graph (the model before
// lowering) with, per node, the ops-table row that timed it, the delegate
// call that took it, and its numeric error or int8 SQNR when the report has
// them. The page lays it out (src/report/assets/report_graph.js).

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/report/report_json.h"

namespace glassbox::report {
namespace {

using inspector::OpRow;

const aot::Graph* shown_graph(const etrecord::ETRecord& record, std::string* method) {
  if (record.edge_graphs.empty()) return nullptr;
  auto it = record.edge_graphs.find("forward");
  if (it == record.edge_graphs.end()) it = record.edge_graphs.begin();
  *method = it->first;
  return &it->second;
}

// The row a node's time is read from: of the rows holding its handle, the
// one with the most time, skipping layout conversions and delegate calls
// seen only from outside (they hold every op of the delegate).
std::map<std::uint32_t, std::size_t> row_by_handle(const std::vector<OpRow>& ops) {
  std::map<std::uint32_t, std::size_t> best;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpRow& r = ops[i];
    if (!r.layout_conversion.empty()) continue;
    for (DebugHandle h : r.debug_handles) {
      auto [it, inserted] = best.try_emplace(h.value, i);
      if (inserted) continue;
      const OpRow& held = ops[it->second];
      const bool better = held.opaque_delegate_call != r.opaque_delegate_call
                              ? held.opaque_delegate_call
                              : r.stats.mean > held.stats.mean;
      if (better) it->second = i;
    }
  }
  return best;
}

// Worst numeric error per handle: the threshold metric of every compared
// row that holds the handle, the worst one kept. A delegate call's own row
// holds all of its ops, so it only speaks for ops no finer row covers (a
// delegate that logged nothing inside); program outputs never do.
std::map<std::uint32_t, std::pair<double, bool>> error_by_handle(
    const inspector::NumericReport& report) {
  const bool lower_is_worse = fails_below(report.threshold_metric);
  using Worst = std::map<std::uint32_t, std::pair<double, bool>>;
  auto keep = [&](Worst& worst, const inspector::NumericRow& row) {
    for (DebugHandle h : row.debug_handles) {
      auto [it, inserted] = worst.try_emplace(h.value, row.threshold_value, row.exceeds);
      if (inserted) continue;
      const bool worse = lower_is_worse ? row.threshold_value < it->second.first
                                        : row.threshold_value > it->second.first;
      if (worse) it->second = {row.threshold_value, row.exceeds};
    }
  };
  Worst per_op;
  Worst per_call;
  for (const inspector::NumericRow& row : report.rows) {
    if (row.status != inspector::NumericStatus::kCompared) continue;
    if (!std::isfinite(row.threshold_value)) continue;
    switch (row.kind) {
      case inspector::NumericRowKind::kOperator:
      case inspector::NumericRowKind::kDelegateInternal: keep(per_op, row); break;
      case inspector::NumericRowKind::kDelegateCall: keep(per_call, row); break;
      case inspector::NumericRowKind::kProgramOutput: break;
    }
  }
  per_op.merge(per_call);  // keeps per_op's entry where both have one
  return per_op;
}

}  // namespace

Json graph_json(const etrecord::ETRecord& record, const std::vector<OpRow>& ops,
                const inspector::NumericReport* numeric, const inspector::QuantReport* quant) {
  std::string method;
  const aot::Graph* graph = shown_graph(record, &method);
  if (graph == nullptr) return Json();

  // Which delegate call took each handle.
  Json partitions = Json::array();
  std::map<std::uint32_t, std::size_t> partition_of;
  auto delegates = record.delegate_map.find(method);
  auto instruction_handles = record.debug_handle_map.find(method);
  if (delegates != record.delegate_map.end() &&
      instruction_handles != record.debug_handle_map.end()) {
    for (const auto& [instruction, entry] : delegates->second) {
      auto handles = instruction_handles->second.find(instruction);
      if (handles == instruction_handles->second.end()) continue;
      const std::size_t index = partitions.size();
      partitions.push_back({{"backend", entry.backend}, {"instruction", instruction.value}});
      for (DebugHandle h : handles->second) partition_of.try_emplace(h.value, index);
    }
  }

  const std::map<std::uint32_t, std::size_t> rows = row_by_handle(ops);
  std::map<std::uint32_t, std::pair<double, bool>> errors;
  if (numeric != nullptr) errors = error_by_handle(*numeric);
  std::map<std::uint32_t, double> sqnr;
  if (quant != nullptr) {
    for (const inspector::QuantRow& q : quant->rows) {
      const std::optional<double>& db = q.isolated_sqnr_db ? q.isolated_sqnr_db : q.sqnr_db;
      if (db && std::isfinite(*db)) sqnr.try_emplace(q.handle.value, *db);
    }
  }

  // An edge per (producer, consumer) pair, once, in node order.
  std::map<std::int32_t, std::size_t> producer;
  for (std::size_t i = 0; i < graph->nodes.size(); ++i) {
    for (aot::ValueId v : graph->nodes[i].outputs) producer.try_emplace(v.value, i);
  }
  Json nodes = Json::array();
  Json edges = Json::array();
  for (std::size_t i = 0; i < graph->nodes.size(); ++i) {
    const aot::Node& node = graph->nodes[i];
    const std::uint32_t h = node.debug_handle.value;
    const auto row = rows.find(h);
    const auto part = partition_of.find(h);
    const auto error = errors.find(h);
    const auto db = sqnr.find(h);
    nodes.push_back({{"name", node.name},
                     {"type", node.op},
                     {"handle", h},
                     {"row", row != rows.end() ? Json(row->second) : Json()},
                     {"partition", part != partition_of.end() ? Json(part->second) : Json()},
                     {"error", error != errors.end() ? metric_json(error->second.first) : Json()},
                     {"exceeds", error != errors.end() && error->second.second},
                     {"sqnr_db", db != sqnr.end() ? metric_json(db->second) : Json()}});
    std::vector<std::size_t> from;
    for (aot::ValueId v : node.inputs) {
      auto p = producer.find(v.value);
      if (p != producer.end() && p->second != i) from.push_back(p->second);
    }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (std::size_t f : from) edges.push_back(Json::array({f, i}));
  }
  Json out{{"method", method}, {"partitions", partitions}, {"nodes", nodes}, {"edges", edges}};
  if (numeric != nullptr) {
    out["error_metric"] = to_string(numeric->threshold_metric);
    out["error_fails_when"] = fails_below(numeric->threshold_metric) ? "below" : "above";
  }
  return out;
}

}  // namespace glassbox::report
