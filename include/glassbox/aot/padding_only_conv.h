#pragma once
/// @file
/// An exact rewrite for dilated convolutions that read mostly padding.
///
/// A dilated 3x3 convolution over a small map (DeepLabV3's ASPP: dilation
/// 24 and 36 over 14x14, padding = dilation) reads real pixels only with its
/// centre tap: every other tap lands in the zero padding at every output
/// position, so it adds exact zeros. Such a convolution is a 1x1
/// convolution of its centre weights (same stride and groups, padding
/// reduced by the centre's reach), computed with 1/9 of the work.
///
///   conv2d(x, w[O,C/g,3,3], b, dilation 24, padding 24)   14x14 -> 14x14
///   ==  conv2d(x, w[:, :, 1:2, 1:2], b, dilation 1, padding 0)
///
/// The check is exact, tap by tap: a tap other than the centre must read
/// out of bounds at every output position (a dilation-12 convolution over
/// 14x14, whose outer taps reach rows 0-1 and 12-13, is left alone). The
/// rewritten node keeps its name, debug handle, module hierarchy and source
/// location, so the Inspector still names the user's operator; only its
/// weight input (a new constant) and attributes change.

#include "glassbox/aot/graph.h"

namespace glassbox::aot {

/// Rewrites, in place, every conv1d/conv2d/conv3d of `graph` (not null)
/// whose off-centre taps all read only zero padding, as described above.
/// Only convolutions with odd kernel sizes and a float constant weight whose
/// data is present qualify, and only when the centre tap's reach fits in the
/// padding on both sides (else the 1x1 form would need negative padding).
/// A replaced weight constant that nothing reads any more is dropped.
/// Returns the number of convolutions rewritten.
int rewrite_padding_only_convs(Graph* graph);

}  // namespace glassbox::aot
