#pragma once
// Appends values and nodes to an aot::Graph for the importer: unique names,
// output types from ops.h, and each IR node stamped with the provenance of
// the ONNX node being converted (its name, module hierarchy, debug handle).

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"

namespace glassbox::frontends::onnx {

class GraphWriter {
 public:
  /// `source_file` goes into every node's source location.
  explicit GraphWriter(std::string source_file) : source_file_(std::move(source_file)) {}

  aot::ValueId add_input(const std::string& name, std::vector<std::int64_t> shape,
                         ScalarType dtype = ScalarType::kFloat);
  /// A float constant named `name` (made unique if taken).
  aot::ValueId add_constant(const std::string& name, std::vector<std::int64_t> shape,
                            std::vector<float> data);
  /// A constant of any dtype from a host tensor.
  aot::ValueId add_constant(const std::string& name, const HostTensor& tensor);
  /// An integer host tensor as a constant of `dtype` (its declared narrow
  /// type, e.g. CHAR for int8 weights), whose range the caller checked.
  aot::ValueId add_int_constant(const std::string& name, const HostTensor& tensor,
                                ScalarType dtype);
  /// The value `id` (it must exist).
  const aot::Value& value(aot::ValueId id) const { return *graph_.find_value(id); }

  /// Later add_node calls convert ONNX node `name` of type `op_type`.
  void begin_source(std::string name, std::string op_type);

  /// An IR node of the current source node. `step` is "" for the node that
  /// carries the ONNX node's name, or a suffix ("to_2d") for helper nodes
  /// (named "<name>/<step>"). The output value is called `value_name`
  /// (made unique if taken). Errors come from ops.h's type inference.
  StatusOr<aot::ValueId> add_node(std::string_view op, std::vector<aot::ValueId> inputs,
                                  aot::AttributeMap attributes, std::string_view step,
                                  const std::string& value_name);

  /// As add_node for an op of several outputs (ops.h's recurrent layers):
  /// output i is called `value_names[i]`, made unique if taken.
  StatusOr<std::vector<aot::ValueId>> add_node_outputs(std::string_view op,
                                                       std::vector<aot::ValueId> inputs,
                                                       aot::AttributeMap attributes,
                                                       const std::vector<std::string>& value_names);

  /// Type of an existing value.
  aot::TensorType type_of(aot::ValueId id) const;
  aot::ValueKind kind_of(aot::ValueId id) const;
  /// Whether `id` is the output of a node of the current source node.
  bool made_by_current_source(aot::ValueId id) const;
  /// Renames `id` to `name` if the name is free (keeps it otherwise).
  void rename_value(aot::ValueId id, const std::string& name);
  void add_output(aot::ValueId id) { graph_.outputs.push_back(id); }

  /// The graph without the constants no node reads (folding leaves some
  /// behind), checked by aot::verify.
  StatusOr<aot::Graph> finish() &&;

 private:
  aot::ValueId add_value(const std::string& name, aot::TensorType type, aot::ValueKind kind,
                         std::vector<float> data);
  // Appends the node (its name from `step`, the current source's
  // provenance) with one output value per entry of `types`.
  std::vector<aot::ValueId> push_node(std::string_view op, std::vector<aot::ValueId> inputs,
                                      aot::AttributeMap attributes, std::string_view step,
                                      const std::vector<std::string>& value_names,
                                      std::vector<aot::TensorType> types);
  static std::string unique(std::set<std::string, std::less<>>& used, const std::string& base);

  std::string source_file_;
  aot::Graph graph_;
  std::set<std::string, std::less<>> value_names_;
  std::set<std::string, std::less<>> node_names_;
  std::string source_name_;
  std::string source_op_;
  std::vector<aot::ModuleFrame> source_frames_;
  DebugHandle source_handle_;
  std::uint32_t handles_used_ = 0;
  std::size_t source_first_value_ = 0;
};

}  // namespace glassbox::frontends::onnx
