#include "src/cli/inspect_fleet.h"

#include <map>
#include <utility>

#include "glassbox/inspector/aggregate.h"

namespace glassbox::cli {

StatusOr<std::string> inspect_fleet(const FleetOptions& fleet, const std::string& group_by,
                                    const etrecord::ETRecord* record,
                                    inspector::InspectorOptions options, inspector::View view,
                                    inspector::Format format, std::ostream& err) {
  // Only a timeline needs every occurrence; the views need the samples.
  options.keep_occurrences = format == inspector::Format::kChrome;
  std::map<std::string, inspector::InspectorAggregator> aggregators;
  const std::function<StatusOr<inspector::PreparedDump>(const DumpSource&,
                                                        const etdump::ETDumpFile&)>
      prepare = [&](const DumpSource&, const etdump::ETDumpFile& dump) {
        return inspector::InspectorAggregator::prepare(dump, record, options);
      };
  const std::function<Status(const DumpSource&, inspector::PreparedDump&&)> merge =
      [&](const DumpSource& source, inspector::PreparedDump&& prepared) {
        std::string value;
        if (!group_by.empty()) {
          const auto tag = source.tags.find(group_by);
          if (tag != source.tags.end()) value = tag->second;
        }
        auto it = aggregators.find(value);
        if (it == aggregators.end()) {
          it = aggregators.emplace(value, inspector::InspectorAggregator(record, options)).first;
        }
        it->second.merge(std::move(prepared));
        return Status();
      };
  GLASSBOX_ASSIGN_OR_RETURN(const FleetSummary summary, read_fleet<inspector::PreparedDump>(
                                                            fleet, "inspect", err, prepare, merge));
  err << summary_line("inspect", summary);

  if (group_by.empty()) {
    return inspector::render(std::move(aggregators.begin()->second).build(), view, format);
  }
  std::vector<inspector::TagGroup> groups;
  for (auto& [value, aggregator] : aggregators) {
    groups.push_back({value, std::move(aggregator).build()});
  }
  return inspector::render_grouped(groups, group_by, view, format);
}

}  // namespace glassbox::cli
