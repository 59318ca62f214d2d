#pragma once
/// @file
/// The demo delegate's AOT half, after ExecuTorch's
/// backend_with_delegate_mapping_demo.py: it runs conv2d, relu and tan, and
/// shows the two transformations a debug handle map must describe.
///
/// - Fusion: conv2d followed by relu (the relu being the conv output's only
///   user) becomes one conv_relu op whose identifier maps to both handles.
/// - Decomposition: tan becomes sin, cos and div, three ops with their own
///   identifiers, each mapped to the tan's handle.
///
/// For conv1 -> relu1 -> conv2 -> relu2 -> tan (handles 1..5), generated
/// identifiers give {0: [1, 2], 1: [3, 4], 2: [5], 3: [5], 4: [5]}.
///
/// Compile spec "identifiers" (backends/common/compile_specs.h) picks how
/// identifiers are made; its value is one of:
/// - "generated" (the default): DelegateMappingBuilder numbers them 0, 1, ...
/// - "int": manual ints 100, 101, ... (kFirstManualIntIdentifier)
/// - "string": manual names, "conv_relu_1", "conv_2", "relu_1" (numbered per
///   kind from 1) and "<tan node>.sin" / ".cos" / ".div", e.g. "tan.sin".
/// The processed bytes are a DemoProgram (demo_format.h).

#include <cstdint>
#include <span>
#include <string>

#include "backends/common/compile_specs.h"
#include "backends/demo/demo_format.h"
#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/partitioner.h"

namespace glassbox::backends::demo {

inline constexpr std::int64_t kFirstManualIntIdentifier = 100;

class DemoBackend final : public aot::BackendDetails {
 public:
  std::string name() const override { return kDemoBackendName; }

  /// Errors: an op other than conv2d / relu / tan (kNotSupported); a conv2d
  /// whose weight or bias is not a constant with data, or that reads a
  /// constant as its input (kNotSupported); a bad "identifiers" spec
  /// (kInvalidArgument).
  StatusOr<aot::PreprocessResult> preprocess(
      const aot::Graph& subgraph, std::span<const aot::CompileSpec> compile_specs) override;
};

/// A partitioner for `backend` (which must outlive it): conv2d (with
/// constant weight and bias), relu and tan.
aot::Partitioner make_demo_partitioner(DemoBackend& backend);

/// Registers a DemoBackend under kDemoBackendName.
Status register_demo_backend(aot::BackendRegistry& registry);

}  // namespace glassbox::backends::demo
