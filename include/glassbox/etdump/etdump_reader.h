#pragma once
/// @file
/// The verifying ETDump reader (host side). It reads files written by
/// Glassbox's ETDumpGen and by ExecuTorch's, size-prefixed (what both
/// runtimes write) or not (what ExecuTorch's Python serializer writes).
///
///   GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile file,
///                             etdump::load_etdump_file("run.etdp"));
///   for (const etdump::RunData& run : file.runs) ...
///
/// Nothing is trusted before it is verified: the size prefix against the
/// input's length, the file identifier "ED00", the FlatBuffers structure
/// (FlatBuffers' Verifier), the schema version, and the rules the schema
/// cannot express (one member per Event, allocator ids in range, a Value's
/// `val` naming the member that is set). Any failure gives one error whose
/// message names the source and the problem, for example
/// "run.etdp: event 3 of run 1 has no member set" (run and event indices are
/// 0-based, as in the JSON output), and no partial result.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"

namespace glassbox::etdump {

/// Verifies and decodes an ETDump held in memory. `bytes` is only read
/// during the call (it may be unaligned; the reader then copies it).
/// `source_name` (a path, or "<memory>") prefixes every error message.
///
/// Errors: kCorruptData (truncated, wrong identifier, failed verification,
/// broken schema rule), kVersionMismatch (a version other than 0).
StatusOr<ETDumpFile> parse_etdump(std::span<const std::uint8_t> bytes,
                                  std::string_view source_name);

/// Reads the file at `path` and parses it as `parse_etdump` does. Errors
/// additionally include kAccessFailed when the file cannot be read.
StatusOr<ETDumpFile> load_etdump_file(const std::string& path);

/// Decodes the elements of `tensor` from `debug_data`, the debug-data buffer
/// or file its `offset` points into, in row-major index order. Elements are
/// stored little-endian (the device's native order on every platform we
/// run). Strides, when the tensor has them, are in elements: element
/// (i0, i1, ...) sits at `offset + element_size * sum(i_k * strides[k])`;
/// without strides the data is contiguous.
///
/// Supported dtypes: BYTE, CHAR, SHORT, INT, LONG, HALF, BFLOAT16, FLOAT,
/// DOUBLE, BOOL, UINT16, UINT32, UINT64. 64-bit integers beyond 2^53 lose
/// precision in the double result.
///
/// A tensor of no elements gives no values, whatever its offset (the
/// writer gives one offset -1: it has no bytes).
///
/// Errors: kNotFound when the tensor has no data (offset -1); kNotSupported
/// for an unknown or unsupported dtype; kCorruptData when the metadata
/// itself is damaged (a negative offset or size, sizes and strides that
/// disagree or overflow, strides reaching before the offset): the ETDump's
/// fault; kMismatch when well-formed metadata puts the data outside
/// `debug_data` (a truncated debug-data file, or another run's).
/// `debug_data` is only read during the call.
StatusOr<std::vector<double>> read_tensor_values(const Tensor& tensor,
                                                 std::span<const std::uint8_t> debug_data);

}  // namespace glassbox::etdump
