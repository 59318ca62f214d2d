#pragma once
/// @file
/// ETRecord: the debug artifact written ahead of time, beside the program.
/// It holds what the Inspector needs to map run-time events back to source
/// operators: the edge graph (before lowering) and the emitter's maps.
///
///   edge Graph ----------.
///   EmitResult (maps) ---+--> ETRecord --save--> demo.etrecord (zip)
///                                     <--load--
///
///   Graph g = ...;                       // debug handles assigned
///   Graph lowered = to_backend(g, partitioner).value();
///   EmitResult program = emit(lowered, {.edge_graph = &g}).value();
///   Status s = generate_etrecord("m.etrecord", g, program);
///   StatusOr<ETRecord> record = ETRecord::load("m.etrecord");
///
/// File format, version 1: a zip archive (`unzip -l` lists it) of
///
/// | entry                                   | content                                   |
/// |-----------------------------------------|-------------------------------------------|
/// | glassbox_etrecord                       | the version, "1" (the marker)             |
/// | fingerprint                             | the program's 16 hex digits               |
/// | methods/<method>/edge_graph.json        | graph_to_json; constant data only for quantization
/// scales and zero points | | debug_handle_map.json                   | {"forward": {"<instr>":
/// [handles]}}       | | delegate_map.json                       | {"forward": {"<instr>": {"name":
/// "<backend>", "key_type": "int" or "string", "delegate_map": {"<id>": [handles]} or null}}} | |
/// instruction_id_to_num_outs_map.json     | {"forward": {"<instr>": n}}               | |
/// reference/{inputs,outputs}/<i>.bin      | raw little-endian float32 elements        | |
/// reference/{inputs,outputs}/<i>.json     | {"dtype": "FLOAT", "sizes": [...]}        | |
/// reference/ops/<handle>/<k>.{bin,json}   | output k of source op <handle>, as above  |
/// reference/float_ops/<handle>/<k>.*      | the same op's float reference (int8 models) |
/// reference/isolated_ops/<handle>/<k>.*   | the op alone on float inputs, its output quantized |
///
/// The three maps use ExecuTorch's JSON shapes; JSON keys are strings, so
/// each delegate entry also says its identifiers' "key_type" ("int" keys are
/// canonical decimal) and a reader never guesses. Instruction keys are
/// always ints. A debug_handle_map value is always a list, even for one
/// handle. No "ETRECORD_V0" entry is written: ExecuTorch's parser would
/// accept the archive and then fail on our entries, which is worse than
/// refusing it outright.
///
/// ExecuTorch's own ETRecords (a zip with an "ETRECORD_V0" entry, written by
/// its `generate_etrecord`) are read too, into the same value with `source`
/// kExecuTorch: the edge program's nodes (op, debug handle, module
/// hierarchy, source line) and the three maps. They carry no fingerprint and
/// no reference tensors Glassbox can read (theirs are Python pickles);
/// `notes` says what was skipped. docs/executorch-interop.md lists every
/// entry and how it is read.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/emitter.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::etrecord {

/// The version this code writes and the only one it reads.
inline constexpr int kETRecordVersion = 1;
/// The name of the marker entry that identifies our archives.
inline constexpr std::string_view kMarkerEntry = "glassbox_etrecord";
/// The (empty) entry that identifies ExecuTorch's archives.
inline constexpr std::string_view kExecuTorchMarkerEntry = "ETRECORD_V0";
/// `ETRecord::version` of a record read from ExecuTorch's format (its
/// marker's "V0").
inline constexpr int kExecuTorchETRecordVersion = 0;

/// Who wrote an ETRecord.
enum class RecordSource : std::uint8_t {
  kGlassbox,    ///< Our archive (glassbox_etrecord marker), with a fingerprint.
  kExecuTorch,  ///< ExecuTorch's archive (ETRECORD_V0), read only.
};
/// "glassbox" or "executorch".
std::string_view to_string(RecordSource source);

/// A float32 tensor kept for numeric debugging (reference inputs/outputs).
struct ReferenceTensor {
  std::vector<std::int64_t> sizes;
  std::vector<float> data;  ///< Row-major; as many elements as `sizes` says.
  friend bool operator==(const ReferenceTensor&, const ReferenceTensor&) = default;
};

/// The contents of one .etrecord file. A plain value type.
struct ETRecord {
  int version = kETRecordVersion;
  RecordSource source = RecordSource::kGlassbox;
  /// The program's fingerprint (aot::EmitResult::fingerprint); empty for
  /// ExecuTorch's records, which have none.
  std::string fingerprint;
  /// Method name -> the graph before lowering, without constant data.
  aot::PerMethod<aot::Graph> edge_graphs;
  aot::PerMethod<aot::InstructionDebugHandles> debug_handle_map;
  aot::PerMethod<aot::InstructionDelegateMap> delegate_map;
  aot::PerMethod<aot::InstructionNumOuts> instruction_id_to_num_outs_map;
  /// Optional, for numeric comparison: the inputs of one run of "forward"
  /// and the outputs it should give.
  std::vector<ReferenceTensor> reference_inputs;
  std::vector<ReferenceTensor> reference_outputs;
  /// Optional, for numeric debugging: per source operator of the
  /// "forward" edge graph (keyed by its debug handle), every output it gave
  /// on `reference_inputs`, in output order. Computed ahead of time by
  /// running the edge graph on the portable kernels (reference_runner.h).
  std::map<DebugHandle, std::vector<ReferenceTensor>> reference_op_outputs;
  /// Optional, for quantized (QDQ) models, keyed like reference_op_outputs
  /// (quant_reference.h): what each source operator outputs in float (the
  /// float twin, or the graph with its activations' quantization removed),
  /// and what it outputs alone, fed the float reference's inputs, with only
  /// its own output quantized ("isolated"). reference_op_outputs is then
  /// the simulated int8 run (the QDQ graph on the portable kernels).
  std::map<DebugHandle, std::vector<ReferenceTensor>> float_op_outputs;
  std::map<DebugHandle, std::vector<ReferenceTensor>> isolated_op_outputs;
  /// What loading skipped or could only partly read, one sentence each
  /// (e.g. ExecuTorch's pickled reference outputs). Always empty for
  /// records of our own format.
  std::vector<std::string> notes;

  /// Checks the record is consistent. For ExecuTorch's (source kExecuTorch):
  /// version 0, no fingerprint, no reference tensors, maps only for methods
  /// with an edge graph, sorted unique handle lists and valid delegate maps;
  /// their handles need not be edge-graph nodes and their
  /// instruction_id_to_num_outs_map need not list every instruction, as
  /// ExecuTorch guarantees neither. For ours: known version, a 16-digit lowercase
  /// hex fingerprint, at least one edge graph, maps only for methods with an
  /// edge graph, every mapped instruction id listed in
  /// instruction_id_to_num_outs_map (which lists every instruction), every
  /// debug handle one of the edge graph's, valid delegate maps, reference
  /// tensors whose data matches their sizes, reference op outputs keyed by
  /// handles of the "forward" edge graph, each with at least one tensor, and
  /// only alongside reference inputs (float and isolated op outputs alike).
  /// Errors: kInvalidArgument.
  Status validate() const;

  /// The archive's bytes (validated first). Same record, same bytes.
  /// Records read from ExecuTorch's format are not written
  /// (kInvalidArgument): they have no fingerprint to bind them to a program.
  StatusOr<std::vector<std::uint8_t>> to_bytes() const;
  /// Writes the archive to `path` (kAccessFailed when it cannot).
  Status save(const std::string& path) const;

  /// Reads and checks the archive at `path`, ours or ExecuTorch's (told
  /// apart by their marker entries). Every error names the file and, when
  /// one entry is at fault, the entry: kAccessFailed (unreadable),
  /// kCorruptData (not a zip, no marker, missing entry, malformed JSON or
  /// shape, inconsistent maps), kVersionMismatch (another version).
  static StatusOr<ETRecord> load(const std::string& path);
  /// As load(), from bytes in memory (only read during the call);
  /// `source_name` names them in messages.
  static StatusOr<ETRecord> load_from_memory(std::span<const std::uint8_t> bytes,
                                             std::string_view source_name);

  friend bool operator==(const ETRecord&, const ETRecord&) = default;
};

/// The record for `program`, emitted from a lowering of `edge_graph` (the
/// graph before lowering, as method "forward"); constant data is dropped
/// from the stored graph. Errors: validate()'s, e.g. a map naming a debug
/// handle the edge graph does not have (wrong graph passed).
StatusOr<ETRecord> make_etrecord(const aot::Graph& edge_graph, const aot::EmitResult& program);

/// make_etrecord, then save to `path`: ExecuTorch's standalone entry point.
/// Unlike ExecuTorch's, no deep copy is needed: `edge_graph` is read only.
Status generate_etrecord(const std::string& path, const aot::Graph& edge_graph,
                         const aot::EmitResult& program);

}  // namespace glassbox::etrecord
