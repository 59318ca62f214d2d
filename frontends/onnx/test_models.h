#pragma once
// Test-only: small ONNX models written with the protobuf classes, so the
// importer's tests need neither Python nor files.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace glassbox::frontends::onnx::testing {

class ModelWriter {
 public:
  explicit ModelWriter(std::int64_t opset = 13) {
    model_.set_ir_version(8);
    model_.set_producer_name("glassbox-test");
    auto* set = model_.add_opset_import();
    set->set_domain("");
    set->set_version(opset);
  }

  /// A float input; a negative dim becomes the symbolic dim "batch".
  ModelWriter& input(const std::string& name, const std::vector<std::int64_t>& shape,
                     int elem_type = ::onnx::TensorProto::FLOAT) {
    auto* v = model_.mutable_graph()->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    for (std::int64_t d : shape) {
      auto* dim = t->mutable_shape()->add_dim();
      if (d < 0) {
        dim->set_dim_param("batch");
      } else {
        dim->set_dim_value(d);
      }
    }
    return *this;
  }
  ModelWriter& output(const std::string& name, int elem_type = ::onnx::TensorProto::FLOAT) {
    auto* v = model_.mutable_graph()->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
  }
  ModelWriter& floats(const std::string& name, const std::vector<std::int64_t>& shape,
                      const std::vector<float>& data) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (std::int64_t d : shape) t->add_dims(d);
    for (float f : data) t->add_float_data(f);
    return *this;
  }
  ModelWriter& ints(const std::string& name, const std::vector<std::int64_t>& shape,
                    const std::vector<std::int64_t>& data) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    for (std::int64_t d : shape) t->add_dims(d);
    for (std::int64_t v : data) t->add_int64_data(v);
    return *this;
  }
  /// An integer initializer of ONNX type `elem_type` (INT8, UINT8, INT32:
  /// in int32_data, as ONNX stores the narrow types; INT64 in int64_data).
  ModelWriter& typed_ints(const std::string& name, const std::vector<std::int64_t>& shape,
                          const std::vector<std::int64_t>& data, int elem_type) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    for (std::int64_t d : shape) t->add_dims(d);
    for (std::int64_t v : data) {
      if (elem_type == ::onnx::TensorProto::INT64) {
        t->add_int64_data(v);
      } else {
        t->add_int32_data(static_cast<std::int32_t>(v));
      }
    }
    return *this;
  }
  /// Adds a node; returns it for attributes.
  ::onnx::NodeProto* node(const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }
  static void set_ints(::onnx::NodeProto* n, const std::string& name,
                       const std::vector<std::int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (std::int64_t x : v) a->add_ints(x);
  }
  static void set_string(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  static void set_float(::onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void set_int(::onnx::NodeProto* n, const std::string& name, std::int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }

  std::vector<std::uint8_t> bytes() const {
    const std::string s = model_.SerializeAsString();
    return std::vector<std::uint8_t>(s.begin(), s.end());
  }

 private:
  ::onnx::ModelProto model_;
};

}  // namespace glassbox::frontends::onnx::testing
