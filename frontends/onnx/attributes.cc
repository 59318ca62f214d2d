#include "frontends/onnx/attributes.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string_view>

namespace glassbox::frontends::onnx {
namespace {

using ::onnx::AttributeProto;

const AttributeProto* find(const ::onnx::NodeProto& node, const std::string& name) {
  for (const AttributeProto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

Status wrong_type(const std::string& label, const std::string& name, std::string_view want) {
  return Status(Error::kInvalidArgument,
                label + ": attribute '" + name + "' must be " + std::string(want));
}

}  // namespace

std::string describe_node(const ::onnx::NodeProto& node, int index) {
  const std::string who =
      node.name().empty() ? "node #" + std::to_string(index) : "node '" + node.name() + "'";
  return who + " (" + node.op_type() + ")";
}

bool NodeAttributes::has(const std::string& name) const { return find(node_, name) != nullptr; }

StatusOr<std::int64_t> NodeAttributes::get_int(const std::string& name,
                                               std::int64_t fallback) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::INT) return wrong_type(label_, name, "an int");
  return a->i();
}

StatusOr<float> NodeAttributes::get_float(const std::string& name, float fallback) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::FLOAT) return wrong_type(label_, name, "a float");
  return a->f();
}

StatusOr<std::string> NodeAttributes::get_string(const std::string& name,
                                                 std::string fallback) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::STRING) return wrong_type(label_, name, "a string");
  return a->s();
}

StatusOr<std::optional<std::vector<std::int64_t>>> NodeAttributes::get_ints(
    const std::string& name) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return std::optional<std::vector<std::int64_t>>();
  if (a->type() != AttributeProto::INTS) return wrong_type(label_, name, "an int list");
  return std::optional(std::vector<std::int64_t>(a->ints().begin(), a->ints().end()));
}

StatusOr<std::optional<std::vector<float>>> NodeAttributes::get_floats(
    const std::string& name) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return std::optional<std::vector<float>>();
  if (a->type() != AttributeProto::FLOATS) return wrong_type(label_, name, "a float list");
  return std::optional(std::vector<float>(a->floats().begin(), a->floats().end()));
}

StatusOr<std::optional<std::vector<std::string>>> NodeAttributes::get_strings(
    const std::string& name) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return std::optional<std::vector<std::string>>();
  if (a->type() != AttributeProto::STRINGS) return wrong_type(label_, name, "a string list");
  return std::optional(std::vector<std::string>(a->strings().begin(), a->strings().end()));
}

StatusOr<std::optional<HostTensor>> NodeAttributes::get_tensor(const std::string& name) const {
  const AttributeProto* a = find(node_, name);
  if (a == nullptr) return std::optional<HostTensor>();
  if (a->type() != AttributeProto::TENSOR) return wrong_type(label_, name, "a tensor");
  GLASSBOX_ASSIGN_OR_RETURN(HostTensor t,
                            decode_tensor(a->t(), label_ + ": attribute '" + name + "'"));
  return std::optional(std::move(t));
}

std::vector<std::string> NodeAttributes::unknown(std::initializer_list<const char*> known) const {
  std::vector<std::string> out;
  for (const AttributeProto& a : node_.attribute()) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return a.name() == k; })) {
      out.push_back(a.name());
    }
  }
  return out;
}

}  // namespace glassbox::frontends::onnx
