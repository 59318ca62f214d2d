#pragma once
/// @file
/// The XNNPACK delegate's AOT half: lowers a partition into XNNPACK
/// operators (processed bytes in xnnpack_format.h) and a debug handle map
/// tying each operator's identifier to every source node it absorbed.
///
///   XnnpackBackend backend;
///   exporter::Recipe recipe;
///   recipe.partitioners.push_back(make_xnnpack_partitioner(backend));
///   recipe.compile_specs.push_back(CompileSpec::from_string("identifiers", "string"));
///   export_model(graph, recipe);
///
/// Transformations the map describes:
/// - batch_norm after conv2d is folded into the convolution's weights;
/// - an add of a constant bias over the last axis after linear or matmul
///   (by a constant matrix) becomes the fully connected operator's bias;
/// - hardsigmoid becomes two operators (multiply by alpha, add beta with
///   the range [0, 1]) under ONE identifier mapped to it;
/// - a relu / clamp after conv2d (or its batch_norm), conv_transpose2d,
///   linear, matmul (or their bias add), add, sub, mul or div becomes the operator's
///   output_min / output_max;
/// so "conv2d_3 -> batch_norm_3 -> relu_3" is ONE convolution_nhwc_f32
/// whose identifier maps to all three handles, and "matmul_2 -> add_5 ->
/// relu_5" ONE fully_connected_nc_f32 mapped to all three. Layout conversions
/// (xnnpack_format.h) are operators of their own, mapped to the source
/// nodes of the operator that needed them (the consumer, or for a delegate
/// output the producer).
///
/// Compile specs:
/// - "identifiers": "generated" (default) or "int": 0, 1, 2, ...;
///   "string": the absorbed node names joined by '+'
///   ("conv2d_3+batch_norm_3+relu_3"), and "<value>.to_nhwc" /
///   "<value>.to_nchw" for layout conversions.
/// - "threads" (a positive integer) and "profiling" ("realtime" or
///   "posttime") are for the runtime half; preprocess checks their syntax
///   so a typo fails at export, not on the device.

#include <span>
#include <string>

#include "backends/common/compile_specs.h"
#include "backends/xnnpack/xnnpack_format.h"
#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/partitioner.h"

namespace glassbox::backends::xnnpack {

class XnnpackBackend final : public aot::BackendDetails {
 public:
  std::string name() const override { return kXnnpackBackendName; }

  /// Errors: a node the partitioner would not take (kNotSupported, naming
  /// it), a batch_norm without its convolution in the same partition
  /// (kNotSupported), a bad compile spec (kInvalidArgument).
  StatusOr<aot::PreprocessResult> preprocess(
      const aot::Graph& subgraph, std::span<const aot::CompileSpec> compile_specs) override;
};

/// A partitioner for `backend` (which must outlive it) with the rules of
/// xnnpack_partitioner.h.
aot::Partitioner make_xnnpack_partitioner(XnnpackBackend& backend);

/// Registers an XnnpackBackend under kXnnpackBackendName.
Status register_xnnpack_backend(aot::BackendRegistry& registry);

}  // namespace glassbox::backends::xnnpack
