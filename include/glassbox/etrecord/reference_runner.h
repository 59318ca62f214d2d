#pragma once
/// @file
/// The numeric reference: what every source operator outputs on
/// given inputs, computed ahead of time on the portable kernels, for the
/// Inspector to compare a delegated run against.
///
///   aot::Graph edge = ...;   // with constant data, debug handles assigned
///   StatusOr<std::vector<ReferenceTensor>> inputs =
///       seeded_reference_inputs(edge, /*seed=*/7);
///   Status s = attach_reference(edge, *inputs, &record);  // record: ETRecord
///
/// How. The edge graph is emitted without any partitioner (one portable
/// kernel call per source op, so instruction i's debug handle is exactly one
/// source op), loaded with runtime::Method and run once under ETDumpGen at
/// DebugLevel::kIntermediateOutputs into a BufferDataSink; each logged
/// instruction output is read back and keyed by its instruction's debug
/// handle. The reference thus goes through the same runtime, kernels and
/// capture path as the run it is compared with, minus the delegates; no
/// second interpreter exists that could drift from the kernels.
///
/// Values are stored as float32 (ReferenceTensor); outputs of other dtypes
/// are converted.

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::etrecord {

/// The outputs of one reference run.
struct ReferenceRun {
  /// The method's outputs, in output order.
  std::vector<ReferenceTensor> outputs;
  /// Per source op (debug handle): its outputs, in output order.
  std::map<DebugHandle, std::vector<ReferenceTensor>> op_outputs;
};

/// Runs `edge_graph` (which must still hold its constant data) on
/// `inputs`, one per graph input with the input's shape, on the portable
/// kernels. Both are only read during the call.
///
/// Errors: kInvalidArgument (wrong number of inputs, a shape mismatch, a
/// non-float input, constants without data), the emitter's errors, and
/// kInternal with the runtime's message when the program does not load or
/// run.
StatusOr<ReferenceRun> run_reference(const aot::Graph& edge_graph,
                                     std::span<const ReferenceTensor> inputs);

/// One float32 tensor per input of `graph`, uniform in [-1, 1) from
/// std::mt19937(seed), input after input: the values `glassbox run --seed
/// S` feeds a program built by the same compiler and standard library
/// (std::uniform_real_distribution is implementation-defined, so store the
/// inputs, as attach_reference does, rather than regenerate them
/// elsewhere). kInvalidArgument for a non-float input.
StatusOr<std::vector<ReferenceTensor>> seeded_reference_inputs(const aot::Graph& graph,
                                                               std::uint32_t seed);

/// run_reference, then stores `inputs`, the outputs and the per-op outputs
/// in `record` (replacing any it had) and validates it. `record` must
/// describe `edge_graph` (same handles). On error `record` is unchanged.
Status attach_reference(const aot::Graph& edge_graph, std::vector<ReferenceTensor> inputs,
                        ETRecord* record);

}  // namespace glassbox::etrecord
