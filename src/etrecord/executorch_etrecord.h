#pragma once
// ExecuTorch's ETRecord archive (marked by an "ETRECORD_V0" entry, written
// by its devtools' generate_etrecord) read into our ETRecord value, entry by
// entry (docs/executorch-interop.md):
//
//   edge_dialect_exported_program[/<method>]  -> edge_graphs (executorch_graph.h)
//   debug_handle_map, delegate_map            -> the maps (executorch_maps.h)
//   instruction_id_to_num_outs_map            -> as ours (optional)
//   reference_outputs, representative_inputs  -> Python pickles: a note, not read
//   everything else (exported_program, *_state_dict, *_constants,
//   *_example_inputs, export_graph_id, et_dialect_graph_module/...,
//   program_buffer, extra modules such as aten_dialect_output/forward)
//                                             -> skipped (other modules: a note)

#include <string_view>

#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord::internal {

// The record of `entries` (which hold the ExecuTorch marker), validated.
// Errors are kCorruptData starting with `source`, naming the entry at fault.
StatusOr<ETRecord> read_executorch_etrecord(const ZipEntries& entries, std::string_view source);

}  // namespace glassbox::etrecord::internal
