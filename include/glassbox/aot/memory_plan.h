#pragma once
/// @file
/// Activation memory planning: one arena per method, every non-constant
/// value (graph inputs and node outputs) at a fixed byte offset in it.
///
///   step:      0        1        2        end
///   x (in)   [=====][======][=====][====]     graph inputs live to the end
///   a = n0(x)[=====][======]                    a dies after node 1
///   b = n1(a)        [======][======]           b is read by node 2
///   y = n2(b)                 [=====][====]     graph outputs live to the end
///
/// Node k runs at step k. A value is live from its producer's step (graph
/// inputs: step 0) through the step of its last reader; graph inputs and
/// outputs stay live through the end (step N for N nodes), so inputs set
/// once survive any number of executions. Two values may share bytes only
/// if their live ranges do not intersect, so a node's output never aliases
/// its own inputs. Placement is greedy first fit in production order: each
/// value takes the lowest 64-byte-aligned offset that is free for its whole
/// lifetime.

#include <cstdint>
#include <map>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// Every offset is a multiple of this; it also suits any element type.
inline constexpr std::int64_t kArenaAlignment = 64;

/// Where one value lives and when.
struct PlannedValue {
  std::int64_t offset = 0;      ///< Byte offset in the arena.
  std::int64_t size_bytes = 0;  ///< numel * element size (unpadded).
  std::int64_t first_step = 0;  ///< Producer's step (0 for graph inputs).
  std::int64_t last_step = 0;   ///< Last reader's step, N for graph outputs.
  friend bool operator==(const PlannedValue&, const PlannedValue&) = default;
};

struct MemoryPlan {
  /// One entry per non-constant value of the graph.
  std::map<ValueId, PlannedValue> values;
  /// Arena size: the end of the highest placed value, rounded up to
  /// kArenaAlignment.
  std::int64_t arena_bytes = 0;
  friend bool operator==(const MemoryPlan&, const MemoryPlan&) = default;
};

/// Plans `graph` (verified first; its errors are returned as they are).
/// A value with an unknown element size is kInvalidArgument.
StatusOr<MemoryPlan> plan_memory(const Graph& graph);

/// Checks `plan` against `graph` independently of plan_memory's own
/// bookkeeping: every non-constant value is placed exactly once, with its
/// size, at an aligned offset inside the arena, and no two values that are
/// live at the same step (recomputed here from the graph) share a byte.
/// Errors are kInternal (a planner bug) naming the values involved.
Status check_memory_plan(const Graph& graph, const MemoryPlan& plan);

}  // namespace glassbox::aot
