#pragma once
// Which dims of a value sized by data vary at run time. The IR marks a value
// dynamic as a whole (its shape is a bound); the importer also needs to
// know which of its dims follow the data, to keep that dim free (-1) when
// it reshapes the value and to refuse a slice counted from the end of it.
// A dynamic op's outputs vary along the dims its kind makes (NonZero's
// count, TopK's axis, the boxes NonMaxSuppression keeps, Unique's
// entries); an op fed by varying values is probed: its shape rule runs
// again with those dims shrunk, and the dims of its outputs that change
// vary. A rule that fails at the shrunk sizes is an op that cannot follow
// the data, refused at import rather than at run time.

#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"
#include "glassbox/core/status.h"

namespace glassbox::frontends::onnx {

class VaryingDims {
 public:
  /// One flag per dim of `id`; null for a value that does not vary.
  const std::vector<bool>* of(aot::ValueId id) const;

  /// Records the outputs `outs` (of types `out_types`) of a node `op` with
  /// inputs `ins` (of types `in_types`) and `attrs`. An error when an
  /// input varies and the op's shape rule fails at shrunk sizes.
  Status record(std::string_view op, const aot::AttributeMap& attrs,
                std::span<const aot::ValueId> ins, std::span<const aot::TensorType> in_types,
                std::span<const aot::ValueId> outs, std::span<const aot::TensorType> out_types);

  /// A reshape of `x` (bound shape `from`) to the fixed `to`: `to` with -1
  /// at the dim that follows x's varying dim (where the sizes before it
  /// multiply to the same count), so the runtime sizes it; `to` itself when
  /// x does not vary or `to` has a -1. An error when x varies in more than
  /// one dim or no dim of `to` lines up with the varying one.
  StatusOr<std::vector<std::int64_t>> free_reshape_dim(aot::ValueId x,
                                                       const std::vector<std::int64_t>& from,
                                                       std::vector<std::int64_t> to) const;

 private:
  std::map<aot::ValueId, std::vector<bool>> dims_;
};

}  // namespace glassbox::frontends::onnx
