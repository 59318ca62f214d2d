#pragma once
// Typed reads of a NodeProto's attributes, with ONNX's defaults. A present
// attribute of the wrong type is an error naming the node; an absent one
// gives the default.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "glassbox/core/status.h"

namespace onnx {
class NodeProto;
}

namespace glassbox::frontends::onnx {

/// "node '/conv1/Conv' (Conv)", or "node #3 (Conv)" when unnamed.
std::string describe_node(const ::onnx::NodeProto& node, int index);

class NodeAttributes {
 public:
  /// `node` must outlive this object; `label` prefixes errors.
  NodeAttributes(const ::onnx::NodeProto& node, std::string label)
      : node_(node), label_(std::move(label)) {}

  bool has(const std::string& name) const;
  StatusOr<std::int64_t> get_int(const std::string& name, std::int64_t fallback) const;
  StatusOr<float> get_float(const std::string& name, float fallback) const;
  StatusOr<std::string> get_string(const std::string& name, std::string fallback) const;
  /// nullopt when absent.
  StatusOr<std::optional<std::vector<std::int64_t>>> get_ints(const std::string& name) const;
  StatusOr<std::optional<std::vector<float>>> get_floats(const std::string& name) const;
  StatusOr<std::optional<std::vector<std::string>>> get_strings(const std::string& name) const;
  /// A TENSOR attribute, decoded (nullopt when absent).
  StatusOr<std::optional<HostTensor>> get_tensor(const std::string& name) const;
  /// Names of attributes present on the node but not in `known`: the
  /// caller decides whether ignoring them is safe.
  std::vector<std::string> unknown(std::initializer_list<const char*> known) const;

  const std::string& label() const { return label_; }

 private:
  const ::onnx::NodeProto& node_;
  std::string label_;
};

}  // namespace glassbox::frontends::onnx
