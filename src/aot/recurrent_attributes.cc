#include "glassbox/aot/recurrent_attributes.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "src/aot/ops_internal.h"

namespace glassbox::aot {
namespace {

struct Named {
  std::string_view name;
  RecurrentActivation activation;  // with ONNX's default parameters
  bool takes_alpha;
  bool takes_beta;
};

using K = RecurrentActivationKind;
constexpr Named kActivations[] = {
    {"Sigmoid", {K::kSigmoid}, false, false},
    {"Tanh", {K::kTanh}, false, false},
    {"Relu", {K::kRelu}, false, false},
    {"Affine", {K::kAffine, 1.0f, 0.0f}, true, true},
    {"LeakyRelu", {K::kLeakyRelu, 0.01f}, true, false},
    {"ThresholdedRelu", {K::kThresholdedRelu, 1.0f}, true, false},
    {"ScaledTanh", {K::kScaledTanh, 1.0f, 1.0f}, true, true},
    {"HardSigmoid", {K::kHardSigmoid, 0.2f, 0.5f}, true, true},
    {"Elu", {K::kElu, 1.0f}, true, false},
    {"Softsign", {K::kSoftsign}, false, false},
    {"Softplus", {K::kSoftplus}, false, false},
};

// Compared ignoring case, as the runtime and ONNX Runtime do.
const Named* find_activation(std::string_view name) {
  for (const Named& n : kActivations) {
    if (n.name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(name[i])) ==
             std::tolower(static_cast<unsigned char>(n.name[i]));
    }
    if (same) return &n;
  }
  return nullptr;
}

std::string known_activations() {
  std::string out;
  for (const Named& n : kActivations) out += (out.empty() ? "" : ", ") + std::string(n.name);
  return out;
}

StatusOr<RecurrentDirection> direction_of(const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string direction, ops_internal::string_attr(attrs, "direction"));
  if (direction == "forward") return RecurrentDirection::kForward;
  if (direction == "reverse") return RecurrentDirection::kReverse;
  if (direction == "bidirectional") return RecurrentDirection::kBidirectional;
  return ops_internal::invalid("direction '" + direction +
                               "' is not one of \"forward\", \"reverse\", \"bidirectional\"");
}

// activation_alpha_<i> (or _beta_), `fallback` when absent.
StatusOr<float> parameter(const AttributeMap& attrs, const char* which, std::size_t i,
                          float fallback) {
  const std::string name = std::string("activation_") + which + "_" + std::to_string(i);
  if (!attrs.contains(name)) return fallback;
  GLASSBOX_ASSIGN_OR_RETURN(double v, ops_internal::float_attr(attrs, name));
  return static_cast<float>(v);
}

// The comma-separated list, each name with its parameters.
StatusOr<std::vector<RecurrentActivation>> activations_of(const AttributeMap& attrs,
                                                          std::size_t count) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string list, ops_internal::string_attr(attrs, "activations"));
  std::vector<RecurrentActivation> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    const Named* n = find_activation(name);
    if (n == nullptr) {
      return ops_internal::invalid("activations '" + list + "': '" + name + "' is not one of " +
                                   known_activations());
    }
    RecurrentActivation a = n->activation;
    const std::size_t i = out.size();
    GLASSBOX_ASSIGN_OR_RETURN(a.alpha, parameter(attrs, "alpha", i, a.alpha));
    GLASSBOX_ASSIGN_OR_RETURN(a.beta, parameter(attrs, "beta", i, a.beta));
    out.push_back(a);
    if (end == list.size()) break;
    start = end + 1;
  }
  if (out.size() != count) {
    return ops_internal::invalid("activations '" + list + "' must list " + std::to_string(count) +
                                 " functions");
  }
  return out;
}

StatusOr<RecurrentAttributes> read(RecurrentKind kind, const AttributeMap& attrs) {
  RecurrentAttributes a;
  a.kind = kind;
  a.gate_count = kind == RecurrentKind::kLstm ? 4 : kind == RecurrentKind::kGru ? 3 : 1;
  if (kind == RecurrentKind::kLstm) {
    a.inputs.initial_c = 6;
    a.inputs.peepholes = 7;
    a.inputs.count = 8;
  }
  GLASSBOX_ASSIGN_OR_RETURN(a.hidden_size, ops_internal::int_attr(attrs, "hidden_size"));
  if (a.hidden_size < 1) return ops_internal::invalid("hidden_size must be >= 1");
  GLASSBOX_ASSIGN_OR_RETURN(a.direction, direction_of(attrs));
  a.num_directions = a.direction == RecurrentDirection::kBidirectional ? 2 : 1;
  GLASSBOX_ASSIGN_OR_RETURN(a.batch_major, ops_internal::flag_attr(attrs, "layout", false));
  GLASSBOX_ASSIGN_OR_RETURN(a.activations,
                            activations_of(attrs, a.activations_per_direction() *
                                                      static_cast<std::size_t>(a.num_directions)));
  if (attrs.contains("clip")) {
    GLASSBOX_ASSIGN_OR_RETURN(double clip, ops_internal::float_attr(attrs, "clip"));
    if (!(clip > 0) || std::isinf(clip))
      return ops_internal::invalid("clip must be positive and finite");
    a.clip = clip;
  }
  // Each flag is checked on every cell but means something to one only
  // (the kernels read input_forget in an lstm, linear_before_reset in a gru).
  GLASSBOX_ASSIGN_OR_RETURN(bool input_forget,
                            ops_internal::flag_attr(attrs, "input_forget", false));
  GLASSBOX_ASSIGN_OR_RETURN(bool before_reset,
                            ops_internal::flag_attr(attrs, "linear_before_reset", false));
  a.input_forget = kind == RecurrentKind::kLstm && input_forget;
  a.linear_before_reset = kind == RecurrentKind::kGru && before_reset;
  return a;
}

}  // namespace

std::string_view to_string(RecurrentActivationKind kind) {
  for (const Named& n : kActivations) {
    if (n.activation.kind == kind) return n.name;
  }
  return "?";
}

std::size_t RecurrentAttributes::activations_per_direction() const {
  return kind == RecurrentKind::kLstm ? 3 : kind == RecurrentKind::kGru ? 2 : 1;
}

std::optional<RecurrentKind> recurrent_kind(std::string_view op) {
  if (op == op::kLstm) return RecurrentKind::kLstm;
  if (op == op::kGru) return RecurrentKind::kGru;
  if (op == op::kRnn) return RecurrentKind::kRnn;
  return std::nullopt;
}

StatusOr<RecurrentAttributes> read_recurrent_attributes(std::string_view op,
                                                        const AttributeMap& attributes) {
  const std::optional<RecurrentKind> kind = recurrent_kind(op);
  if (!kind) return ops_internal::invalid("not a recurrent op: " + std::string(op));
  StatusOr<RecurrentAttributes> a = read(*kind, attributes);
  if (!a.ok()) return ops_internal::invalid(std::string(op) + ": " + a.message());
  return a;
}

StatusOr<RecurrentAttributes> read_recurrent_attributes(const Node& node) {
  return read_recurrent_attributes(node.op, node.attributes);
}

}  // namespace glassbox::aot
