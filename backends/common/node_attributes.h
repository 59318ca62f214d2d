#pragma once
/// @file
/// Typed reads of graph node attributes (src/aot/ops.cc names), shared by
/// the backends' partitioners and lowerings. The graph is verified before
/// either runs, so a missing attribute means "use the op's default".

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::backends {

/// "padding" as top, left, bottom, right ([h, w] means both sides alike);
/// zeros when absent.
std::array<std::int64_t, 4> padding_tlbr(const aot::Node& node);

/// An int[2] attribute, or `fallback` when absent or malformed.
std::array<std::int64_t, 2> int_pair(const aot::Node& node, std::string_view name,
                                     std::array<std::int64_t, 2> fallback);

/// An int attribute, or `fallback`.
std::int64_t int_attr(const aot::Node& node, std::string_view name, std::int64_t fallback);

/// An int-list attribute, or empty when absent.
std::vector<std::int64_t> ints_attr(const aot::Node& node, std::string_view name);

/// A string attribute, or `fallback`.
std::string string_attr(const aot::Node& node, std::string_view name, std::string_view fallback);

/// A float attribute, or nullopt.
std::optional<double> float_attr(const aot::Node& node, std::string_view name);

/// The output range of an activation XNNPACK can fuse as output_min/max.
struct ActivationRange {
  float min;
  float max;
};

/// relu -> [0, inf); clamp -> [min, max] (absent bounds unbounded);
/// nullopt for any other op.
std::optional<ActivationRange> activation_range(const aot::Node& node);

/// Whether `node` is a conv1d, max_pool1d or avg_pool1d: the delegates run
/// it as its 2-D form over [N, C, 1, L] (a height of 1).
bool is_one_dimensional(const aot::Node& node);

/// A 1-D node's 2-D form: the 2-D op, its attributes with a height of 1
/// (kernel, stride and dilation 1; no padding on top or bottom).
aot::Node as_2d(const aot::Node& node);

/// `shape` [N, C, L] as [N, C, 1, L]; other shapes unchanged.
std::vector<std::int64_t> with_unit_height(const std::vector<std::int64_t>& shape);

/// Whether `id` names a constant with data in `graph`.
bool is_constant_with_data(const aot::Graph& graph, aot::ValueId id);

}  // namespace glassbox::backends
