#pragma once
// Shape arithmetic on values sized by data. An exporter computes sizes with
// ONNX ops (Shape, Gather, Concat, Slice, Unsqueeze, ReduceMin...); on a
// fixed-size model they fold at import. When the value measured is sized by
// data, Shape runs at execution (the IR's `shape` op) and each small int64
// value after it is kept here as entries: known, or a dim of a value (with
// its bound), or only bounded (min/max of such). A result with every entry
// known still folds (the static part of a dynamic shape); one with unknown
// entries runs at execution and its entries let Reshape leave that dim free
// and ConstantOfShape of a value's shape become `full_like`.

#include <map>
#include <optional>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::frontends::onnx {

class ImportContext;

/// One int64 element of a shape-like value.
struct ShapeEntry {
  std::int64_t value = 0;  ///< The element when known; else an upper bound of it.
  bool known = true;
  aot::ValueId of;  ///< Unknown: the value whose dim it is (unset when only bounded).
  std::size_t dim = 0;
};

/// A small int64 value (rank 0 or 1 in practice) as entries, row-major.
struct ShapeValue {
  std::vector<std::int64_t> shape;
  std::vector<ShapeEntry> entries;
  bool all_known() const;
};

class ShapeValues {
 public:
  /// Before the current node's converter: when it computes on a shape value
  /// sized by data, its result. Every entry known: bound as a host tensor,
  /// and the node is done (true). Shape of a value sized by data: the
  /// `shape` op is emitted here (true). Otherwise false, and the entries
  /// wait for after_node.
  StatusOr<bool> before_node(ImportContext& c);
  /// After the converter: the entries computed before, for its output.
  void after_node(ImportContext& c);

  /// The entries of graph value `id`, or null.
  const ShapeValue* of(aot::ValueId id) const;

 private:
  std::optional<ShapeValue> input(ImportContext& c, std::size_t i) const;
  StatusOr<std::optional<ShapeValue>> compute(ImportContext& c) const;

  std::map<aot::ValueId, ShapeValue> values_;
  std::optional<ShapeValue> pending_;
};

/// Reshape's target given as a shape value: its known entries, and the
/// bound of an entry that is one of `data`'s varying dims (the emitted
/// reshape leaves that dim free). An error for another unknown entry.
StatusOr<std::vector<std::int64_t>> reshape_target_of(const ShapeValue& target, aot::ValueId data,
                                                      const std::vector<bool>* data_varying);

/// ConstantOfShape's shape given as a shape value: the value whose shape
/// it is, entry by entry (its varying dims unknown, the others known), if
/// there is one.
std::optional<aot::ValueId> shape_source(const ShapeValue& shape, const ImportContext& c);

}  // namespace glassbox::frontends::onnx
