// The types view: the ops view regrouped by source op type. Built from the
// ops rows, so a DELEGATE_CALL and its inner events never both count; a
// fused row's time is split evenly between its members, since the dump
// says nothing about which of them took more.

#include <algorithm>
#include <map>
#include <set>

#include "glassbox/inspector/views.h"

namespace glassbox::inspector {
namespace {

// The backend of the runtime's own kernels, as the lowering calls it; and
// of a delegate whose name only the ETRecord could give.
constexpr char kPortable[] = "portable";
constexpr char kUnknownDelegate[] = "unknown delegate";

struct Totals {
  TypeRow row;
  std::set<std::string> backends;
};

}  // namespace

std::vector<TypeRow> types_view(const Inspector& inspector) {
  return types_view(ops_view(inspector));
}

std::vector<TypeRow> types_view(const std::vector<OpRow>& ops) {
  double sum = 0;
  for (const OpRow& r : ops) sum += r.stats.mean;

  std::map<std::string, Totals> by_type;
  auto add = [&](const std::string& type, bool mapped, double share, bool shared,
                 const OpRow& r) -> Totals& {
    Totals& t = by_type[(mapped ? "1" : "0") + type];  // a name may be both
    t.row.type = type;
    t.row.mapped = mapped;
    t.row.total += share * r.stats.total;
    t.row.mean += share * r.stats.mean;
    if (shared) t.row.shared_mean += share * r.stats.mean;
    // Without an ETRecord a delegate's own events are known as such only
    // by their identifiers.
    const bool delegated = r.delegated || !r.delegate_debug_identifiers.empty();
    t.backends.insert(!r.backend.empty() ? r.backend : delegated ? kUnknownDelegate : kPortable);
    return t;
  };
  for (const OpRow& r : ops) {
    if (r.op_types.empty() || r.opaque_delegate_call || !r.layout_conversion.empty()) {
      const std::string type = r.opaque_delegate_call         ? "DELEGATE_CALL"
                               : !r.layout_conversion.empty() ? r.layout_conversion
                                                              : r.label;
      ++add(type, false, 1.0, false, r).row.count;
      continue;
    }
    const double share = 1.0 / static_cast<double>(r.op_types.size());
    for (std::size_t i = 0; i < r.op_types.size(); ++i) {
      // Ops rows never share an op (the ops view merges rows that would),
      // so counting members counts source ops.
      ++add(r.op_types[i], true, share, r.op_types.size() > 1, r).row.count;
    }
  }

  std::vector<TypeRow> rows;
  for (auto& [key, t] : by_type) {
    t.row.percent = sum > 0 ? 100 * t.row.mean / sum : 0;
    t.row.backends.assign(t.backends.begin(), t.backends.end());
    rows.push_back(std::move(t.row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const TypeRow& a, const TypeRow& b) {
    if (a.total != b.total) return a.total > b.total;
    return a.type < b.type;
  });
  return rows;
}

}  // namespace glassbox::inspector
