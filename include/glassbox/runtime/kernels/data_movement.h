#pragma once
/// @file
/// Element-type generic data-movement kernels for ONNX operators: Pad,
/// Expand, Tile, Slice, Gather, GatherElements, ScatterND, DepthToSpace,
/// SpaceToDepth; plus float32 Resize (NCHW, nearest and bilinear).
///
/// The generic kernels copy elements of `element_size` bytes (1, 2, 4 or 8),
/// so one kernel serves float32, int64 and bool (uint8 0/1) tensors; they
/// never look at the values except where said (ScatterND reductions).
///
/// Common rules, as for every kernel in this directory:
/// - tensors are row-major and contiguous, of rank 0..kMaxDims;
/// - pointers are borrowed for the call only; an output never overlaps an
///   input (ScatterND allows `y == data`, see there);
/// - a null pointer is accepted only for a tensor with no elements;
/// - bad shapes, attributes, element sizes or indices give
///   Error::kInvalidArgument and nothing is read or written out of bounds;
///   shapes whose element count times element_size overflows int64 are
///   rejected. Index-driven kernels (gather, gather_elements, scatter_nd)
///   check every index before writing anything.
///
///   Result<Dims> out = pad_output_shape(x_shape, begin, end);   // prepare
///   Error e = pad(x, x_shape, sizeof(float), begin, end,        // run
///                 PadMode::kReflect, nullptr, y);

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

// ---------------------------------------------------------------- Pad

/// ONNX Pad modes (opset 2..18 without `wrap`).
enum class PadMode : std::uint8_t {
  kConstant,  ///< Padded elements take `constant_value`.
  kReflect,   ///< Mirror without repeating the edge (numpy 'reflect').
  kEdge,      ///< Repeat the edge element (numpy 'edge').
};

/// Output shape of Pad: out[d] = x[d] + pads_begin[d] + pads_end[d]. One pad
/// per dim on each side (ONNX's `pads` split into halves, with `axes`
/// already expanded by the caller). A negative pad crops that many elements
/// from its side. kInvalidArgument if the spans' sizes differ from the rank,
/// the crops of a dim add up to more than its size, or a size overflows.
Result<Dims> pad_output_shape(Span<const std::int64_t> x_shape, Span<const std::int64_t> pads_begin,
                              Span<const std::int64_t> pads_end);

/// ONNX Pad. Per dim, negative pads first crop x (ONNX's rule for negative
/// pads), then positive pads extend the cropped extent L:
///   y[o_0..o_r] = x[m_0(o_0)..m_r(o_r)] where, with j = o - max(begin, 0),
///   m(o) = crop_begin + j                           for 0 <= j < L,
///   kConstant: the element is `constant_value`      otherwise,
///   kEdge:     m(o) = crop_begin + clamp(j, 0, L-1),
///   kReflect:  m(o) = crop_begin + (j < 0 ? -j : 2*(L-1) - j).
/// Dims are independent, so corners mix modes as numpy.pad does.
/// `constant_value` points to one element (element_size bytes) and is used
/// only by kConstant; null means all-zero bytes (0.0f, 0, false).
/// `y` holds pad_output_shape() elements.
/// kInvalidArgument, besides pad_output_shape's cases: kEdge with a
/// positive pad on a dim whose cropped extent is 0; kReflect with a
/// positive pad >= the cropped extent (numpy, and so the ONNX reference
/// implementation, would reflect repeatedly; this kernel does not).
Error pad(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
          Span<const std::int64_t> pads_begin, Span<const std::int64_t> pads_end, PadMode mode,
          const void* constant_value, void* y);

// ------------------------------------------------------ Expand, Tile

/// ONNX Expand with y_shape already computed (broadcast_shapes() of x's
/// shape and the `shape` input): right-align x_shape with y_shape; every x
/// dim must equal its y dim or be 1 (then it is repeated), and x may have
/// fewer dims (missing leading dims act as 1).
///   y[i_0..i_r] = x[i_k mod x_shape[k] over x's dims].
/// kInvalidArgument if x has more dims than y or a dim does not broadcast.
Error expand(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
             Span<const std::int64_t> y_shape, void* y);

/// Output shape of Tile: out[d] = x[d] * repeats[d]. kInvalidArgument if
/// repeats.size() != rank, a repeat is negative, or a size overflows.
Result<Dims> tile_output_shape(Span<const std::int64_t> x_shape, Span<const std::int64_t> repeats);

/// ONNX Tile: y[i_0..i_r] = x[i_0 mod x[0], .., i_r mod x[r]], y of
/// tile_output_shape(). A rank-0 x (with empty repeats) is copied.
Error tile(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
           Span<const std::int64_t> repeats, void* y);

// ------------------------------------------------------------- Slice

/// ONNX Slice's clamping for one axis of size `dim`, at prepare time:
/// - start and end below 0 count from the end (+= dim); INT64_MIN/MAX are
///   ordinary values here, so they end up clamped like any out-of-range
///   value;
/// - step > 0: start and end clamp to [0, dim];
///   step < 0: start clamps to [0, dim-1] and end to [-1, dim-1];
/// - the count of taken elements is ceil((end - start) / step), or 0 if
///   that is negative.
/// Writes the clamped start to `*clamped_start` and the count to `*count`
/// (for dim == 0 both are 0). kInvalidArgument for dim < 0, step == 0 or a
/// null out-pointer. The values feed slice()'s `starts` and `y_shape`.
Error slice_bounds(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step,
                   std::int64_t* clamped_start, std::int64_t* count);

/// A strided slice with bounds already resolved (see slice_bounds()):
///   y[i_0..i_r] = x[starts[0] + i_0*steps[0], .., starts[r] + i_r*steps[r]]
/// for 0 <= i_d < y_shape[d]. Steps may be negative, never 0. All spans have
/// x's rank (axes the ONNX node does not slice have start 0, step 1 and
/// y_shape[d] = x_shape[d]). kInvalidArgument if any index the formula
/// reaches lies outside x (only dims with y_shape[d] > 0 are checked; an
/// empty y reads nothing).
Error slice(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
            Span<const std::int64_t> starts, Span<const std::int64_t> steps,
            Span<const std::int64_t> y_shape, void* y);

// ----------------------------------------------------------- Gathers

/// Output shape of Gather: data[:axis] + indices + data[axis+1:].
/// `axis` may be negative (counts from the end). kInvalidArgument if data
/// has rank 0, axis is out of range, or the result's rank exceeds kMaxDims.
Result<Dims> gather_output_shape(Span<const std::int64_t> data_shape,
                                 Span<const std::int64_t> indices_shape, std::int64_t axis);

/// ONNX Gather:
///   y[a.., i.., b..] = data[a.., idx(indices[i..]), b..]
/// with a over data[:axis], i over indices' shape, b over data[axis+1:],
/// and idx(v) = v < 0 ? v + data_shape[axis] : v. `indices` holds int64
/// (int32 indices are widened by the caller). An index outside
/// [-data_shape[axis], data_shape[axis]-1] gives kInvalidArgument before y
/// is touched. Each (a, i) copies one contiguous data[axis+1:] slab.
Error gather(const void* data, Span<const std::int64_t> data_shape, std::size_t element_size,
             const std::int64_t* indices, Span<const std::int64_t> indices_shape, std::int64_t axis,
             void* y);

/// ONNX GatherElements; y has indices' shape:
///   y[i_0..i_r] = data[i_0.., idx(indices[i_0..i_r]) at dim axis, ..i_r]
/// with idx as for gather(). Same rank (>= 1) for data and indices;
/// indices_shape[d] <= data_shape[d] for d != axis (onnxruntime's rule; the
/// spec leaves it open). `axis` may be negative. Out-of-range indices give
/// kInvalidArgument before y is touched.
Error gather_elements(const void* data, Span<const std::int64_t> data_shape,
                      std::size_t element_size, const std::int64_t* indices,
                      Span<const std::int64_t> indices_shape, std::int64_t axis, void* y);

// --------------------------------------------------------- ScatterND

/// ONNX ScatterND reductions (opset 16). Min/max (opset 18) are not here.
enum class ScatterReduction : std::uint8_t { kNone, kAdd, kMul };

/// ONNX ScatterND. With q = rank(indices) >= 1, r = rank(data) >= 1 and
/// k = indices_shape[q-1] (0 <= k <= r), updates_shape must equal
/// indices_shape[:q-1] + data_shape[k:]. First y = data (skipped when
/// `y == data`, which is allowed; any other overlap is not), then for each
/// index tuple t over indices_shape[:q-1], in row-major order:
///   y[indices[t][0], .., indices[t][k-1], ...] (op)= updates[t, ...]
/// where (op) is assignment for kNone (a later duplicate tuple wins; ONNX
/// leaves duplicates undefined), + for kAdd and * for kMul. Index values
/// may be negative (count from the end of their dim); any outside
/// [-dim, dim-1] gives kInvalidArgument before y is touched.
/// Reductions read the values as float: they need `is_float` and
/// element_size 4, else kInvalidArgument.
Error scatter_nd(const void* data, Span<const std::int64_t> data_shape, std::size_t element_size,
                 const std::int64_t* indices, Span<const std::int64_t> indices_shape,
                 const void* updates, Span<const std::int64_t> updates_shape,
                 ScatterReduction reduction, bool is_float, void* y);

// ---------------------------------------- DepthToSpace, SpaceToDepth

/// [N, C / b^2, H*b, W*b]. kInvalidArgument unless blocksize b >= 1,
/// dims >= 0, C divisible by b^2, and the sizes fit int64.
Result<Shape4> depth_to_space_output_shape(Shape4 x_shape, std::int64_t blocksize);

/// ONNX DepthToSpace on NCHW, with C' = C / b^2:
///   y[n][c][h*b + bh][w*b + bw] = x[n][ic][h][w],
///   DCR (crd_mode false, the ONNX default): ic = (bh*b + bw)*C' + c,
///   CRD (crd_mode true):                    ic = c*b*b + bh*b + bw.
Error depth_to_space(const void* x, Shape4 x_shape, std::size_t element_size,
                     std::int64_t blocksize, bool crd_mode, void* y);

/// [N, C*b^2, H/b, W/b]. kInvalidArgument unless b >= 1, dims >= 0, H and
/// W divisible by b, and the sizes fit int64.
Result<Shape4> space_to_depth_output_shape(Shape4 x_shape, std::int64_t blocksize);

/// ONNX SpaceToDepth on NCHW (the inverse of DCR DepthToSpace):
///   y[n][(bh*b + bw)*C + c][h][w] = x[n][c][h*b + bh][w*b + bw].
Error space_to_depth(const void* x, Shape4 x_shape, std::size_t element_size,
                     std::int64_t blocksize, void* y);

// ------------------------------------------------------------ Resize

/// ONNX Resize `mode` (cubic is not supported).
enum class ResizeMode : std::uint8_t { kNearest, kLinear };

/// ONNX `coordinate_transformation_mode`: how output coordinate o maps to
/// the input coordinate x along an axis with scale s, input length L and
/// output length M:
enum class CoordinateTransform : std::uint8_t {
  kHalfPixel,         ///< x = (o + 0.5) / s - 0.5
  kPytorchHalfPixel,  ///< x = M > 1 ? (o + 0.5) / s - 0.5 : 0
  kAlignCorners,      ///< x = M > 1 ? o * (L - 1) / (M - 1) : 0
  kAsymmetric,        ///< x = o / s
  kTfHalfPixelForNn,  ///< x = (o + 0.5) / s
};

/// ONNX `nearest_mode`: which input index a fractional x picks.
enum class NearestRounding : std::uint8_t {
  kRoundPreferFloor,  ///< nearest; x.5 goes down
  kRoundPreferCeil,   ///< nearest; x.5 goes up
  kFloor,
  kCeil,
};

/// ONNX Resize (opset 11+) of a float32 NCHW tensor over H and W; N and C
/// must be equal in x_shape and y_shape (their scales are 1). The scale of
/// an axis is `scales_hw[0]` (H) and `scales_hw[1]` (W) when `scales_hw` is
/// non-null (the node's `scales` input; y_shape must then be the caller's
/// floor(L * s)), else y/x of that axis. Per output pixel, x_h and x_w come
/// from `transform` (computed in double), then:
/// - kNearest: each coordinate rounds per `rounding` and clamps to
///   [0, L-1]; y copies that input pixel. PyTorch's default export is
///   kAsymmetric + kFloor.
/// - kLinear: bilinear, with each coordinate clamped to [0, L-1] first
///   (equal to ONNX's edge padding of the neighbours):
///     y = (1-ly)*((1-lx)*x[h0][w0] + lx*x[h0][w1])
///         + ly*((1-lx)*x[h1][w0] + lx*x[h1][w1]),
///   h0 = floor(x_h), h1 = min(h0 + 1, H-1), ly = x_h - h0 (w likewise), in
///   float. F.interpolate(mode='bilinear', align_corners=False) exports as
///   kPytorchHalfPixel (older exporters: kHalfPixel), align_corners=True as
///   kAlignCorners. No antialias, no exclude_outside, no ROI.
/// kInvalidArgument for negative dims, N/C mismatch, an empty input axis
/// with a non-empty output, non-positive or non-finite scales, or null
/// pointers for non-empty tensors.
Error resize(const float* x, Shape4 x_shape, Shape4 y_shape, ResizeMode mode,
             CoordinateTransform transform, NearestRounding rounding, const float* scales_hw,
             float* y);

}  // namespace glassbox::runtime::kernels
