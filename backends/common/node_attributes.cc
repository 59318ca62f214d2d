#include "backends/common/node_attributes.h"

#include <limits>
#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::backends {

std::array<std::int64_t, 4> padding_tlbr(const aot::Node& node) {
  auto it = node.attributes.find("padding");
  if (it == node.attributes.end()) return {0, 0, 0, 0};
  const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second);
  if (v == nullptr) return {0, 0, 0, 0};
  if (v->size() == 2) return {(*v)[0], (*v)[1], (*v)[0], (*v)[1]};
  if (v->size() == 4) return {(*v)[0], (*v)[1], (*v)[2], (*v)[3]};
  return {0, 0, 0, 0};
}

std::array<std::int64_t, 2> int_pair(const aot::Node& node, std::string_view name,
                                     std::array<std::int64_t, 2> fallback) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end()) return fallback;
  const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second);
  if (v == nullptr || v->size() != 2) return fallback;
  return {(*v)[0], (*v)[1]};
}

std::int64_t int_attr(const aot::Node& node, std::string_view name, std::int64_t fallback) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end()) return fallback;
  const auto* v = std::get_if<std::int64_t>(&it->second);
  return v == nullptr ? fallback : *v;
}

std::vector<std::int64_t> ints_attr(const aot::Node& node, std::string_view name) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end()) return {};
  const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second);
  return v == nullptr ? std::vector<std::int64_t>{} : *v;
}

std::string string_attr(const aot::Node& node, std::string_view name, std::string_view fallback) {
  auto it = node.attributes.find(name);
  const auto* v = it == node.attributes.end() ? nullptr : std::get_if<std::string>(&it->second);
  return std::string(v == nullptr ? fallback : *v);
}

std::optional<double> float_attr(const aot::Node& node, std::string_view name) {
  auto it = node.attributes.find(name);
  if (it == node.attributes.end()) return std::nullopt;
  if (const auto* v = std::get_if<double>(&it->second)) return *v;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  return std::nullopt;
}

std::optional<ActivationRange> activation_range(const aot::Node& node) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (node.op == aot::op::kRelu) return ActivationRange{0.f, kInf};
  if (node.op != aot::op::kClamp) return std::nullopt;
  const std::optional<double> lo = float_attr(node, "min");
  const std::optional<double> hi = float_attr(node, "max");
  return ActivationRange{lo ? static_cast<float>(*lo) : -kInf, hi ? static_cast<float>(*hi) : kInf};
}

bool is_one_dimensional(const aot::Node& node) {
  return node.op == aot::op::kConv1d || node.op == aot::op::kMaxPool1d ||
         node.op == aot::op::kAvgPool1d;
}

aot::Node as_2d(const aot::Node& node) {
  aot::Node two = node;
  two.op = node.op == aot::op::kConv1d      ? aot::op::kConv2d
           : node.op == aot::op::kMaxPool1d ? aot::op::kMaxPool2d
                                            : aot::op::kAvgPool2d;
  for (const char* name : {"kernel", "stride", "dilation"}) {
    const std::vector<std::int64_t> v = ints_attr(node, name);
    if (v.size() == 1) two.attributes[name] = std::vector<std::int64_t>{1, v[0]};
  }
  const std::vector<std::int64_t> pads = ints_attr(node, "padding");
  if (pads.size() == 1) two.attributes["padding"] = std::vector<std::int64_t>{0, pads[0]};
  if (pads.size() == 2)
    two.attributes["padding"] = std::vector<std::int64_t>{0, pads[0], 0, pads[1]};
  return two;
}

std::vector<std::int64_t> with_unit_height(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> out = shape;
  if (out.size() == 3) out.insert(out.begin() + 2, 1);
  return out;
}

bool is_constant_with_data(const aot::Graph& graph, aot::ValueId id) {
  const aot::Value* v = graph.find_value(id);
  return v != nullptr && v->kind == aot::ValueKind::kConstant && !v->data.empty();
}

}  // namespace glassbox::backends
