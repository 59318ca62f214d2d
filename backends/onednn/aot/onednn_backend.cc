#include "backends/onednn/aot/onednn_backend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/common/batch_norm_folding.h"
#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
#include "backends/onednn/aot/fused_patterns.h"
#include "backends/onednn/aot/onednn_partitioner.h"
#include "backends/onednn/aot/onednn_program.h"
#include "backends/onednn/aot/recurrent_lowering.h"
#include "glassbox/aot/delegate_mapping_builder.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::onednn {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

using Sources = std::vector<const Node*>;

struct EltwiseStep {
  DnnEltwise alg;
  float alpha = 0;
  float beta = 0;
};

// The eltwise steps of a unary activation node (empty for other ops).
std::vector<EltwiseStep> eltwise_steps(const Node& node) {
  constexpr float kMax = std::numeric_limits<float>::max();
  const std::string_view op = node.op;
  const auto attr = [&](const char* name, double fallback) {
    return static_cast<float>(float_attr(node, name).value_or(fallback));
  };
  if (op == aot::op::kRelu) return {{DnnEltwise::kRelu}};
  if (op == aot::op::kLeakyRelu) return {{DnnEltwise::kRelu, attr("alpha", 0.01)}};
  if (op == aot::op::kClamp) return {{DnnEltwise::kClip, attr("min", -kMax), attr("max", kMax)}};
  if (op == aot::op::kSigmoid) return {{DnnEltwise::kLogistic}};
  if (op == aot::op::kHardswish) return {{DnnEltwise::kHardswish}};
  if (op == aot::op::kHardsigmoid) {
    return {{DnnEltwise::kLinear, attr("alpha", 0.2), attr("beta", 0.5)},
            {DnnEltwise::kClip, 0.f, 1.f}};
  }
  if (op == aot::op::kGelu) {
    return {{string_attr(node, "approximate", "none") == "tanh" ? DnnEltwise::kGeluTanh
                                                                : DnnEltwise::kGeluErf}};
  }
  if (op == aot::op::kTanh) return {{DnnEltwise::kTanh}};
  if (op == aot::op::kExp) return {{DnnEltwise::kExp}};
  if (op == aot::op::kLog) return {{DnnEltwise::kLog}};
  if (op == aot::op::kAbs) return {{DnnEltwise::kAbs}};
  if (op == aot::op::kSqrt) return {{DnnEltwise::kSqrt}};
  if (op == aot::op::kElu) return {{DnnEltwise::kElu, attr("alpha", 1.0)}};
  if (op == aot::op::kNeg) return {{DnnEltwise::kLinear, -1.f, 0.f}};
  if (op == aot::op::kSoftplus) return {{DnnEltwise::kSoftRelu}};
  return {};
}

DnnBinary binary_alg(std::string_view op) {
  if (op == aot::op::kSub) return DnnBinary::kSub;
  if (op == aot::op::kMul) return DnnBinary::kMul;
  if (op == aot::op::kDiv) return DnnBinary::kDiv;
  if (op == aot::op::kMin) return DnnBinary::kMin;
  if (op == aot::op::kMax) return DnnBinary::kMax;
  return DnnBinary::kAdd;
}

std::int64_t normalized_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

class Lowering {
 public:
  Lowering(const Graph& graph, bool string_ids)
      : graph_(graph), string_ids_(string_ids), builder_(!string_ids), uses_(graph) {}

  StatusOr<aot::PreprocessResult> run() {
    for (std::size_t i = 0; i < graph_.inputs.size(); ++i) {
      program_.inputs.push_back(value(graph_.inputs[i]).shape);
      slots_[graph_.inputs[i].value] = static_cast<std::uint32_t>(i);
      // An int8 input (its quantize outside the partition) takes the
      // quantization of a dequantize reading it.
      DnnQuant quant;
      for (const Node* reader : uses_.users(graph_.inputs[i])) {
        if (reader->op != aot::op::kDequantizeLinear) continue;
        if (const std::optional<TensorQuant> q = per_tensor_quant(graph_, *reader)) {
          quant = dnn_quant(*q);
          break;
        }
      }
      program_.input_quants.push_back(quant);
      slot_quants_[static_cast<std::uint32_t>(i)] = quant;
    }

    for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (uses_.absorbed(n)) continue;
      const Node& node = graph_.nodes[n];
      if (const std::string why = onednn_rejection(graph_, node); !why.empty()) {
        return Status(Error::kNotSupported, "oneDNN backend cannot lower node '" + node.name +
                                                "' (op '" + node.op + "'): " + why);
      }
      GLASSBOX_RETURN_IF_ERROR(lower(node));
    }
    for (ValueId out : graph_.outputs) {
      auto it = slots_.find(out.value);
      if (it == slots_.end() || it->second < program_.inputs.size()) {
        return Status(Error::kNotSupported, "oneDNN backend: output '" + value(out).name +
                                                "' is not computed by the delegate");
      }
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t slot, plain(out, producer_sources_[it->second]));
      program_.outputs.push_back(slot);
    }
    number_slots(program_.inputs.size(), program_.constants.size(), &program_.ops,
                 &program_.outputs);
    return aot::PreprocessResult{encode_dnn_program(program_), builder_.get_delegate_mapping()};
  }

 private:
  const aot::Value& value(ValueId id) const { return *graph_.find_value(id); }
  // A constant, or a dequantized one (read as a constant, its float values
  // from constant_operand_data).
  bool is_constant(ValueId id) const {
    return value(id).kind == aot::ValueKind::kConstant ||
           dequantized_constant(graph_, id) != nullptr;
  }

  static DnnQuant dnn_quant(const TensorQuant& q) {
    return {q.type == ScalarType::kChar ? DnnDataType::kS8 : DnnDataType::kU8, q.scale,
            q.zero_point};
  }
  DnnQuant slot_quant(std::uint32_t s) const {
    auto it = slot_quants_.find(s);
    return it == slot_quants_.end() ? DnnQuant{} : it->second;
  }

  std::uint32_t add_constant(std::vector<std::int64_t> dims, std::vector<float> data) {
    if (dims.empty()) dims = {1};
    program_.constants.push_back({std::move(dims), std::move(data)});
    return kProvisionalConstant + static_cast<std::uint32_t>(program_.constants.size() - 1);
  }

  const Node* sole_user(ValueId id) const { return uses_.sole_user(id); }
  void absorb(const Node& node) { uses_.absorb(node); }

  // Appends `op` under a new identifier mapped to `sources` and returns the
  // provisional slot it writes; `blocked` says whether oneDNN may pick a
  // blocked format for it.
  StatusOr<std::uint32_t> emit(DnnOp op, const Sources& sources, std::string string_id,
                               bool blocked) {
    if (op.kind == DnnOpKind::kReorder || op.kind == DnnOpKind::kPooling ||
        op.kind == DnnOpKind::kReshape) {
      op.quant = slot_quant(op.operands[0]);  // int8 in, the same int8 out
    }
    const DnnQuant quant = op.quant;
    std::optional<aot::DelegateDebugIdentifier> identifier;
    if (string_ids_) identifier = std::move(string_id);
    GLASSBOX_ASSIGN_OR_RETURN(op.identifier,
                              builder_.insert_delegate_mapping_entry(sources, identifier));
    program_.ops.push_back(std::move(op));
    const auto slot = static_cast<std::uint32_t>(program_.inputs.size() + program_.ops.size() - 1);
    blocked_[slot] = blocked;
    if (quant.type != DnnDataType::kF32) slot_quants_[slot] = quant;
    producer_sources_[slot] = sources;
    return slot;
  }

  static std::string joined_names(const Sources& sources) {
    std::string name;
    for (const Node* n : sources) name += (name.empty() ? "" : "+") + n->name;
    return name;
  }

  StatusOr<std::uint32_t> emit_named(DnnOp op, const Sources& sources, bool blocked) {
    return emit(std::move(op), sources, joined_names(sources), blocked);
  }

  // The slot of computed value `id`.
  std::uint32_t slot(ValueId id) const { return slots_.at(id.value); }

  bool maybe_blocked(std::uint32_t s) const {
    auto it = blocked_.find(s);
    return it != blocked_.end() && it->second;
  }

  // `id` in plain row-major order: its slot, or a reorder of it (one per
  // value) mapped to `needed_by`.
  StatusOr<std::uint32_t> plain(ValueId id, const Sources& needed_by) {
    const std::uint32_t s = slot(id);
    if (!maybe_blocked(s)) return s;
    if (auto it = plain_copies_.find(s); it != plain_copies_.end()) return it->second;
    DnnOp op{.kind = DnnOpKind::kReorder,
             .identifier = {},
             .operands = {s},
             .output = value(id).shape,
             .ints = {static_cast<std::int64_t>(DnnReorderTarget::kPlain)},
             .floats = {}};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t copy,
                              emit(std::move(op), needed_by, value(id).name + ".to_plain", false));
    return plain_copies_[s] = copy;
  }

  // `id` as a convolution's source: a plain slot gets a reorder into the
  // format the convolution prefers (one per value).
  StatusOr<std::uint32_t> conv_source(ValueId id, const Sources& needed_by) {
    const std::uint32_t s = slot(id);
    if (maybe_blocked(s)) return s;
    if (auto it = consumer_copies_.find(s); it != consumer_copies_.end()) return it->second;
    DnnOp op{.kind = DnnOpKind::kReorder,
             .identifier = {},
             .operands = {s},
             .output = value(id).shape,
             .ints = {static_cast<std::int64_t>(DnnReorderTarget::kConsumer)},
             .floats = {}};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t copy,
                              emit(std::move(op), needed_by, value(id).name + ".reorder", true));
    return consumer_copies_[s] = copy;
  }

  // x * gate(x), one eltwise: x * hardsigmoid(x) with PyTorch's constants
  // (how hardswish reaches ONNX before opset 14) is hardswish, and
  // x * sigmoid(x) (SiLU, efficientnet's activation) is swish. The gate and
  // the mul reading `x`, and the step; nulls when `x` is not gated so.
  struct Gated {
    const Node* gate = nullptr;
    const Node* mul = nullptr;
    EltwiseStep step{DnnEltwise::kHardswish};
  };
  Gated gated_activation_of(ValueId x) const {
    const std::vector<const Node*> readers = uses_.users(x);
    if (uses_.is_output(x) || readers.size() != 2) return {};
    for (int i = 0; i < 2; ++i) {
      const Node* h = readers[static_cast<std::size_t>(i)];
      const Node* m = readers[static_cast<std::size_t>(1 - i)];
      std::optional<EltwiseStep> step;
      if (h->op == aot::op::kHardsigmoid &&
          std::abs(float_attr(*h, "alpha").value_or(0.2) - 1.0 / 6) <= 1e-6 &&
          float_attr(*h, "beta").value_or(0.5) == 0.5) {
        step = EltwiseStep{DnnEltwise::kHardswish};
      } else if (h->op == aot::op::kSigmoid) {
        step = EltwiseStep{DnnEltwise::kSwish, 1.f, 0.f};  // x * sigmoid(1 * x)
      }
      if (!step || sole_user(h->outputs[0]) != m || m->op != aot::op::kMul ||
          !onednn_rejection(graph_, *m).empty()) {
        continue;
      }
      const bool reads_both = (m->inputs[0] == x && m->inputs[1] == h->outputs[0]) ||
                              (m->inputs[1] == x && m->inputs[0] == h->outputs[0]);
      if (reads_both) return {h, m, *step};
    }
    return {};
  }

  // A residual connection: `*out` + t as its only use, t computed before
  // (it must exist where the primitive runs) and of the sum's shape. The
  // add becomes the primitive's sum post-op; returns t.
  std::optional<ValueId> absorb_residual(ValueId* out, Sources* sources) {
    const Node* add = sole_user(*out);
    if (add == nullptr || add->op != aot::op::kAdd || !onednn_rejection(graph_, *add).empty()) {
      return std::nullopt;
    }
    const ValueId other = add->inputs[0] == *out ? add->inputs[1] : add->inputs[0];
    if (other == *out || is_constant(other) || !slots_.contains(other.value) ||
        value(other).shape != value(add->outputs[0]).shape ||
        value(*out).shape != value(add->outputs[0]).shape) {
      return std::nullopt;
    }
    absorb(*add);
    sources->push_back(add);
    *out = add->outputs[0];
    return other;
  }

  // Appends `step` to a post-op chain: a linear step right after another
  // is merged into it. oneDNN 2.6 gives every post-op of one algorithm the
  // parameters of its first (brgemm matmul: (2x) then (x - 1) computed
  // 4x), or runs the primitive on its reference kernel (convolution), so
  // a chain never holds an algorithm twice: false, and nothing appended,
  // when `step` would repeat one.
  static bool append_step(std::vector<EltwiseStep>* steps, const EltwiseStep& step) {
    if (step.alg == DnnEltwise::kLinear && !steps->empty() &&
        steps->back().alg == DnnEltwise::kLinear) {
      EltwiseStep& last = steps->back();
      last.beta = step.alpha * last.beta + step.beta;
      last.alpha *= step.alpha;
      return true;
    }
    for (const EltwiseStep& s : *steps) {
      if (s.alg == step.alg) return false;
    }
    steps->push_back(step);
    return true;
  }

  // Follows activation users of `*out` (and multiplications, divisions,
  // additions and subtractions by a scalar constant) while they fit in the
  // step budget.
  void absorb_activations(ValueId* out, Sources* sources, std::vector<EltwiseStep>* steps) {
    while (true) {
      std::vector<EltwiseStep> chain = *steps;
      if (const Gated g = gated_activation_of(*out);
          g.gate != nullptr && append_step(&chain, g.step) && chain.size() <= kDnnMaxEltwiseSteps) {
        absorb(*g.gate);
        absorb(*g.mul);
        sources->push_back(g.gate);
        sources->push_back(g.mul);
        *steps = std::move(chain);
        *out = g.mul->outputs[0];
        continue;
      }
      const Node* user = sole_user(*out);
      if (user == nullptr || !onednn_rejection(graph_, *user).empty()) return;
      std::vector<EltwiseStep> more = eltwise_steps(*user);
      if (const std::optional<ScalarAffine> affine = scalar_affine_of(graph_, *user, *out);
          affine && value(user->outputs[0]).shape == value(*out).shape) {
        more = {{DnnEltwise::kLinear, affine->alpha, affine->beta}};
      }
      if (more.empty()) return;
      chain = *steps;
      for (const EltwiseStep& step : more) {
        if (!append_step(&chain, step)) return;
      }
      if (chain.size() > kDnnMaxEltwiseSteps) return;
      absorb(*user);
      sources->push_back(user);
      *steps = std::move(chain);
      *out = user->outputs[0];
    }
  }

  static void append_post_ops(const std::vector<EltwiseStep>& steps, DnnOp* op) {
    op->ints.push_back(static_cast<std::int64_t>(steps.size()));
    for (const EltwiseStep& s : steps) {
      op->ints.push_back(static_cast<std::int64_t>(s.alg));
      op->floats.push_back(s.alpha);
      op->floats.push_back(s.beta);
    }
  }

  Status define(ValueId out, StatusOr<std::uint32_t> s) {
    if (!s.ok()) return s.status();
    slots_[out.value] = *s;
    return Status();
  }

  // ---- Int8 (QDQ) -------------------------------------------------------
  // A float op whose inputs are dequantized int8 tensors and whose output
  // (after an optional relu or clamp) is quantized runs as one int8
  // primitive from the int8 inputs to the quantize's int8 output; the
  // dequantize and quantize between two such ops are never materialised.

  // The int8 value `id` dequantizes (a dequantize_linear of a computed
  // int8 tensor the delegate holds with the same quantization), and that
  // quantization.
  struct Int8Source {
    ValueId value;
    TensorQuant quant;
  };
  std::optional<Int8Source> int8_source(ValueId id) const {
    const Node* dq = producer_of(graph_, id);
    if (dq == nullptr || dq->op != aot::op::kDequantizeLinear || is_constant(dq->inputs[0])) {
      return std::nullopt;
    }
    const std::optional<TensorQuant> q = per_tensor_quant(graph_, *dq);
    if (!q) return std::nullopt;
    if (auto it = slots_.find(dq->inputs[0].value);
        it != slots_.end() && !(slot_quant(it->second) == dnn_quant(*q))) {
      return std::nullopt;
    }
    return Int8Source{dq->inputs[0], *q};
  }

  struct Int8Plan {
    std::vector<Int8Source> inputs;
    const Node* activation = nullptr;  // relu or clamp, or null
    const Node* quantize = nullptr;
    TensorQuant out;
    // A quantize and dequantize between the op and its activation (the
    // activation QDQ-wrapped on its own), absorbed with it.
    std::vector<const Node*> between;
  };

  // The activation after `q`, a quantize whose int8 output only a
  // dequantize with its parameters reads, whose float output only a relu
  // or clamp reads, whose output only a quantize with those parameters
  // again reads: PyTorch's ReLU6 after a quantized conv. Clamping the
  // quantized values to the activation's image is then exact (a value of
  // the grid dequantizes and quantizes back to itself), so the activation
  // fuses into the op that `q` quantizes (its output range narrows).
  bool requantized_activation(const Node& q, Int8Plan* plan) const {
    const std::optional<TensorQuant> q1 = per_tensor_quant(graph_, q);
    const Node* dq = uses_.is_output(q.outputs[0]) ? nullptr : sole_user(q.outputs[0]);
    if (!q1 || dq == nullptr || dq->op != aot::op::kDequantizeLinear ||
        per_tensor_quant(graph_, *dq) != q1 || uses_.is_output(dq->outputs[0])) {
      return false;
    }
    const Node* act = sole_user(dq->outputs[0]);
    if (act == nullptr || (act->op != aot::op::kRelu && act->op != aot::op::kClamp) ||
        uses_.is_output(act->outputs[0])) {
      return false;
    }
    const Node* q2 = sole_user(act->outputs[0]);
    if (q2 == nullptr || q2->op != aot::op::kQuantizeLinear ||
        per_tensor_quant(graph_, *q2) != q1) {
      return false;
    }
    plan->between = {&q, dq};
    plan->activation = act;
    plan->quantize = q2;
    plan->out = *q1;
    return true;
  }

  // The quantize (after an optional relu / clamp) that is the only reader
  // of `node`'s output.
  bool quantized_output(const Node& node, bool activation_ok, Int8Plan* plan) const {
    ValueId out = node.outputs[0];
    const Node* user = uses_.is_output(out) ? nullptr : sole_user(out);
    if (user != nullptr && activation_ok &&
        (user->op == aot::op::kRelu || user->op == aot::op::kClamp)) {
      plan->activation = user;
      out = user->outputs[0];
      user = uses_.is_output(out) ? nullptr : sole_user(out);
    }
    if (user == nullptr || user->op != aot::op::kQuantizeLinear) return false;
    if (plan->activation == nullptr && activation_ok && requantized_activation(*user, plan)) {
      return true;
    }
    const std::optional<TensorQuant> q = per_tensor_quant(graph_, *user);
    if (!q) return false;
    plan->quantize = user;
    plan->out = *q;
    return true;
  }

  // Int8 weights: a dequantized int8 constant with zero points 0, per
  // tensor or per index of `axis`.
  bool int8_weights(ValueId id, std::int64_t axis) const {
    const Node* dq = dequantized_constant(graph_, id);
    if (dq == nullptr || value(dq->inputs[0]).dtype != ScalarType::kChar) return false;
    if (dq->inputs.size() > 2 && dq->inputs[2].is_set()) {
      for (std::int64_t zp : value(dq->inputs[2]).int_data) {
        if (zp != 0) return false;
      }
    }
    const std::size_t scales = value(dq->inputs[1]).data.size();
    if (scales == 1) return true;
    std::int64_t a = int_attr(*dq, "axis", 1);
    if (a < 0) a += static_cast<std::int64_t>(value(id).shape.size());
    return a == axis;
  }

  bool int8_bias(const Node& node) const {
    return node.inputs.size() < 3 || !node.inputs[2].is_set() ||
           (dequantized_constant(graph_, node.inputs[2]) != nullptr);
  }

  // How `node` runs in int8, if it does (see int8_source, quantized_output).
  std::optional<Int8Plan> int8_plan(const Node& node) const {
    const std::string_view op = node.op;
    Int8Plan plan;
    const auto source = [&](ValueId id) {
      std::optional<Int8Source> s = int8_source(id);
      if (s) plan.inputs.push_back(*s);
      return s.has_value();
    };
    if (op == aot::op::kConv2d) {
      if (!source(node.inputs[0]) || !int8_weights(node.inputs[1], 0) || !int8_bias(node) ||
          !quantized_output(node, true, &plan)) {
        return std::nullopt;
      }
      return plan;
    }
    if ((op == aot::op::kLinear || op == aot::op::kMatmul) && node.inputs.size() >= 2 &&
        dequantized_constant(graph_, node.inputs[1]) != nullptr) {
      if (value(node.inputs[0]).shape.size() < 2 || !source(node.inputs[0]) ||
          !int8_weights(node.inputs[1], op == aot::op::kLinear ? 0 : 1) || !int8_bias(node) ||
          !quantized_output(node, true, &plan)) {
        return std::nullopt;
      }
      return plan;
    }
    if (op == aot::op::kAdd || op == aot::op::kMul) {
      const auto& shape = value(node.outputs[0]).shape;
      if (value(node.inputs[0]).shape != shape || value(node.inputs[1]).shape != shape ||
          !source(node.inputs[0]) || !source(node.inputs[1]) ||
          !quantized_output(node, true, &plan)) {
        return std::nullopt;
      }
      return plan;
    }
    if (op == aot::op::kRelu || op == aot::op::kClamp) {
      // One the producer did not fuse: kQClamp.
      if (!source(node.inputs[0]) || !quantized_output(node, false, &plan) ||
          plan.out.type != plan.inputs[0].quant.type) {
        return std::nullopt;
      }
      return plan;
    }
    if (op == aot::op::kGlobalAvgPool2d && value(node.inputs[0]).shape.size() == 4) {
      // Requantizing or not: kQGlobalAvgPool when the scales differ.
      if (!source(node.inputs[0]) || !quantized_output(node, false, &plan) ||
          plan.out.type != plan.inputs[0].quant.type) {
        return std::nullopt;
      }
      return plan;
    }
    const bool pool = op == aot::op::kMaxPool2d ||
                      (op == aot::op::kAvgPool2d && !padded_avg_pool_of(graph_, node));
    if (pool || op == aot::op::kFlatten || op == aot::op::kReshape) {
      // The output keeps the input's quantization (oneDNN's int8 pooling
      // does not rescale).
      if (!source(node.inputs[0]) || !quantized_output(node, false, &plan) ||
          !(plan.out == plan.inputs[0].quant)) {
        return std::nullopt;
      }
      return plan;
    }
    return std::nullopt;
  }

  // Whether a dequantize's float output is needed: a delegate output, or
  // read by a node that does not run in int8.
  bool float_needed(ValueId id) const {
    if (uses_.is_output(id)) return true;
    for (const Node* reader : uses_.users(id)) {
      if (!int8_plan(*reader)) return true;
    }
    return false;
  }

  Status lower_quantize(const Node& node) {
    const TensorQuant q = *per_tensor_quant(graph_, node);
    Sources sources{&node};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
    DnnOp dnn{.kind = DnnOpKind::kQuantize,
              .identifier = {},
              .operands = {src},
              .output = value(node.outputs[0]).shape,
              .ints = {},
              .floats = {},
              .quant = dnn_quant(q)};
    return define(node.outputs[0], emit_named(std::move(dnn), sources, false));
  }

  // A dequantized constant is read as a constant by its readers; an int8
  // tensor is dequantized only where a float reader needs it.
  Status lower_dequantize(const Node& node) {
    if (is_constant(node.inputs[0]) || !float_needed(node.outputs[0])) return Status();
    DnnOp dnn{.kind = DnnOpKind::kDequantize,
              .identifier = {},
              .operands = {slot(node.inputs[0])},
              .output = value(node.outputs[0]).shape,
              .ints = {},
              .floats = {}};
    return define(node.outputs[0], emit_named(std::move(dnn), {&node}, false));
  }

  // Quantized value `v` in type `q`'s range.
  static std::int64_t quantized(double v, const TensorQuant& q) {
    const double lo = q.type == ScalarType::kChar ? -128 : 0;
    const double hi = q.type == ScalarType::kChar ? 127 : 255;
    return static_cast<std::int64_t>(
        std::clamp(std::nearbyint(v / q.scale) + q.zero_point, lo, hi));
  }

  Status lower_int8(const Node& node, const Int8Plan& plan) {
    Sources sources{&node};
    for (const Node* n : plan.between) {
      absorb(*n);
      sources.push_back(n);
    }
    if (plan.activation != nullptr) {
      absorb(*plan.activation);
      sources.push_back(plan.activation);
    }
    absorb(*plan.quantize);
    sources.push_back(plan.quantize);
    const ValueId out = plan.quantize->outputs[0];
    const std::string_view op = node.op;
    // The fused activation as a post-op on the rescaled result (before
    // the output's zero point), or as a clamp of quantized values.
    std::vector<EltwiseStep> steps;
    std::int64_t qmin = plan.out.type == ScalarType::kChar ? -128 : 0;
    std::int64_t qmax = plan.out.type == ScalarType::kChar ? 127 : 255;
    if (plan.activation != nullptr) {
      constexpr double kMax = std::numeric_limits<float>::max();
      const bool relu = plan.activation->op == aot::op::kRelu;
      const double lo = relu ? 0.0 : float_attr(*plan.activation, "min").value_or(-kMax);
      const double hi = relu ? kMax : float_attr(*plan.activation, "max").value_or(kMax);
      if (relu) {
        steps.push_back({DnnEltwise::kRelu});
      } else {
        steps.push_back({DnnEltwise::kClip, static_cast<float>(lo / plan.out.scale),
                         static_cast<float>(std::min(hi / plan.out.scale, kMax))});
      }
      qmin = std::max(qmin, quantized(lo, plan.out));
      if (hi < kMax) qmax = std::min(qmax, quantized(hi, plan.out));
    }
    if (op == aot::op::kAdd || op == aot::op::kMul) {
      const std::uint32_t a = slot(plan.inputs[0].value);
      DnnOp dnn{.kind = DnnOpKind::kQBinary,
                .identifier = {},
                .operands = {a, slot(plan.inputs[1].value)},
                .output = value(out).shape,
                .ints = {static_cast<std::int64_t>(binary_alg(op)), qmin, qmax},
                .floats = {},
                .quant = dnn_quant(plan.out)};
      return define(out, emit_named(std::move(dnn), sources, maybe_blocked(a)));
    }
    if (op == aot::op::kFlatten || op == aot::op::kReshape) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(plan.inputs[0].value, sources));
      DnnOp dnn{.kind = DnnOpKind::kReshape,
                .identifier = {},
                .operands = {src},
                .output = value(out).shape,
                .ints = {},
                .floats = {}};
      return define(out, emit_named(std::move(dnn), sources, false));
    }
    if (op == aot::op::kRelu || op == aot::op::kClamp) return lower_int8_clamp(node, plan, sources);
    if (op == aot::op::kGlobalAvgPool2d && !(plan.out == plan.inputs[0].quant)) {
      DnnOp dnn{.kind = DnnOpKind::kQGlobalAvgPool,
                .identifier = {},
                .operands = {slot(plan.inputs[0].value)},
                .output = value(out).shape,
                .ints = {},
                .floats = {},
                .quant = dnn_quant(plan.out)};
      return define(out, emit_named(std::move(dnn), sources, false));
    }
    if (op != aot::op::kConv2d && op != aot::op::kLinear && op != aot::op::kMatmul) {
      return lower_int8_pool(node, plan, sources);
    }
    // Weights, bias in units of x_scale * w_scale[o], output scales.
    const Node& wdq = *dequantized_constant(graph_, node.inputs[1]);
    const aot::Value& w = value(wdq.inputs[0]);
    const std::vector<float>& w_scales = value(wdq.inputs[1]).data;
    const bool conv = op == aot::op::kConv2d;
    const bool linear = op == aot::op::kLinear;
    const std::int64_t channels = conv || linear ? w.shape[0] : w.shape[1];
    const float x_scale = plan.inputs[0].quant.scale;
    std::vector<float> bias_f(static_cast<std::size_t>(channels), 0.f);
    if (node.inputs.size() > 2 && node.inputs[2].is_set()) {
      bias_f = constant_operand_data(graph_, node.inputs[2]);
    }
    std::vector<float> scales(static_cast<std::size_t>(channels));
    std::vector<std::int32_t> bias(static_cast<std::size_t>(channels));
    for (std::size_t o = 0; o < scales.size(); ++o) {
      const float ws = w_scales[w_scales.size() == 1 ? 0 : o];
      const float acc_scale = x_scale * ws;
      scales[o] = acc_scale / plan.out.scale;
      bias[o] = static_cast<std::int32_t>(std::nearbyint(bias_f[o] / acc_scale));
    }
    std::vector<std::int32_t> weights(w.int_data.begin(), w.int_data.end());
    std::vector<std::int64_t> w_dims = w.shape;
    if (linear) {  // [N, K] -> [K, N]
      const std::int64_t n = w.shape[0], k = w.shape[1];
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t c = 0; c < k; ++c) {
          weights[static_cast<std::size_t>(c * n + r)] =
              static_cast<std::int32_t>(w.int_data[static_cast<std::size_t>(r * k + c)]);
        }
      }
      w_dims = {k, n};
    }
    const std::uint32_t w_slot = add_int_constant(w_dims, DnnDataType::kS8, std::move(weights));
    const std::uint32_t b_slot = add_int_constant({channels}, DnnDataType::kS32, std::move(bias));
    const std::uint32_t s_slot = add_constant({channels}, std::move(scales));
    if (conv) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, conv_source(plan.inputs[0].value, sources));
      const std::array<std::int64_t, 2> stride = int_pair(node, "stride", {1, 1});
      const std::array<std::int64_t, 2> dilation = int_pair(node, "dilation", {1, 1});
      const std::array<std::int64_t, 4> pads = padding_tlbr(node);
      DnnOp dnn{.kind = DnnOpKind::kQConvolution,
                .identifier = {},
                .operands = {src, w_slot, b_slot, s_slot},
                .output = value(out).shape,
                .ints = {stride[0], stride[1], dilation[0], dilation[1], pads[0], pads[1], pads[2],
                         pads[3], int_attr(node, "groups", 1), 0},
                .floats = {},
                .quant = dnn_quant(plan.out)};
      append_post_ops(steps, &dnn);
      return define(out, emit_named(std::move(dnn), sources, true));
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(plan.inputs[0].value, sources));
    DnnOp dnn{.kind = DnnOpKind::kQMatmul,
              .identifier = {},
              .operands = {src, w_slot, b_slot, s_slot},
              .output = value(out).shape,
              .ints = {},
              .floats = {},
              .quant = dnn_quant(plan.out)};
    append_post_ops(steps, &dnn);
    return define(out, emit_named(std::move(dnn), sources, false));
  }

  // A relu or clip between a dequantize and a quantize that no producer
  // fused: the portable run's dequantize, float clamp and quantize of each
  // of the 256 input values, in float32 as quantize.cc computes them. One
  // quantization on both sides: a clamp of the quantized values to the
  // table's ends (exact: a grid value dequantizes and quantizes back to
  // itself); otherwise the table.
  Status lower_int8_clamp(const Node& node, const Int8Plan& plan, const Sources& sources) {
    const TensorQuant& in = plan.inputs[0].quant;
    const TensorQuant& o = plan.out;
    constexpr float kMax = std::numeric_limits<float>::max();
    const bool relu = node.op == aot::op::kRelu;
    const auto lo = static_cast<float>(relu ? 0.0 : float_attr(node, "min").value_or(-kMax));
    const auto hi = static_cast<float>(relu ? kMax : float_attr(node, "max").value_or(kMax));
    const bool s8 = in.type == ScalarType::kChar;
    const float out_lo = o.type == ScalarType::kChar ? -128.f : 0.f;
    const float out_hi = o.type == ScalarType::kChar ? 127.f : 255.f;
    std::vector<std::int32_t> table(256);
    std::int64_t qmin = std::numeric_limits<std::int64_t>::max();
    std::int64_t qmax = std::numeric_limits<std::int64_t>::min();
    for (int b = 0; b < 256; ++b) {
      const std::int32_t v = s8 ? static_cast<std::int8_t>(b) : b;
      const float x = static_cast<float>(v - in.zero_point) * in.scale;
      const float c = std::min(std::max(x, lo), hi);
      const float r = std::nearbyint(std::clamp(c / o.scale, -1e9f, 1e9f));
      const float q = std::clamp(r + static_cast<float>(o.zero_point), out_lo, out_hi);
      const auto y = static_cast<std::int64_t>(q);
      table[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(y & 0xff);
      qmin = std::min(qmin, y);
      qmax = std::max(qmax, y);
    }
    DnnOp dnn{.kind = DnnOpKind::kQClamp,
              .identifier = {},
              .operands = {slot(plan.inputs[0].value)},
              .output = value(plan.quantize->outputs[0]).shape,
              .ints = {qmin, qmax},
              .floats = {},
              .quant = dnn_quant(o)};
    if (!(o == in)) {
      dnn.operands.push_back(add_int_constant({256}, DnnDataType::kU8, std::move(table)));
    }
    const bool blocked = maybe_blocked(dnn.operands[0]);
    return define(plan.quantize->outputs[0], emit_named(std::move(dnn), sources, blocked));
  }

  // kPooling's ints for window `g`: the algorithm, then per spatial dim
  // kernels, strides, dilations, pads begin, pads end.
  static std::vector<std::int64_t> pooling_ints(DnnPooling alg, const PoolGeometry& g) {
    std::vector<std::int64_t> ints{static_cast<std::int64_t>(alg)};
    for (const auto* field : {&g.kernel, &g.stride, &g.dilation, &g.pad_begin, &g.pad_end}) {
      ints.insert(ints.end(), field->begin(), field->begin() + static_cast<std::ptrdiff_t>(g.dims));
    }
    return ints;
  }

  Status lower_int8_pool(const Node& node, const Int8Plan& plan, const Sources& sources) {
    const std::optional<PoolGeometry> g = pool_geometry(graph_, node);
    DnnPooling alg = DnnPooling::kMax;
    if (node.op == aot::op::kGlobalAvgPool2d) {
      alg = DnnPooling::kAvgExcludePadding;
    } else if (node.op == aot::op::kAvgPool2d) {
      alg = int_attr(node, "count_include_pad", 1) != 0 ? DnnPooling::kAvgIncludePadding
                                                        : DnnPooling::kAvgExcludePadding;
    }
    const std::uint32_t src = slot(plan.inputs[0].value);
    const ValueId out = plan.quantize->outputs[0];
    DnnOp dnn{.kind = DnnOpKind::kPooling,
              .identifier = {},
              .operands = {src},
              .output = value(out).shape,
              .ints = pooling_ints(alg, *g),
              .floats = {}};
    return define(out, emit_named(std::move(dnn), sources, maybe_blocked(src)));
  }

  std::uint32_t add_int_constant(std::vector<std::int64_t> dims, DnnDataType type,
                                 std::vector<std::int32_t> data) {
    program_.constants.push_back({std::move(dims), {}, DnnQuant{type, 1.f, 0}, std::move(data)});
    const auto s = kProvisionalConstant + static_cast<std::uint32_t>(program_.constants.size() - 1);
    return s;
  }

  Status lower(const Node& node) {
    const std::string_view op = node.op;
    if (op == aot::op::kQuantizeLinear) return lower_quantize(node);
    if (op == aot::op::kDequantizeLinear) return lower_dequantize(node);
    if (const std::optional<Int8Plan> plan = int8_plan(node)) return lower_int8(node, *plan);
    if (is_one_dimensional(node)) return lower_one_dimensional(node);
    if (op == aot::op::kConv2d || op == aot::op::kConv3d) return lower_conv(node);
    if (op == aot::op::kMatmul && !is_constant(node.inputs[1])) return lower_batch_matmul(node);
    if (op == aot::op::kLinear || op == aot::op::kMatmul) return lower_matmul(node);
    if (op == aot::op::kTranspose) return lower_transpose(node);
    if (op == aot::op::kSlice) return lower_slice(node);
    if (op == aot::op::kGather) return lower_gather(node);
    if (const std::optional<GeluChain> gelu = gelu_chain_starting_at(node)) {
      return lower_gelu(*gelu);
    }
    if (op == aot::op::kReduceMean) {
      const std::optional<LayerNormChain> chain = layer_norm_chain_of(graph_, node);
      if (chain && chain->nodes[0] == &node) return lower_layer_norm_chain(*chain);
      if (is_spatial_mean(graph_, node)) return lower_spatial_mean(node);
    }
    if (op == aot::op::kMaxPool2d || op == aot::op::kAvgPool2d || op == aot::op::kGlobalAvgPool2d ||
        op == aot::op::kMaxPool3d || op == aot::op::kAvgPool3d) {
      return lower_pool(node);
    }
    if (op == aot::op::kPad && padded_avg_pool_of(graph_, node)) {
      return Status();  // the average pool after it takes its padding (lower_pool)
    }
    if (!eltwise_steps(node).empty()) return lower_eltwise(node);
    if (op == aot::op::kSoftmax) {
      Sources sources{&node};
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
      const auto rank = value(node.inputs[0]).shape.size();
      DnnOp dnn{.kind = DnnOpKind::kSoftmax,
                .identifier = {},
                .operands = {src},
                .output = value(node.outputs[0]).shape,
                .ints = {normalized_axis(int_attr(node, "axis", -1), rank)},
                .floats = {}};
      return define(node.outputs[0], emit_named(std::move(dnn), sources, false));
    }
    if (op == aot::op::kConcat) {
      DnnOp dnn{.kind = DnnOpKind::kConcat,
                .identifier = {},
                .operands = {},
                .output = value(node.outputs[0]).shape,
                .ints = {},
                .floats = {}};
      bool blocked = false;
      for (ValueId in : node.inputs) {
        if (is_constant(in)) {
          dnn.operands.push_back(add_constant(value(in).shape, constant_operand_data(graph_, in)));
          continue;
        }
        dnn.operands.push_back(slot(in));
        blocked |= maybe_blocked(slot(in));
      }
      dnn.ints = {normalized_axis(int_attr(node, "axis", 0), dnn.output.size())};
      return define(node.outputs[0], emit_named(std::move(dnn), {&node}, blocked));
    }
    if (op == aot::op::kFlatten || op == aot::op::kReshape) {
      Sources sources{&node};
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
      DnnOp dnn{.kind = DnnOpKind::kReshape,
                .identifier = {},
                .operands = {src},
                .output = value(node.outputs[0]).shape,
                .ints = {},
                .floats = {}};
      return define(node.outputs[0], emit_named(std::move(dnn), sources, false));
    }
    if (op == aot::op::kLayerNorm) return lower_layer_norm(node);
    if (op == aot::op::kBatchNorm) return lower_lone_batch_norm(node);
    if (aot::is_recurrent_op(op)) return lower_recurrent(node);
    return lower_binary(node);
  }

  // A batch norm no convolution absorbed (DenseNet's, after a concat): a
  // depthwise 1x1 convolution whose weight is the per-channel scale and
  // whose bias the shift, so that the activations after it and a residual
  // add fuse as they do after any convolution.
  Status lower_lone_batch_norm(const Node& node) {
    const std::int64_t channels = value(node.inputs[0]).shape[1];
    GLASSBOX_ASSIGN_OR_RETURN(
        ConvWeights weights, batch_norm_as_depthwise(batch_norm_constants(graph_, node), channels));
    // 1x1, stride 1, no dilation or padding, one group per channel.
    return emit_convolution(node.inputs[0], {channels, 1, 1, 1}, std::move(weights),
                            {1, 1, 1, 1, 0, 0, 0, 0, channels}, Sources{&node}, node.outputs[0]);
  }

  Status lower_conv(const Node& node) {
    const aot::Value& w = value(node.inputs[1]);
    ConvWeights weights{w.shape[0], constant_operand_data(graph_, node.inputs[1]),
                        node.inputs.size() > 2
                            ? constant_operand_data(graph_, node.inputs[2])
                            : std::vector<float>(static_cast<std::size_t>(w.shape[0]))};
    Sources sources{&node};
    ValueId out = node.outputs[0];
    if (const Node* bn = sole_user(out); bn != nullptr && bn->op == aot::op::kBatchNorm) {
      GLASSBOX_RETURN_IF_ERROR(fold_batch_norm(batch_norm_constants(graph_, *bn), &weights));
      absorb(*bn);
      sources.push_back(bn);
      out = bn->outputs[0];
    }
    if (node.op == aot::op::kConv3d) {
      return emit_convolution(node.inputs[0], w.shape, std::move(weights), conv3d_ints(node),
                              std::move(sources), out);
    }
    const std::array<std::int64_t, 2> stride = int_pair(node, "stride", {1, 1});
    const std::array<std::int64_t, 2> dilation = int_pair(node, "dilation", {1, 1});
    const std::array<std::int64_t, 4> pads = padding_tlbr(node);
    return emit_convolution(node.inputs[0], w.shape, std::move(weights),
                            {stride[0], stride[1], dilation[0], dilation[1], pads[0], pads[1],
                             pads[2], pads[3], int_attr(node, "groups", 1)},
                            std::move(sources), out);
  }

  // An operator of one operand and no floats.
  static DnnOp one_operand(DnnOpKind kind, std::uint32_t src, std::vector<std::int64_t> output,
                           std::vector<std::int64_t> ints = {}) {
    return DnnOp{.kind = kind,
                 .identifier = {},
                 .operands = {src},
                 .output = std::move(output),
                 .ints = std::move(ints),
                 .floats = {}};
  }

  // conv1d, max_pool1d, avg_pool1d: the 2-D primitive over [N, C, 1, L]
  // between two reshapes (a reshape reads plain order: the primitive's
  // output is reordered to plain first when oneDNN blocked it). Every
  // operator maps to the node, and a convolution's to the batch norm it
  // folds and the activations it fuses.
  Status lower_one_dimensional(const Node& node) {
    const bool is_conv = node.op == aot::op::kConv1d;
    Sources sources{&node};
    ValueId out = node.outputs[0];
    const Node two = as_2d(node);
    std::optional<ConvWeights> weights;
    std::vector<std::int64_t> weight_shape;
    std::vector<EltwiseStep> steps;
    if (is_conv) {
      const aot::Value& w = value(node.inputs[1]);
      weight_shape = with_unit_height(w.shape);
      weights = ConvWeights{w.shape[0], constant_operand_data(graph_, node.inputs[1]),
                            node.inputs.size() > 2
                                ? constant_operand_data(graph_, node.inputs[2])
                                : std::vector<float>(static_cast<std::size_t>(w.shape[0]))};
      if (const Node* bn = sole_user(out); bn != nullptr && bn->op == aot::op::kBatchNorm) {
        GLASSBOX_RETURN_IF_ERROR(fold_batch_norm(batch_norm_constants(graph_, *bn), &*weights));
        absorb(*bn);
        sources.push_back(bn);
        out = bn->outputs[0];
      }
      absorb_activations(&out, &sources, &steps);
    }
    const std::string name = joined_names(sources);
    const std::vector<std::int64_t> in4 = with_unit_height(value(node.inputs[0]).shape);
    const std::vector<std::int64_t> out4 = with_unit_height(value(out).shape);
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t x4, emit(one_operand(DnnOpKind::kReshape, src, in4),
                                                     sources, name + ".as_2d", false));
    DnnOp dnn = one_operand(DnnOpKind::kPooling, x4, out4);
    if (is_conv) {
      GLASSBOX_ASSIGN_OR_RETURN(
          dnn.operands[0],
          emit(one_operand(DnnOpKind::kReorder, x4, in4,
                           {static_cast<std::int64_t>(DnnReorderTarget::kConsumer)}),
               sources, name + ".reorder", true));
      const std::array<std::int64_t, 2> stride = int_pair(two, "stride", {1, 1});
      const std::array<std::int64_t, 2> dilation = int_pair(two, "dilation", {1, 1});
      const std::array<std::int64_t, 4> pads = padding_tlbr(two);
      dnn.kind = DnnOpKind::kConvolution;
      dnn.operands.push_back(add_constant(std::move(weight_shape), std::move(weights->weight)));
      dnn.operands.push_back(add_constant({weights->out_channels}, std::move(weights->bias)));
      dnn.ints = {stride[0],
                  stride[1],
                  dilation[0],
                  dilation[1],
                  pads[0],
                  pads[1],
                  pads[2],
                  pads[3],
                  int_attr(node, "groups", 1),
                  0};
      append_post_ops(steps, &dnn);
    } else {
      const std::optional<PoolGeometry> g = pool_geometry(graph_, node);
      DnnPooling alg = DnnPooling::kMax;
      if (node.op == aot::op::kAvgPool1d) {
        alg = int_attr(node, "count_include_pad", 1) != 0 ? DnnPooling::kAvgIncludePadding
                                                          : DnnPooling::kAvgExcludePadding;
      }
      dnn.ints = {static_cast<std::int64_t>(alg),
                  g->kernel[0],
                  g->kernel[1],
                  g->stride[0],
                  g->stride[1],
                  g->dilation[0],
                  g->dilation[1],
                  g->pad_begin[0],
                  g->pad_begin[1],
                  g->pad_end[0],
                  g->pad_end[1]};
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t y4, emit(std::move(dnn), sources, name, is_conv));
    if (maybe_blocked(y4)) {
      GLASSBOX_ASSIGN_OR_RETURN(
          y4, emit(one_operand(DnnOpKind::kReorder, y4, out4,
                               {static_cast<std::int64_t>(DnnReorderTarget::kPlain)}),
                   sources, name + ".to_plain", false));
    }
    return define(out, emit(one_operand(DnnOpKind::kReshape, y4, value(out).shape), sources,
                            name + ".as_1d", false));
  }

  // A convolution of `input` producing `out`, after what `sources` already
  // absorbed, with a residual add and the activations after it fused.
  // `geometry` is stride, dilation, pads begin and pads end (two each, or
  // three for a conv3d) and groups, as DnnOp.ints takes them.
  Status emit_convolution(ValueId input, std::vector<std::int64_t> weight_shape,
                          ConvWeights weights, std::vector<std::int64_t> geometry, Sources sources,
                          ValueId out) {
    const std::optional<ValueId> residual = absorb_residual(&out, &sources);
    std::vector<EltwiseStep> steps;
    absorb_activations(&out, &sources, &steps);
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, conv_source(input, sources));
    const std::int64_t out_channels = weight_shape[0];
    DnnOp dnn{.kind = DnnOpKind::kConvolution,
              .identifier = {},
              .operands = {src, add_constant(std::move(weight_shape), std::move(weights.weight)),
                           add_constant({out_channels}, std::move(weights.bias))},
              .output = value(out).shape,
              .ints = std::move(geometry),
              .floats = {}};
    dnn.ints.push_back(residual ? 1 : 0);
    if (residual) dnn.operands.push_back(slot(*residual));
    append_post_ops(steps, &dnn);
    return define(out, emit_named(std::move(dnn), sources, true));
  }

  Status lower_matmul(const Node& node) {
    const aot::Value& w = value(node.inputs[1]);
    const bool linear = node.op == aot::op::kLinear;
    const std::int64_t k = linear ? w.shape[1] : w.shape[0];
    const std::int64_t n = linear ? w.shape[0] : w.shape[1];
    const std::vector<float> w_data = constant_operand_data(graph_, node.inputs[1]);
    std::vector<float> kn(w_data);
    if (linear) {  // [N, K] -> [K, N]
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t c = 0; c < k; ++c) {
          kn[static_cast<std::size_t>(c * n + r)] = w_data[static_cast<std::size_t>(r * k + c)];
        }
      }
    }
    std::vector<float> bias(static_cast<std::size_t>(n), 0.f);
    if (node.inputs.size() > 2) bias = constant_operand_data(graph_, node.inputs[2]);
    Sources sources{&node};
    ValueId out = node.outputs[0];
    if (const Node* add = sole_user(out); add != nullptr && add->op == aot::op::kAdd) {
      const ValueId other = add->inputs[0] == out ? add->inputs[1] : add->inputs[0];
      const aot::Value& b = value(other);
      bool per_column = is_constant(other) && !b.data.empty() && b.numel() == n &&
                        !b.shape.empty() && b.shape.back() == n &&
                        b.shape.size() <= value(out).shape.size() &&
                        value(add->outputs[0]).shape == value(out).shape;
      if (per_column) {
        for (std::size_t i = 0; i < bias.size(); ++i) bias[i] += b.data[i];
        absorb(*add);
        sources.push_back(add);
        out = add->outputs[0];
      }
    }
    const std::optional<ValueId> residual = absorb_residual(&out, &sources);
    std::vector<EltwiseStep> steps;
    absorb_activations(&out, &sources, &steps);
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
    std::optional<std::uint32_t> sum;
    if (residual) {  // added in plain order, as the matmul writes
      GLASSBOX_ASSIGN_OR_RETURN(sum, plain(*residual, sources));
    }
    DnnOp dnn{
        .kind = DnnOpKind::kMatmul,
        .identifier = {},
        .operands = {src, add_constant({k, n}, std::move(kn)), add_constant({n}, std::move(bias))},
        .output = value(out).shape,
        .ints = {},
        .floats = {}};
    if (sum) dnn.operands.push_back(*sum);
    append_post_ops(steps, &dnn);
    return define(out, emit_named(std::move(dnn), sources, false));
  }

  // Both operands computed: oneDNN's matmul over two plain memories, with
  // the activations that follow fused as post-ops.
  Status lower_batch_matmul(const Node& node) {
    Sources sources{&node};
    ValueId out = node.outputs[0];
    std::vector<EltwiseStep> steps;
    absorb_activations(&out, &sources, &steps);
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t a, plain(node.inputs[0], sources));
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t b, plain(node.inputs[1], sources));
    DnnOp dnn{.kind = DnnOpKind::kBatchMatmul,
              .identifier = {},
              .operands = {a, b},
              .output = value(out).shape,
              .ints = {},
              .floats = {}};
    append_post_ops(steps, &dnn);
    return define(out, emit_named(std::move(dnn), sources, false));
  }

  // The GELU chain whose first node (x / sqrt 2) is `node`, if any.
  std::optional<GeluChain> gelu_chain_starting_at(const Node& node) const {
    if (node.op != aot::op::kDiv && node.op != aot::op::kMul) return std::nullopt;
    const Node* erf = sole_user(node.outputs[0]);
    if (erf == nullptr || erf->op != aot::op::kErf) return std::nullopt;
    std::optional<GeluChain> chain = gelu_chain_of_erf(graph_, *erf);
    if (!chain || chain->scale != &node) return std::nullopt;
    return chain;
  }

  // One gelu_erf eltwise on x for the chain's five nodes (and the
  // activations after it).
  Status lower_gelu(const GeluChain& chain) {
    Sources sources{chain.scale, chain.erf, chain.add, chain.mul, chain.half};
    for (const Node* n : {chain.erf, chain.add, chain.mul, chain.half}) absorb(*n);
    return lower_eltwise_chain(chain.x, chain.out, std::move(sources), {{DnnEltwise::kGeluErf}});
  }

  Status lower_slice(const Node& node) {
    Sources sources{&node};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
    std::vector<std::int64_t> ints = ints_attr(node, "starts");
    const std::vector<std::int64_t> steps = ints_attr(node, "steps");
    ints.insert(ints.end(), steps.begin(), steps.end());
    return define(node.outputs[0], emit_slice(src, std::move(ints), value(node.outputs[0]).shape,
                                              sources, node.name));
  }

  StatusOr<std::uint32_t> emit_slice(std::uint32_t src, std::vector<std::int64_t> starts_steps,
                                     std::vector<std::int64_t> shape, const Sources& sources,
                                     std::string string_id) {
    DnnOp dnn{.kind = DnnOpKind::kSlice,
              .identifier = {},
              .operands = {src},
              .output = std::move(shape),
              .ints = std::move(starts_steps),
              .floats = {}};
    return emit(std::move(dnn), sources, std::move(string_id), false);
  }

  // data[..., index, ...] along `axis`: a slice of size 1 there, then (for
  // a 0-d index) a reshape dropping that dim; both mapped to the gather.
  Status lower_gather(const Node& node) {
    Sources sources{&node};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
    const std::vector<std::int64_t>& in = value(node.inputs[0]).shape;
    const auto gather = std::get<ConstantGather>(constant_gather(graph_, node));
    std::vector<std::int64_t> ints(2 * in.size(), 0);
    for (std::size_t i = 0; i < in.size(); ++i) ints[in.size() + i] = 1;
    ints[gather.axis] = gather.index;
    std::vector<std::int64_t> picked = in;
    picked[gather.axis] = 1;
    const std::vector<std::int64_t>& out = value(node.outputs[0]).shape;
    if (out == picked) {
      return define(node.outputs[0], emit_slice(src, std::move(ints), out, sources, node.name));
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t slice, emit_slice(src, std::move(ints), picked, sources,
                                                              node.name + ".slice"));
    DnnOp dnn{.kind = DnnOpKind::kReshape,
              .identifier = {},
              .operands = {slice},
              .output = out,
              .ints = {},
              .floats = {}};
    return define(node.outputs[0], emit_named(std::move(dnn), sources, false));
  }

  // One kRnn operator for the whole layer, its weights in oneDNN's gate
  // order (recurrent_lowering.h).
  Status lower_recurrent(const Node& node) {
    RecurrentPlan plan = plan_recurrent(graph_, node);
    Sources sources{&node};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t x, plain(node.inputs[0], sources));
    DnnOp dnn{.kind = DnnOpKind::kRnn,
              .identifier = {},
              .operands = {x, add_constant(plan.w_layer.dims, std::move(plan.w_layer.data)),
                           add_constant(plan.w_iter.dims, std::move(plan.w_iter.data)),
                           add_constant(plan.bias.dims, std::move(plan.bias.data))},
              .output = value(node.outputs[0]).shape,
              .ints = plan.ints,
              .floats = {}};
    if (!plan.peephole.data.empty()) {
      dnn.operands.push_back(add_constant(plan.peephole.dims, std::move(plan.peephole.data)));
    }
    for (ValueId state : {plan.initial_h, plan.initial_c}) {
      if (!state.is_set()) continue;
      if (is_constant(state)) {
        dnn.operands.push_back(add_constant(value(state).shape, value(state).data));
      } else {
        GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t s, plain(state, sources));
        dnn.operands.push_back(s);
      }
    }
    GLASSBOX_ASSIGN_OR_RETURN(const std::uint32_t y, emit_named(std::move(dnn), sources, false));
    slots_[node.outputs[0].value] = y;
    // y_h (and y_c), delegate outputs even when unread: copies of the
    // layer's final states, mapped to the layer too.
    for (std::size_t k = 1; k < node.outputs.size(); ++k) {
      DnnOp state{.kind = DnnOpKind::kRnnState,
                  .identifier = {},
                  .operands = {y},
                  .output = value(node.outputs[k]).shape,
                  .ints = {static_cast<std::int64_t>(k - 1)},
                  .floats = {}};
      GLASSBOX_RETURN_IF_ERROR(
          define(node.outputs[k],
                 emit(std::move(state), sources, node.name + (k == 1 ? ".y_h" : ".y_c"), false)));
    }
    return Status();
  }

  Status lower_transpose(const Node& node) {
    Sources sources{&node};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(node.inputs[0], sources));
    const std::size_t rank = value(node.inputs[0]).shape.size();
    std::vector<std::int64_t> perm = ints_attr(node, "perm");
    if (perm.empty()) {  // ONNX's default: the dims reversed
      for (std::size_t i = rank; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
    }
    for (std::int64_t& d : perm) d = normalized_axis(d, rank);
    DnnOp dnn{.kind = DnnOpKind::kTranspose,
              .identifier = {},
              .operands = {src},
              .output = value(node.outputs[0]).shape,
              .ints = std::move(perm),
              .floats = {}};
    return define(node.outputs[0], emit_named(std::move(dnn), sources, false));
  }

  Status lower_layer_norm(const Node& node) {
    const std::int64_t c = value(node.inputs[0]).shape.back();
    const std::vector<float> zeros(static_cast<std::size_t>(c), 0.f);
    return emit_layer_norm(node.inputs[0], node.outputs[0], {&node}, value(node.inputs[1]).data,
                           node.inputs.size() > 2 ? value(node.inputs[2]).data : zeros,
                           float_attr(node, "eps").value_or(1e-5));
  }

  // The nine nodes of a LayerNorm written out (before opset 17): one
  // layer normalization mapped to all of them.
  Status lower_layer_norm_chain(const LayerNormChain& chain) {
    Sources sources(std::begin(chain.nodes), std::end(chain.nodes));
    for (std::size_t i = 1; i < std::size(chain.nodes); ++i) absorb(*chain.nodes[i]);
    return emit_layer_norm(chain.x, chain.out, std::move(sources), value(chain.gamma).data,
                           value(chain.beta).data, chain.eps);
  }

  Status emit_layer_norm(ValueId x, ValueId out, const Sources& sources,
                         const std::vector<float>& scale, const std::vector<float>& shift,
                         double eps) {
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t src, plain(x, sources));
    const std::int64_t c = value(x).shape.back();
    DnnOp dnn{.kind = DnnOpKind::kLayerNorm,
              .identifier = {},
              .operands = {src, add_constant({c}, scale), add_constant({c}, shift)},
              .output = value(out).shape,
              .ints = {},
              .floats = {static_cast<float>(eps)}};
    return define(out, emit_named(std::move(dnn), sources, false));
  }

  Status lower_pool(const Node& node) {
    const std::optional<PoolGeometry> g = pool_geometry(graph_, node);
    const std::optional<PaddedAvgPool> padded =
        node.op == aot::op::kAvgPool2d ? padded_avg_pool_of(graph_, node) : std::nullopt;
    if (padded) return lower_padded_avg_pool(*padded, *g);
    DnnPooling alg = DnnPooling::kMax;
    if (node.op == aot::op::kGlobalAvgPool2d) {
      alg = DnnPooling::kAvgExcludePadding;
    } else if (node.op == aot::op::kAvgPool2d || node.op == aot::op::kAvgPool3d) {
      alg = int_attr(node, "count_include_pad", 1) != 0 ? DnnPooling::kAvgIncludePadding
                                                        : DnnPooling::kAvgExcludePadding;
    }
    const std::uint32_t src = slot(node.inputs[0]);
    DnnOp dnn{.kind = DnnOpKind::kPooling,
              .identifier = {},
              .operands = {src},
              .output = value(node.outputs[0]).shape,
              .ints = pooling_ints(alg, *g),
              .floats = {}};
    return define(node.outputs[0], emit_named(std::move(dnn), {&node}, maybe_blocked(src)));
  }

  // An average pool of the zeros a pad added: one pool with that padding,
  // counting it, mapped to both nodes. `g` is the pool's own geometry
  // (over the padded value, no padding of its own).
  Status lower_padded_avg_pool(const PaddedAvgPool& pair, const PoolGeometry& g) {
    const std::uint32_t src = slot(pair.pad->inputs[0]);
    DnnOp dnn{
        .kind = DnnOpKind::kPooling,
        .identifier = {},
        .operands = {src},
        .output = value(pair.pool->outputs[0]).shape,
        .ints = {static_cast<std::int64_t>(DnnPooling::kAvgIncludePadding), g.kernel[0],
                 g.kernel[1], g.stride[0], g.stride[1], 1, 1, pair.pad_begin[0], pair.pad_begin[1],
                 g.pad_end[0] + pair.pad_end[0], g.pad_end[1] + pair.pad_end[1]},
        .floats = {}};
    return define(pair.pool->outputs[0],
                  emit_named(std::move(dnn), {pair.pad, pair.pool}, maybe_blocked(src)));
  }

  // The mean over H and W (D, H and W): a global average pool to
  // [N, C, 1, 1] ([N, C, 1, 1, 1]), then a reshape when the node drops
  // those dims; both mapped to it.
  Status lower_spatial_mean(const Node& node) {
    const std::vector<std::int64_t> in = with_unit_height(value(node.inputs[0]).shape);
    std::vector<std::int64_t> pooled(in.size(), 1);
    pooled[0] = in[0];
    pooled[1] = in[1];
    PoolGeometry window{.dims = in.size() - 2};
    for (std::size_t k = 0; k < window.dims; ++k) {
      window.kernel[k] = in[2 + k];
      window.stride[k] = 1;
    }
    std::uint32_t src = slot(node.inputs[0]);
    if (value(node.inputs[0]).shape.size() == 3) {  // [N, C, L] pools as [N, C, 1, L]
      GLASSBOX_ASSIGN_OR_RETURN(src, plain(node.inputs[0], {&node}));
      GLASSBOX_ASSIGN_OR_RETURN(src, emit(one_operand(DnnOpKind::kReshape, src, in), {&node},
                                          node.name + ".as_2d", false));
    }
    DnnOp pool{.kind = DnnOpKind::kPooling,
               .identifier = {},
               .operands = {src},
               .output = pooled,
               .ints = pooling_ints(DnnPooling::kAvgExcludePadding, window),
               .floats = {}};
    const std::vector<std::int64_t>& out = value(node.outputs[0]).shape;
    if (out == pooled) {
      return define(node.outputs[0], emit_named(std::move(pool), {&node}, maybe_blocked(src)));
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t mean, emit(std::move(pool), {&node},
                                                       node.name + ".pool", maybe_blocked(src)));
    if (maybe_blocked(mean)) {  // a reshape reads plain order
      DnnOp to_plain{.kind = DnnOpKind::kReorder,
                     .identifier = {},
                     .operands = {mean},
                     .output = pooled,
                     .ints = {static_cast<std::int64_t>(DnnReorderTarget::kPlain)},
                     .floats = {}};
      GLASSBOX_ASSIGN_OR_RETURN(mean,
                                emit(std::move(to_plain), {&node}, node.name + ".to_plain", false));
    }
    DnnOp reshape{.kind = DnnOpKind::kReshape,
                  .identifier = {},
                  .operands = {mean},
                  .output = out,
                  .ints = {},
                  .floats = {}};
    return define(node.outputs[0], emit_named(std::move(reshape), {&node}, false));
  }

  Status lower_eltwise(const Node& node) {
    return lower_eltwise_chain(node.inputs[0], node.outputs[0], {&node}, eltwise_steps(node));
  }

  // One eltwise primitive from `x` to `out` (`sources` computed it with
  // `steps`), with the activations after `out` fused too.
  Status lower_eltwise_chain(ValueId x, ValueId out, Sources sources,
                             std::vector<EltwiseStep> steps) {
    absorb_activations(&out, &sources, &steps);
    const std::uint32_t src = slot(x);
    DnnOp dnn{.kind = DnnOpKind::kEltwise,
              .identifier = {},
              .operands = {src},
              .output = value(out).shape,
              .ints = {},
              .floats = {}};
    append_post_ops(steps, &dnn);
    return define(out, emit_named(std::move(dnn), sources, maybe_blocked(src)));
  }

  Status lower_binary(const Node& node) {
    const auto& out_shape = value(node.outputs[0]).shape;
    const bool a_full = value(node.inputs[0]).shape == out_shape && !is_constant(node.inputs[0]);
    const ValueId full = a_full ? node.inputs[0] : node.inputs[1];
    const ValueId other = a_full ? node.inputs[1] : node.inputs[0];
    Sources sources{&node};
    ValueId out = node.outputs[0];
    std::vector<EltwiseStep> steps;
    absorb_activations(&out, &sources, &steps);
    std::uint32_t src1 = 0;
    if (is_constant(other)) {
      src1 = add_constant(value(other).shape, constant_operand_data(graph_, other));
    } else if (value(other).shape == out_shape) {
      src1 = slot(other);
    } else {
      GLASSBOX_ASSIGN_OR_RETURN(src1, plain(other, sources));
    }
    const std::uint32_t src0 = slot(full);
    DnnOp dnn{.kind = DnnOpKind::kBinary,
              .identifier = {},
              .operands = {src0, src1},
              .output = value(out).shape,
              .ints = {static_cast<std::int64_t>(binary_alg(node.op))},
              .floats = {}};
    append_post_ops(steps, &dnn);
    return define(out, emit_named(std::move(dnn), sources, maybe_blocked(src0)));
  }

  const Graph& graph_;
  bool string_ids_;
  aot::DelegateMappingBuilder builder_;
  GraphUses uses_;
  DnnProgram program_;
  std::unordered_map<std::int32_t, std::uint32_t> slots_;
  std::unordered_map<std::uint32_t, bool> blocked_;
  std::unordered_map<std::uint32_t, Sources> producer_sources_;
  std::unordered_map<std::uint32_t, std::uint32_t> plain_copies_;
  std::unordered_map<std::uint32_t, std::uint32_t> consumer_copies_;
  std::unordered_map<std::uint32_t, DnnQuant> slot_quants_;
};

}  // namespace

StatusOr<aot::PreprocessResult> OnednnBackend::preprocess(
    const aot::Graph& subgraph, std::span<const aot::CompileSpec> compile_specs) {
  GLASSBOX_ASSIGN_OR_RETURN(IdentifierMode mode, backends::parse_aot_compile_specs(compile_specs));
  return Lowering(subgraph, mode == IdentifierMode::kString).run();
}

aot::Partitioner make_onednn_partitioner(OnednnBackend& backend) {
  return aot::Partitioner(backend, onednn_supported_ops(),
                          [](const aot::Graph& graph, const aot::Node& node) {
                            return onednn_rejection(graph, node).empty();
                          });
}

Status register_onednn_backend(aot::BackendRegistry& registry) {
  return registry.register_backend(std::make_unique<OnednnBackend>());
}

}  // namespace glassbox::backends::onednn
