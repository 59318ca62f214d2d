#include <algorithm>

#include "glassbox/inspector/views.h"

namespace glassbox::inspector {

std::vector<const EventGroup*> events_view(const Inspector& inspector) {
  std::vector<const EventGroup*> rows;
  rows.reserve(inspector.groups().size());
  for (const EventGroup& group : inspector.groups()) rows.push_back(&group);
  // Stable: equal means keep the order the groups first appeared in.
  std::stable_sort(rows.begin(), rows.end(), [](const EventGroup* a, const EventGroup* b) {
    return a->stats.mean > b->stats.mean;
  });
  return rows;
}

}  // namespace glassbox::inspector
