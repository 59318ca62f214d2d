#pragma once
// The state of one import: ONNX tensor names bound to graph values or host
// tensors, and the node being converted. Converters (converters.h) read
// their inputs and attributes through it, emit IR nodes with its
// provenance, and bind their outputs.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "frontends/onnx/attributes.h"
#include "frontends/onnx/graph_writer.h"
#include "frontends/onnx/shape_values.h"
#include "frontends/onnx/tensor_proto.h"
#include "frontends/onnx/varying_dims.h"

namespace onnx {
class NodeProto;
}

namespace glassbox::frontends::onnx {

/// What an ONNX tensor name stands for: a value computed at run time, or a
/// tensor known at import (initializer, Constant, folded arithmetic).
using Operand = std::variant<aot::ValueId, HostTensor>;

class ImportContext {
 public:
  /// `writer` must outlive the context. `source` names the model in errors.
  ImportContext(GraphWriter* writer, std::string source, std::int64_t opset)
      : writer_(writer), source_(std::move(source)), opset_(opset) {}

  /// Binds ONNX tensor `name` (graph inputs and initializers).
  void define(const std::string& name, Operand operand) { symbols_[name] = std::move(operand); }
  /// Records the ONNX element type a graph input declared when the runtime
  /// reads it as another (int8 and uint8 inputs run as LONG).
  void declare_type(const std::string& name, ScalarType declared) {
    declared_types_[name] = declared;
  }
  /// The element type input `i` was declared with: a constant's ONNX type
  /// (HostTensor::declared_int_type for integers), a graph input's
  /// declare_type(), else its graph value's dtype.
  StatusOr<ScalarType> declared_type(std::size_t i);
  /// The operand bound to `name`, or null.
  const Operand* lookup(const std::string& name) const;

  /// Starts converting `node` (the index-th node of the graph); it must
  /// outlive the conversion.
  void begin_node(const ::onnx::NodeProto& node, int index);
  const ::onnx::NodeProto& node() const { return *node_; }
  /// "<model>: node '<name>' (<op_type>)", the prefix of node errors.
  const std::string& label() const { return label_; }
  NodeAttributes attributes() const { return NodeAttributes(*node_, label_); }
  std::int64_t opset() const { return opset_; }

  /// Number of input slots (optional ones may be empty).
  std::size_t num_inputs() const;
  /// Whether input `i` exists and is not the empty name.
  bool has_input(std::size_t i) const;
  bool has_output(std::size_t i) const;
  /// Input `i`'s operand; an error if it is absent or undefined.
  StatusOr<const Operand*> input(std::size_t i) const;
  /// Whether input `i` is known at import.
  bool is_host(std::size_t i) const;
  /// Input `i` as a host tensor; an error saying that `what` must be a
  /// constant when it is computed at run time.
  StatusOr<const HostTensor*> host_input(std::size_t i, const std::string& what) const;
  /// Input `i` as a graph value; a host tensor becomes a constant (once per
  /// name) of its dtype (FLOAT, LONG or BOOL).
  StatusOr<aot::ValueId> value_input(std::size_t i);
  /// Input `i` as a graph value of the integer dtype `dtype`: a host tensor
  /// becomes a constant of that dtype (quantized weights and zero points
  /// keep their int8/uint8/int32 type); the caller checked its range.
  StatusOr<aot::ValueId> int_value_input(std::size_t i, ScalarType dtype);
  /// The static shape of input `i`, whichever kind it is.
  StatusOr<std::vector<std::int64_t>> input_shape(std::size_t i) const;

  /// A float constant owned by this node, named "<node>/<suffix>".
  aot::ValueId add_constant(const std::string& suffix, std::vector<std::int64_t> shape,
                            std::vector<float> data);
  /// A constant of the host tensor's dtype owned by this node.
  aot::ValueId add_constant(const std::string& suffix, const HostTensor& tensor);
  /// An IR node for this ONNX node (GraphWriter::add_node); a type error is
  /// reported against this node. When every input is a constant the node
  /// is not added: it is evaluated on the portable kernels now
  /// (kernel_folding.h) and the result is a new constant, which
  /// set_output binds as a host tensor.
  StatusOr<aot::ValueId> emit(std::string_view op, std::vector<aot::ValueId> inputs,
                              aot::AttributeMap attributes = {}, std::string_view step = {});
  /// As emit, but the node stays in the graph even when every input is a
  /// constant: dequantize_linear of int8 weights, which a delegate takes
  /// as int8 rather than as folded floats.
  StatusOr<aot::ValueId> emit_unfolded(std::string_view op, std::vector<aot::ValueId> inputs,
                                       aot::AttributeMap attributes = {},
                                       std::string_view step = {});
  /// An IR node of several outputs (ops.h's recurrent layers), never
  /// folded; output i's value is named "<node>/<suffixes[i]>" until
  /// set_output gives it the ONNX output's name.
  StatusOr<std::vector<aot::ValueId>> emit_outputs(std::string_view op,
                                                   std::vector<aot::ValueId> inputs,
                                                   aot::AttributeMap attributes,
                                                   const std::vector<std::string>& suffixes);
  /// Binds output `i` of the node. A graph value made by this node takes
  /// the ONNX output's name.
  void set_output(std::size_t i, Operand operand);

  /// kInvalidArgument / kNotSupported errors prefixed with label().
  Status invalid(const std::string& message) const;
  Status unsupported(const std::string& message) const;

  GraphWriter& writer() { return *writer_; }
  const GraphWriter& writer() const { return *writer_; }
  /// Shape arithmetic on values sized by data (shape_values.h): the
  /// importer runs it around each node's converter; Reshape and
  /// ConstantOfShape read the entries of a computed shape.
  ShapeValues& shape_values() { return shape_values_; }
  /// Which dims of graph value `id` follow the data at run time (one flag
  /// per dim); null for a value of fixed size (varying_dims.h).
  const std::vector<bool>* varying_dims(aot::ValueId id) const { return varying_.of(id); }
  /// IR nodes evaluated at import instead of emitted.
  std::size_t folded_nodes() const { return folded_nodes_; }
  const std::string& source() const { return source_; }

 private:
  /// kNotSupported, naming the node, for a value of more than 2^31
  /// elements, which the runtime cannot hold.
  Status check_runtime_value(std::string_view op, const std::vector<std::int64_t>& shape) const;
  /// Whether a node `op` of `inputs` may make a value that varies: a
  /// dynamic op, or an input that varies.
  bool may_vary(std::string_view op, const std::vector<aot::ValueId>& inputs) const;
  /// Records which dims of the node's outputs vary (varying_dims.h).
  Status record_varying(std::string_view op, const aot::AttributeMap& attributes,
                        const std::vector<aot::ValueId>& inputs,
                        const std::vector<aot::ValueId>& outputs);

  /// For a type error: names an int8/uint8 graph input the node reads
  /// without a DequantizeLinear ("" when there is none).
  std::string quantized_input_hint() const;

  GraphWriter* writer_;
  std::string source_;
  std::int64_t opset_;
  std::map<std::string, Operand, std::less<>> symbols_;
  std::map<std::string, aot::ValueId, std::less<>> materialized_;
  std::map<std::string, ScalarType, std::less<>> declared_types_;
  const ::onnx::NodeProto* node_ = nullptr;
  std::string label_;
  std::string value_prefix_;  // Names this node's helper values.
  std::size_t folded_nodes_ = 0;
  VaryingDims varying_;
  ShapeValues shape_values_;
};

}  // namespace glassbox::frontends::onnx
