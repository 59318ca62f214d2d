#include "src/cli/inspect_files.h"

#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::cli {

StatusOr<inspector::Inspector> inspect_file(const std::string& path,
                                            const etrecord::ETRecord* record,
                                            std::span<const std::uint8_t> debug_data,
                                            const inspector::InspectorOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(path));
  StatusOr<inspector::Inspector> result =
      inspector::Inspector::create(dump, record, debug_data, options);
  if (!result.ok()) return result.status().with_context(path);
  return result;
}

}  // namespace glassbox::cli
