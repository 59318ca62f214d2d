#pragma once
/// @file
/// The emitter: turns a lowered Graph into a Program (.gbx, schema/program.fbs)
/// plus the three per-method maps the ETRecord stores, as ExecuTorch's
/// emitter does (exir/emit/_emitter.py).
///
///   lowered Graph --plan_memory--> arena offsets (Tensor.arena_offset)
///        |
///        +--> one Instruction per node, in order (instruction id = index)
///        |      kernel node   -> KernelCall{op, attributes}
///        |      delegate node -> DelegateCall{delegate index}
///        v
///   EmitResult{program bytes, fingerprint,
///              debug_handle_map, delegate_map, instruction_id_to_num_outs_map}
///
/// The maps, per method name (always "forward" today):
/// - debug_handle_map: instruction id -> debug handles, sorted and unique.
///   A kernel call maps to its node's handle (no entry when it has none). A
///   delegate call maps to every source operator it replaced: taken from
///   `EmitOptions::edge_graph` when given (exact, like ExecuTorch's
///   `original_module`), otherwise the union of the handles in the
///   delegate's DebugHandleMap (a limitation: operators the backend left out
///   of its map, or every operator when it returned no map, are missing).
/// - delegate_map: delegate instruction id -> {backend, DebugHandleMap or
///   none}. Kernel calls have no entry.
/// - instruction_id_to_num_outs_map: every instruction id -> its number of
///   outputs (ExecuTorch lists delegate calls only; ours is a superset).
///
/// Fingerprint: lowercase hex (16 digits) of the 64-bit FNV-1a hash of the
/// program bytes with the 16 characters of the fingerprint string replaced
/// by zero bytes. The emitter builds once with 16 zero bytes in the field,
/// hashes, and writes the digits into the same 16 bytes, so the buffer
/// layout does not depend on the fingerprint and `fingerprint_of` can
/// recompute it from any program without rebuilding it.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// Program.version written by this emitter.
inline constexpr std::uint32_t kProgramVersion = 1;
/// The only method name emitted today.
inline constexpr std::string_view kForwardMethod = "forward";
/// Hex digits of a fingerprint.
inline constexpr std::size_t kFingerprintLength = 16;

/// One delegate call's entry of the delegate map.
struct DelegateMapEntry {
  std::string backend;  ///< The backend's name.
  /// As the backend returned it; nullopt when it returned none.
  std::optional<DebugHandleMap> delegate_map;
  friend bool operator==(const DelegateMapEntry&, const DelegateMapEntry&) = default;
};

/// Instruction id -> sorted unique debug handles.
using InstructionDebugHandles = std::map<InstructionId, std::vector<DebugHandle>>;
/// Delegate instruction id -> its backend and map.
using InstructionDelegateMap = std::map<InstructionId, DelegateMapEntry>;
/// Instruction id -> number of outputs.
using InstructionNumOuts = std::map<InstructionId, std::int32_t>;
/// Anything keyed by method name.
template <typename T>
using PerMethod = std::map<std::string, T, std::less<>>;

struct EmitOptions {
  /// The graph before lowering, to find every source operator a delegate
  /// call replaced (see the file comment). Not owned; read during the call
  /// only. Null: fall back to the delegates' maps.
  const Graph* edge_graph = nullptr;
};

struct EmitResult {
  /// The .gbx FlatBuffer (identifier "GBX0", not size-prefixed).
  std::vector<std::uint8_t> program;
  std::string fingerprint;
  PerMethod<InstructionDebugHandles> debug_handle_map;
  PerMethod<InstructionDelegateMap> delegate_map;
  PerMethod<InstructionNumOuts> instruction_id_to_num_outs_map;
};

/// Emits `lowered_graph` as method "forward". Errors: the graph fails
/// verify(); a constant without data or not FLOAT (kInvalidArgument); the
/// edge graph does not contain the operators a delegate call replaced
/// (kMismatch). The same graph always gives the same bytes.
StatusOr<EmitResult> emit(const Graph& lowered_graph, const EmitOptions& options = {});

/// Verifies `program` as a .gbx FlatBuffer and recomputes its fingerprint as
/// defined above (the stored one is not trusted). Errors: kCorruptData when
/// the buffer fails verification or its fingerprint field is not 16
/// characters long. The span is only read during the call.
StatusOr<std::string> fingerprint_of(std::span<const std::uint8_t> program);

}  // namespace glassbox::aot
