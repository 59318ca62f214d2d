#include "src/cli/inspect_files.h"

#include "glassbox/etdump/etdump_buffer.h"

namespace glassbox::cli {

StatusOr<inspector::Inspector> inspect_file(const std::string& path,
                                            const etrecord::ETRecord* record,
                                            std::span<const std::uint8_t> debug_data,
                                            const inspector::InspectorOptions& options) {
  // Kept as bytes: a million-event dump's profile events are never decoded.
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpBuffer dump, etdump::ETDumpBuffer::load(path));
  StatusOr<inspector::Inspector> result =
      inspector::Inspector::create(dump, record, debug_data, options);
  if (!result.ok()) return result.status().with_context(path);
  return result;
}

}  // namespace glassbox::cli
