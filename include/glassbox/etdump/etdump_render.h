#pragma once
/// @file
/// Renders a read ETDump for people and scripts: what `glassbox etdump
/// show` prints.
///
///   GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile file, etdump::load_etdump_file(path));
///   GLASSBOX_ASSIGN_OR_RETURN(std::string text, etdump::etdump_to_text(file, nullptr));

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"

namespace glassbox::etdump {

/// A debug-data file loaded for a whole rendering.
struct DebugData {
  std::string name;  ///< For error messages.
  /// The file's bytes; must outlive the rendering call.
  std::span<const std::uint8_t> bytes;
  /// The ETDump's name: a tensor whose metadata is damaged is its fault, and
  /// its errors name it ("" names `name` for every error).
  std::string etdump_name = {};
};

/// How tensors with debug data show their values (`etdump show --values`).
enum class TensorValues {
  /// A "summary" of bounded size: count, min, max, mean and the first
  /// values. Output stays proportional to the dump, however large the
  /// tensors its events point at.
  kSummary,
  /// Every value ("values"): output proportional to the dump's events
  /// times the size of their tensors.
  kAll,
};

/// The stable JSON form of `file`, specified in docs/etdump-json.md; keys
/// keep a fixed order. With `debug_data` (may be null), tensors carry their
/// "summary" or "values" as `values` says; a tensor whose data cannot be
/// decoded is an error naming the debug-data file and the event.
StatusOr<nlohmann::ordered_json> etdump_to_json(const ETDumpFile& file, const DebugData* debug_data,
                                                TensorValues values = TensorValues::kSummary);

/// Writes the document of etdump_to_json to `out`, indented by 2 spaces and
/// ended by a newline, one event at a time: memory stays that of the
/// largest event, not of the whole document (with every value of the debug
/// data, many times the data's size). Bytes that are not UTF-8 are replaced by U+FFFD.
/// Errors: those of etdump_to_json, found before anything is written (the
/// debug data is decoded in a first pass, one tensor at a time), and
/// kAccessFailed "cannot write the output" once `out` fails.
Status write_etdump_json(const ETDumpFile& file, const DebugData* debug_data, std::ostream& out,
                         TensorValues values = TensorValues::kSummary);

/// A readable listing, one line per event under a header per run. Not a
/// stable format: scripts use the JSON. With `debug_data` (may be null)
/// tensors show their first 8 values and how many there are, or every
/// value with TensorValues::kAll.
StatusOr<std::string> etdump_to_text(const ETDumpFile& file, const DebugData* debug_data,
                                     TensorValues values = TensorValues::kSummary);

}  // namespace glassbox::etdump
