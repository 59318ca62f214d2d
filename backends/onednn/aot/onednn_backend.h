#pragma once
/// @file
/// The oneDNN delegate's AOT half: lowers a partition into oneDNN
/// primitives (processed bytes in onednn_format.h) and a debug handle map
/// tying each primitive's identifier to every source node it absorbed.
///
///   OnednnBackend backend;
///   exporter::Recipe recipe;
///   recipe.partitioners.push_back(make_onednn_partitioner(backend));
///   export_model(graph, recipe);
///
/// Fusions the map describes (one primitive, one identifier, mapped to
/// every node it absorbed):
/// - batch_norm after conv2d is folded into the convolution's weights;
/// - an add of a computed tensor of the same shape after a conv2d (or its
///   batch_norm) becomes oneDNN's sum post-op, when that tensor is
///   already computed where the convolution runs;
/// - an add of a constant bias over the last axis after linear or matmul
///   becomes the matmul's bias;
/// - x * hardsigmoid(x) with alpha 1/6, beta 0.5 is one hardswish step;
/// - chains of elementwise activations (relu, clamp, hardswish, gelu, ...)
///   after a convolution, matmul, binary or eltwise become its eltwise
///   post-ops; hardsigmoid is two of them (linear, clip to [0, 1]);
/// so "conv2d_3 -> batch_norm_3 -> add_3 -> relu_3" is ONE convolution.
/// Memory-format changes are kReorder operators of their own (see
/// onednn_format.h), mapped to the source nodes of the operator that
/// needed them (the reader, or for a delegate output the producer).
///
/// Compile specs: "identifiers" ("generated"/"int": 0, 1, 2, ...;
/// "string": the absorbed node names joined by '+', and
/// "<value>.reorder" / "<value>.to_plain" for the reorders); "threads",
/// "profiling" and "perturb" are for the runtime half (syntax checked
/// here so a typo fails at export).

#include <span>
#include <string>

#include "backends/common/compile_specs.h"
#include "backends/onednn/onednn_format.h"
#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/partitioner.h"

namespace glassbox::backends::onednn {

class OnednnBackend final : public aot::BackendDetails {
 public:
  std::string name() const override { return kOnednnBackendName; }

  /// Errors: a node the partitioner would not take (kNotSupported, naming
  /// it), a bad compile spec (kInvalidArgument).
  StatusOr<aot::PreprocessResult> preprocess(
      const aot::Graph& subgraph, std::span<const aot::CompileSpec> compile_specs) override;
};

/// A partitioner for `backend` (which must outlive it) with the rules of
/// onednn_partitioner.h.
aot::Partitioner make_onednn_partitioner(OnednnBackend& backend);

/// Registers an OnednnBackend under kOnednnBackendName.
Status register_onednn_backend(aot::BackendRegistry& registry);

}  // namespace glassbox::backends::onednn
