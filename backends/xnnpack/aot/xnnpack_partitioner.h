#pragma once
/// @file
/// Which graph nodes the XNNPACK backend takes. Everything else stays on
/// the portable kernels.
///
/// | op                      | taken when                                          |
/// |-------------------------|-----------------------------------------------------|
/// | conv2d                  | weight (and bias) constant; covers depthwise/grouped |
/// | batch_norm              | it directly follows a taken conv2d that has no other user, constants given (folded in) |
/// | linear                  | weight (and bias) constant                          |
/// | matmul                  | b is a constant 2-D matrix (becomes fully connected) |
/// | max_pool2d              | not ceil_mode                                       |
/// | avg_pool2d              | not ceil_mode; padding only with count_include_pad=0 (XNNPACK excludes padding) |
/// | global_avg_pool2d       | always                                              |
/// | add sub mul div         | both operands computed (not constants), rank <= 6   |
/// | relu clamp hardswish sigmoid | input computed                                 |
/// | softmax                 | over the last axis                                  |
/// | flatten reshape         | input computed                                      |
/// | concat                  | every input computed, rank <= 6                     |
///
/// All values must be float32 with no zero-sized dimension. tan, sin, cos,
/// hardsigmoid and transpose are never taken (XNNPACK 2022's operator API
/// has no such operators).

#include <set>
#include <string>

#include "glassbox/aot/graph.h"

namespace glassbox::backends::xnnpack {

/// The ops the table names (the per-node rules are in xnnpack_supports).
std::set<std::string, std::less<>> xnnpack_supported_ops();

/// Whether the backend takes `node` of `graph` (the table's rules).
bool xnnpack_supports(const aot::Graph& graph, const aot::Node& node);

}  // namespace glassbox::backends::xnnpack
