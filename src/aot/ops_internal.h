#pragma once
// Helpers shared by the type-inference files of the op set (ops.cc for the
// table and the original ops, ops_extended.cc for the ONNX-coverage ops).
// Errors are kInvalidArgument without a node name; callers add it.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot::ops_internal {

using Shape = std::vector<std::int64_t>;

Status invalid(std::string message);

// Attribute readers: a missing or mistyped attribute is an error, because
// the builder always writes every attribute and a parsed graph must too.
StatusOr<std::int64_t> int_attr(const AttributeMap& attrs, std::string_view name);
StatusOr<double> float_attr(const AttributeMap& attrs, std::string_view name);
StatusOr<Shape> ints_attr(const AttributeMap& attrs, std::string_view name);
StatusOr<std::string> string_attr(const AttributeMap& attrs, std::string_view name);
/// An optional int attribute, `fallback` when absent.
StatusOr<std::int64_t> int_attr_or(const AttributeMap& attrs, std::string_view name,
                                   std::int64_t fallback);
/// An optional 0/1 int attribute.
StatusOr<bool> flag_attr(const AttributeMap& attrs, std::string_view name, bool fallback);
/// An int[n] attribute (one entry per spatial dim) whose entries are all
/// >= `min`.
StatusOr<Shape> spatial_attr(const AttributeMap& attrs, std::string_view name, std::size_t n,
                             std::int64_t min);

/// Normalises a possibly negative axis into [0, rank).
StatusOr<std::size_t> axis_in(std::int64_t axis, std::size_t rank, std::string_view what);
/// NumPy broadcasting of two shapes.
StatusOr<Shape> broadcast(const Shape& a, const Shape& b);
/// Product of the dims, an error past 2^62 elements.
StatusOr<std::int64_t> checked_numel(const Shape& shape);

Status expect_rank(const TensorType& t, std::size_t rank, std::string_view what);
Status expect_shape(const TensorType& t, const Shape& shape, std::string_view what);

// Output size of a sliding window (conv, pool), rounding down, or up in
// ceil mode, where a last window starting in the end padding is dropped.
StatusOr<std::int64_t> window_out(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                  std::int64_t pad_begin, std::int64_t pad_end,
                                  std::int64_t dilation, bool ceil_mode);

// "padding" of n spatial dims: n entries (both sides alike, [h, w] in 2-D)
// or 2n (the begins then the ends: [top, left, bottom, right] in 2-D).
struct Padding {
  std::array<std::int64_t, 3> begin{0, 0, 0};
  std::array<std::int64_t, 3> end{0, 0, 0};
  bool per_side = false;  // Given with 2n entries.
};
StatusOr<Padding> padding_attr(const AttributeMap& attrs, std::size_t n = 2);

// The inference functions of ops_extended.cc, by family. Inputs' count and
// dtypes were checked against the op table before these run.
StatusOr<TensorType> infer_unary_extended(std::string_view op, std::span<const TensorType> in,
                                          const AttributeMap& attrs);
StatusOr<TensorType> infer_broadcast(std::string_view op, std::span<const TensorType> in,
                                     const AttributeMap& attrs, ScalarType out_dtype);
StatusOr<TensorType> infer_cast(std::span<const TensorType> in, const AttributeMap& attrs);
StatusOr<TensorType> infer_normalization(std::string_view op, std::span<const TensorType> in,
                                         const AttributeMap& attrs);
StatusOr<TensorType> infer_reduce(std::string_view op, std::span<const TensorType> in,
                                  const AttributeMap& attrs);
StatusOr<TensorType> infer_data_movement(std::string_view op, std::span<const TensorType> in,
                                         const AttributeMap& attrs);
/// quantize_linear and dequantize_linear (ops_quantized.cc); also checks
/// the dtypes, which no table rule covers.
StatusOr<TensorType> infer_quantization(std::string_view op, std::span<const TensorType> in,
                                        const AttributeMap& attrs);
/// conv_transpose2d and conv_transpose3d.
StatusOr<TensorType> infer_conv_transpose(std::string_view op, std::span<const TensorType> in,
                                          const AttributeMap& attrs);

/// unique (ops_unique.cc): y, indices, inverse_indices, counts (the three
/// sized by data dynamic, their shapes the bounds).
StatusOr<std::vector<TensorType>> infer_unique(std::span<const TensorType> in,
                                               const AttributeMap& attrs);

/// roi_align (ops_roi_align.cc): checks the three inputs' dtypes too.
StatusOr<TensorType> infer_roi_align(std::span<const TensorType> in, const AttributeMap& attrs);

/// non_zero, top_k, non_max_suppression (ops_dynamic.cc): output 0's dtype
/// after checking the inputs' dtypes, and every output's type (a bound,
/// dynamic when sized by data).
StatusOr<ScalarType> dynamic_op_dtype(std::string_view op, std::span<const TensorType> in);
StatusOr<std::vector<TensorType>> infer_dynamic(std::string_view op, std::span<const TensorType> in,
                                                const AttributeMap& attrs);
/// Whether `op`'s kernel reads the actual sizes of dynamic inputs.
bool takes_dynamic_inputs(std::string_view op);
/// A reshape of a dynamic value keeps a -1 in its shape (the dim that
/// follows the data), else its fixed shape would not hold at run time.
Status check_dynamic_reshape(const TensorType& x, const AttributeMap& attrs);

/// lstm, gru and rnn (ops_recurrent.cc): y, y_h (and y_c), after the
/// table's count and dtype checks.
StatusOr<std::vector<TensorType>> infer_recurrent(std::string_view op,
                                                  std::span<const TensorType> in,
                                                  const AttributeMap& attrs);

}  // namespace glassbox::aot::ops_internal
