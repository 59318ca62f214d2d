#pragma once
/// @file
/// ExecuTorch's three export entry points, each with `generate_etrecord`:
///
///   to_edge(graph, {.generate_etrecord = true})      -> EdgeProgramManager
///     .to_backend(partitioner, specs)               -> EdgeProgramManager
///     .to_executorch()                              -> ExecutorchProgramManager
///   to_edge_transform_and_lower(graph, partitioners, options) -> EdgeProgramManager
///   export_model(graph, recipe)                     -> ExecutorchProgramManager
///
///   ExecutorchProgramManager program = ...;
///   program.save("model.gbx");
///   StatusOr<etrecord::ETRecord> record = program.get_etrecord();
///   if (record.ok()) record->save("model.etrecord");
///
/// The edge graph the ETRecord needs is a value copy taken in to_edge(),
/// before any lowering: later steps return new graphs and never touch it,
/// so ExecuTorch's "deepcopy the edge program first" pitfall cannot happen.
///
/// The export layer sits above aot (whose passes it chains) and etrecord
/// (the record it produces). Its namespace is `exporter` because `export` is
/// a C++ keyword.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/compile_spec.h"
#include "glassbox/aot/emitter.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/partitioner.h"
#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::exporter {

struct EdgeOptions {
  /// Keep what get_etrecord() needs.
  bool generate_etrecord = false;
};

class ExecutorchProgramManager;

/// A graph on its way to a program, plus the edge-graph snapshot.
class EdgeProgramManager {
 public:
  /// The current graph (lowered if to_backend was called).
  const aot::Graph& graph() const { return graph_; }
  /// The graph as it was in to_edge(), before any lowering.
  const aot::Graph& edge_graph() const { return edge_graph_; }
  bool generate_etrecord() const { return generate_etrecord_; }

  /// `pass` applied to the current graph, never to the edge-graph snapshot
  /// (ExecuTorch's EdgeProgramManager.transform). `pass` must keep the
  /// graph valid and give the nodes it changes or adds their source
  /// operator's debug handle. Only used during the call.
  EdgeProgramManager transform(const std::function<void(aot::Graph*)>& pass) const;

  /// Lowers what `partitioner` finds (aot::to_backend). `partitioner` and
  /// `compile_specs` are only used during the call.
  StatusOr<EdgeProgramManager> to_backend(
      const aot::Partitioner& partitioner,
      std::span<const aot::CompileSpec> compile_specs = {}) const;

  /// Emits the current graph; the maps cover delegates exactly because the
  /// edge graph is passed to the emitter.
  StatusOr<ExecutorchProgramManager> to_executorch() const;

 private:
  friend StatusOr<EdgeProgramManager> to_edge(aot::Graph graph, EdgeOptions options);
  EdgeProgramManager(aot::Graph graph, bool generate_etrecord);

  aot::Graph graph_;
  aot::Graph edge_graph_;
  bool generate_etrecord_ = false;
};

/// An emitted program with its maps and, if asked for, its ETRecord.
class ExecutorchProgramManager {
 public:
  /// The .gbx bytes.
  const std::vector<std::uint8_t>& buffer() const { return emitted_.program; }
  const std::string& fingerprint() const { return emitted_.fingerprint; }
  const aot::PerMethod<aot::InstructionDebugHandles>& debug_handle_map() const {
    return emitted_.debug_handle_map;
  }
  const aot::PerMethod<aot::InstructionDelegateMap>& delegate_map() const {
    return emitted_.delegate_map;
  }
  const aot::PerMethod<aot::InstructionNumOuts>& instruction_id_to_num_outs_map() const {
    return emitted_.instruction_id_to_num_outs_map;
  }
  const aot::EmitResult& emit_result() const { return emitted_; }

  /// The ETRecord; kInvalidState "ETRecord was not generated; pass
  /// generate_etrecord=true" when generation was off.
  StatusOr<etrecord::ETRecord> get_etrecord() const;

  /// Writes buffer() to `path` (kAccessFailed when it cannot).
  Status save(const std::string& path) const;

 private:
  friend class EdgeProgramManager;
  ExecutorchProgramManager(aot::EmitResult emitted, std::optional<etrecord::ETRecord> record)
      : emitted_(std::move(emitted)), etrecord_(std::move(record)) {}

  aot::EmitResult emitted_;
  std::optional<etrecord::ETRecord> etrecord_;
};

/// Starts the pipeline: verifies `graph` (its errors) and snapshots it as the
/// edge graph. Give it debug handles first (GraphBuilder::build does).
StatusOr<EdgeProgramManager> to_edge(aot::Graph graph, EdgeOptions options = {});

struct LowerOptions {
  std::vector<aot::CompileSpec> compile_specs = {};  ///< For every partitioner.
  bool generate_etrecord = false;
};

/// to_edge, the exact rewrites every program gets (a convolution whose
/// off-centre taps read only padding becomes a 1x1 one:
/// aot/padding_only_conv.h), then to_backend with each partitioner in turn.
/// Partitioners are only used during the call.
StatusOr<EdgeProgramManager> to_edge_transform_and_lower(
    aot::Graph graph, std::span<const aot::Partitioner> partitioners,
    const LowerOptions& options = {});

/// How export_model lowers. Partitioners are backend-specific (they know
/// which ops their backend takes), so a recipe names them rather than a
/// backend name; none means "portable": every node stays a kernel call.
struct Recipe {
  std::vector<aot::Partitioner> partitioners = {};
  std::vector<aot::CompileSpec> compile_specs = {};
  bool generate_etrecord = false;
};

/// to_edge_transform_and_lower, then to_executorch, in one call.
StatusOr<ExecutorchProgramManager> export_model(aot::Graph graph, const Recipe& recipe);

/// The delegate calls of the forward method whose debug handle map has the
/// identifier `identifier` (an int in decimal, or a string), in instruction
/// order. A deliberate fault (a partitioner's perturb) is asked for by
/// identifier; when no delegate has it the fault would silently hit
/// nothing, so that is kInvalidArgument "no delegate operator has this
/// identifier" (the caller adds which, and what asked for it).
StatusOr<std::vector<InstructionId>> delegate_calls_with_identifier(
    const ExecutorchProgramManager& program, std::string_view identifier);

}  // namespace glassbox::exporter
