#include "src/cli/fleet_reader.h"

namespace glassbox::cli {

StatusOr<Tags> tags_of(const std::string& path, const PathTagPattern* pattern) {
  Tags tags;
  if (pattern != nullptr) {
    std::optional<Tags> from_path = pattern->match(path);
    if (!from_path.has_value()) {
      return Status(Error::kInvalidArgument, path + ": does not match --tag-from-path");
    }
    tags = std::move(*from_path);
  }
  GLASSBOX_ASSIGN_OR_RETURN(Tags sidecar, read_sidecar_tags(path));
  tags.merge(sidecar);  // A name the path gives keeps the path's value.
  return tags;
}

std::string summary_line(const std::string& command, const FleetSummary& summary) {
  return "glassbox " + command + ": used " + std::to_string(summary.used) + " dumps, skipped " +
         std::to_string(summary.skipped) + "\n";
}

}  // namespace glassbox::cli
