#pragma once
/// @file
/// Rows for data engines (DuckDB, Spark, pandas): one row per profile event
/// occurrence, or per ops-view row per execution, of one dump, with the
/// dump's path and tags. The columns are a versioned schema, documented in
/// docs/export-schema.md; a change to them bumps kExportSchemaVersion.
///
///   std::string text = export_header(ExportRows::kOps, ExportFormat::kCsv);
///   append_export_rows(insp, {"runs/a.etdp", {{"device", "pixel"}}},
///                      ExportRows::kOps, ExportFormat::kCsv, text);

#include <map>
#include <string>
#include <string_view>

#include "glassbox/core/status.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// 3: rows end with the events' delegate counters ("counters").
inline constexpr int kExportSchemaVersion = 3;

enum class ExportRows : std::uint8_t {
  kEvents,  ///< Every profile event of the runs used, in file order.
  kOps,     ///< Every ops-view row of every execution used, by run.
};
enum class ExportFormat : std::uint8_t {
  kNdjson,  ///< One JSON object per line; lists are arrays, tags an object.
  kCsv,     ///< RFC 4180; lists joined with ";", tags as "k=v;k=v".
};

/// "events"/"ops" and "ndjson"/"csv"; kInvalidArgument otherwise.
StatusOr<ExportRows> parse_export_rows(std::string_view text);
StatusOr<ExportFormat> parse_export_format(std::string_view text);

/// Where the rows come from.
struct ExportSource {
  std::string dump;                         ///< The dump's path as given.
  std::map<std::string, std::string> tags;  ///< Its tags.
};

/// The header line (csv), or "" (ndjson has none).
std::string export_header(ExportRows rows, ExportFormat format);

/// Appends the rows of `inspector` (one dump's) to `out`.
void append_export_rows(const Inspector& inspector, const ExportSource& source, ExportRows rows,
                        ExportFormat format, std::string& out);

}  // namespace glassbox::inspector
