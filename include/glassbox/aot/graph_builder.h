#pragma once
/// @file
/// `GraphBuilder`: builds a `Graph` with a fluent, PyTorch-like API.
///
///   GraphBuilder b;
///   ValueId x = b.input("x", ScalarType::kFloat, {1, 3, 8, 8});
///   ValueId w = b.constant("conv.weight", {4, 3, 3, 3}, weights);
///   {
///     auto scope = b.module("conv", "Conv2d");
///     x = b.conv2d(x, w, std::nullopt, {.padding = {1, 1}});
///   }
///   b.output(b.relu(x));
///   StatusOr<Graph> graph = b.build();
///
/// Each op method records the caller's source location and the module
/// scopes open at the time on the node it creates. Op methods never fail on
/// the spot: the first error (a shape mismatch, an unknown value) is kept,
/// later calls return `kInvalidValueId`, and `build()` reports it.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"
#include "glassbox/core/call_site.h"

namespace glassbox::aot {

/// conv2d attributes (PyTorch's defaults).
struct Conv2dOptions {
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
};

/// max_pool2d / avg_pool2d attributes. `stride` defaults to `kernel`.
struct Pool2dOptions {
  std::array<std::int64_t, 2> kernel{2, 2};
  std::optional<std::array<std::int64_t, 2>> stride = std::nullopt;
  std::array<std::int64_t, 2> padding{0, 0};
  /// Round output sizes up (written as "ceil_mode" only when true).
  bool ceil_mode = false;
  /// avg_pool2d only: count padding in the divisor (written as
  /// "count_include_pad" only when false).
  bool count_include_pad = true;
};

class GraphBuilder {
 public:
  /// While alive, nodes created by the builder are inside this module.
  /// Scopes nest; destroy them in reverse order of creation (RAII does).
  class [[nodiscard]] ModuleScope {
   public:
    ModuleScope(const ModuleScope&) = delete;
    ModuleScope& operator=(const ModuleScope&) = delete;
    ~ModuleScope();

   private:
    friend class GraphBuilder;
    explicit ModuleScope(GraphBuilder* builder) : builder_(builder) {}
    GraphBuilder* builder_;
  };

  using Loc = CallSite;

  /// Enters module `path` (dotted, from the root: "conv_layer.conv1") of
  /// `type` ("Conv2d") until the returned scope is destroyed.
  ModuleScope module(std::string path, std::string type);

  /// A graph input. Names of inputs and constants must be unique.
  ValueId input(std::string name, ScalarType dtype, std::vector<std::int64_t> shape);
  /// A float constant; `data` is row-major and must have `shape`'s size.
  ValueId constant(std::string name, std::vector<std::int64_t> shape, std::vector<float> data);

  ValueId conv2d(ValueId x, ValueId weight, std::optional<ValueId> bias,
                 const Conv2dOptions& options = {}, Loc loc = Loc::current());
  ValueId relu(ValueId x, Loc loc = Loc::current());
  ValueId clamp(ValueId x, double min, double max, Loc loc = Loc::current());
  /// clamp(x, 0, 6), as PyTorch's ReLU6.
  ValueId relu6(ValueId x, Loc loc = Loc::current());
  ValueId sigmoid(ValueId x, Loc loc = Loc::current());
  ValueId hardswish(ValueId x, Loc loc = Loc::current());
  /// max(0, min(1, alpha * x + beta)); ONNX's defaults are 0.2 and 0.5,
  /// PyTorch's Hardsigmoid is alpha 1/6, beta 0.5.
  ValueId hardsigmoid(ValueId x, double alpha, double beta, Loc loc = Loc::current());
  ValueId tan(ValueId x, Loc loc = Loc::current());
  ValueId sin(ValueId x, Loc loc = Loc::current());
  ValueId cos(ValueId x, Loc loc = Loc::current());
  ValueId add(ValueId a, ValueId b, Loc loc = Loc::current());
  ValueId sub(ValueId a, ValueId b, Loc loc = Loc::current());
  ValueId mul(ValueId a, ValueId b, Loc loc = Loc::current());
  ValueId div(ValueId a, ValueId b, Loc loc = Loc::current());
  ValueId linear(ValueId x, ValueId weight, std::optional<ValueId> bias, Loc loc = Loc::current());
  ValueId matmul(ValueId a, ValueId b, Loc loc = Loc::current());
  ValueId max_pool2d(ValueId x, const Pool2dOptions& options, Loc loc = Loc::current());
  ValueId avg_pool2d(ValueId x, const Pool2dOptions& options, Loc loc = Loc::current());
  ValueId global_avg_pool2d(ValueId x, Loc loc = Loc::current());
  /// Eval-mode batch norm with running `mean` and `var`.
  ValueId batch_norm(ValueId x, ValueId mean, ValueId var, ValueId weight, ValueId bias,
                     double eps = 1e-5, Loc loc = Loc::current());
  ValueId flatten(ValueId x, std::int64_t start_dim = 1, std::int64_t end_dim = -1,
                  Loc loc = Loc::current());
  ValueId reshape(ValueId x, std::vector<std::int64_t> shape, Loc loc = Loc::current());
  ValueId concat(std::vector<ValueId> xs, std::int64_t axis, Loc loc = Loc::current());
  ValueId softmax(ValueId x, std::int64_t axis, Loc loc = Loc::current());
  /// Output dim i is input dim perm[i].
  ValueId transpose(ValueId x, std::vector<std::int64_t> perm, Loc loc = Loc::current());

  /// Any op of ops.h by name, for importers and tests.
  ValueId op(std::string_view op_name, std::vector<ValueId> inputs, AttributeMap attributes,
             Loc loc = Loc::current());

  /// Marks `value` as a graph output (in call order).
  void output(ValueId value);

  /// The first error so far (OK if none).
  const Status& status() const { return first_error_; }

  /// The graph, verified and with debug handles 1..N assigned. The builder
  /// is unchanged and may be built again.
  StatusOr<Graph> build() const;

 private:
  void fail(Status status);
  ValueId add_value(std::string name, TensorType type, ValueKind kind, std::vector<float> data);
  std::string unique_node_name(std::string_view op_name);

  Graph graph_;
  std::vector<ModuleFrame> scopes_;
  std::set<std::string, std::less<>> used_names_;
  std::map<std::string, int, std::less<>> next_suffix_;
  Status first_error_;
};

}  // namespace glassbox::aot
