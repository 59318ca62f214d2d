#include "src/cli/inspect_files.h"

#include "backends/common/backend_plugin.h"
#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::cli {

StatusOr<etdump::ETDumpFile> load_expanded_etdump(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(path));
  const StatusOr<etdump::RawTraceExpansion> expanded =
      etdump::expand_raw_traces(&dump, backends::raw_trace_decoders());
  if (!expanded.ok()) return expanded.status().with_context(path);
  return dump;
}

StatusOr<inspector::Inspector> inspect_file(const std::string& path,
                                            const etrecord::ETRecord* record,
                                            std::span<const std::uint8_t> debug_data,
                                            const inspector::InspectorOptions& options) {
  // Kept as bytes: a million-event dump's profile events are never decoded.
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpBuffer dump, etdump::ETDumpBuffer::load(path));
  StatusOr<inspector::Inspector> result = Status(Error::kInternal, "not inspected");
  if (dump.raw_traces() == 0) {
    result = inspector::Inspector::create(dump, record, debug_data, options);
  } else {
    // Raw traces stand for a delegate's per-op events: decoded into them
    // before grouping, every view sees them as if logged directly. Such a
    // dump has one event an execution where direct logging has one an op,
    // so decoding it whole costs little.
    GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile file, load_expanded_etdump(path));
    result = inspector::Inspector::create(file, record, debug_data, options);
  }
  if (!result.ok()) return result.status().with_context(path);
  return result;
}

}  // namespace glassbox::cli
