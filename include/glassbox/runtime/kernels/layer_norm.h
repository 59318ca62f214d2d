#pragma once
/// @file
/// Normalisations whose statistics come from the input itself: ONNX
/// LayerNormalization, GroupNormalization and InstanceNormalization, on
/// row-major contiguous float32 tensors.
///
/// Every function computes, per normalised slice of m elements,
///   mean = sum(x) / m,   var = sum((x - mean)^2) / m   (population variance)
///   y    = (x - mean) / sqrt(var + epsilon) * scale + bias
/// with the mean and variance computed in two passes accumulated in double,
/// and the normalisation in float against the mean split into two floats
/// (hi + lo), so each output is within ~6 float ulp of
/// |(x - mean) / sqrt(var + epsilon) * scale| + |bias| even for m in the
/// thousands and |mean| large against the spread. The ONNX default
/// stash_type = 1 (float32 statistics) asks for no more.
/// A NaN or inf in a slice makes that slice NaN, and so does a constant
/// slice with epsilon = 0 (0 / 0, as in the ONNX reference); with
/// epsilon = 0, a slice whose standard deviation is below FLT_MIN (~1e-38)
/// overflows 1 / sqrt(var) to inf, as float32 statistics would.
///
/// `y` may equal `x` (in place); any other overlap is not allowed. The
/// pointers are borrowed for the call only. Nothing allocates.

#include <cstdint>

#include "glassbox/core/error.h"

namespace glassbox::runtime::kernels {

/// ONNX LayerNormalization (opset 17): x viewed as [rows, cols] with
/// rows = prod(shape[:axis]) and cols = prod(shape[axis:]); each row is
/// normalised over its cols elements, then y[r, c] = norm[r, c] * scale[c]
/// + bias[c]. `scale` holds cols floats (a Scale that merely broadcasts to
/// the normalised shape must be expanded by the caller); `bias` holds cols
/// floats or is null (no bias). The optional Mean and InvStdDev outputs are
/// not produced.
/// kInvalidArgument for negative rows or cols, rows * cols overflowing
/// int64, epsilon negative or NaN, or a null x, y or scale when the tensor
/// is non-empty.
Error layer_norm(const float* x, std::int64_t rows, std::int64_t cols, const float* scale,
                 const float* bias, float epsilon, float* y);

/// ONNX GroupNormalization on x of shape [n, channels, spatial...] with
/// `spatial` the product of the trailing dims: the channels split into
/// `groups` consecutive groups of channels / groups channels, and each
/// (batch, group) slice of channels / groups * spatial elements is
/// normalised on its own. The affine step depends on `scale_size`, the
/// element count of `scale` and `bias`:
///   scale_size == groups    opset 18: channel c uses scale[c / (channels /
///                           groups)] and bias[same]
///   scale_size == channels  opset 21: channel c uses scale[c] and bias[c]
/// (when groups == channels the two agree). `bias` null means no bias.
/// kInvalidArgument for negative n, channels or spatial, groups < 1,
/// channels % groups != 0, scale_size neither groups nor channels, the
/// element count overflowing int64, epsilon negative or NaN, or a null x,
/// y or scale when the tensor is non-empty.
Error group_norm(const float* x, std::int64_t n, std::int64_t channels, std::int64_t spatial,
                 std::int64_t groups, const float* scale, const float* bias,
                 std::int64_t scale_size, float epsilon, float* y);

/// ONNX InstanceNormalization: group_norm with one group per channel, so
/// each (batch, channel) plane of `spatial` elements is normalised and
/// then y = norm * scale[c] + bias[c]. `scale` and `bias` hold `channels`
/// floats (`bias` null means no bias). kInvalidArgument as for group_norm;
/// channels == 0 is a valid empty tensor here.
Error instance_norm(const float* x, std::int64_t n, std::int64_t channels, std::int64_t spatial,
                    const float* scale, const float* bias, float epsilon, float* y);

}  // namespace glassbox::runtime::kernels
