// Type inference of unique (ONNX Unique): four outputs, three of them
// sized by data (dynamic: the shapes given are the bounds the memory plan
// reserves, with every element or slice distinct).

#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {

StatusOr<std::vector<TensorType>> infer_unique(std::span<const TensorType> in,
                                               const AttributeMap& attrs) {
  const TensorType& x = in[0];
  if (x.dtype != ScalarType::kFloat && x.dtype != ScalarType::kLong) {
    return invalid("unique input 0 has dtype " + std::string(to_string(x.dtype)) +
                   ", expected FLOAT or LONG");
  }
  GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "sorted", true).status());
  // Y: x flattened, or x with the axis dim at most its length.
  Shape y;
  std::int64_t length = 0;
  if (attrs.contains("axis")) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, int_attr(attrs, "axis"));
    GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, axis_in(axis_attr, x.shape.size(), "unique axis"));
    y = x.shape;
    length = x.shape[axis];
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(length, checked_numel(x.shape));
    y = {length};
  }
  const TensorType per_unique{ScalarType::kLong, {length}, true};
  return std::vector<TensorType>{
      {x.dtype, y, true}, per_unique, {ScalarType::kLong, {length}, false}, per_unique};
}

}  // namespace glassbox::aot::ops_internal
