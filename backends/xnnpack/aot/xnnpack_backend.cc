#include "backends/xnnpack/aot/xnnpack_backend.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "backends/common/batch_norm_folding.h"
#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "backends/xnnpack/aot/xnnpack_program.h"
#include "backends/xnnpack/aot/xnnpack_recurrent.h"
#include "glassbox/aot/delegate_mapping_builder.h"
#include "glassbox/aot/ops.h"
#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/quantized.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::Node;
using aot::ValueId;
using backends::IdentifierMode;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::uint32_t u32(std::int64_t v) { return static_cast<std::uint32_t>(v); }

// Logical N, C, H, W sit at NHWC byte positions 0, 3, 1, 2.
constexpr std::int64_t kNhwcPosition[4] = {0, 3, 1, 2};

// Both layouts order the bytes alike when the permutation only moves
// size-1 dimensions: C == 1 or H * W (5-D: D * H * W) == 1.
bool layouts_alias(const std::vector<std::int64_t>& dims) {
  if (dims.size() != 4 && dims.size() != 5) return false;
  std::int64_t pixels = 1;
  for (std::size_t i = 2; i < dims.size(); ++i) pixels *= dims[i];
  return dims[1] == 1 || pixels == 1;
}

// A conv3d's "padding" as front, top, left, back, bottom, right (int[3]:
// both sides alike; int[6]: begins then ends); zeros when absent.
std::array<std::int64_t, 6> padding_3d(const Node& node) {
  const std::vector<std::int64_t> p = ints_attr(node, "padding");
  if (p.size() == 3) return {p[0], p[1], p[2], p[0], p[1], p[2]};
  if (p.size() == 6) return {p[0], p[1], p[2], p[3], p[4], p[5]};
  return {};
}

// An int[3] attribute, or all `fallback`.
std::array<std::int64_t, 3> int_triple(const Node& node, std::string_view name,
                                       std::int64_t fallback) {
  const std::vector<std::int64_t> v = ints_attr(node, name);
  if (v.size() == 3) return {v[0], v[1], v[2]};
  return {fallback, fallback, fallback};
}

// XNNPACK's window params of a (de)convolution `node` with a kh x kw
// kernel: pad top, right, bottom, left, kernel h, w, stride h, w,
// dilation h, w.
std::vector<std::uint32_t> window_params(const Node& node, std::int64_t kh, std::int64_t kw) {
  const auto pad = padding_tlbr(node);  // top, left, bottom, right
  const auto stride = int_pair(node, "stride", {1, 1});
  const auto dilation = int_pair(node, "dilation", {1, 1});
  return {u32(pad[0]), u32(pad[3]),    u32(pad[2]),    u32(pad[1]),      u32(kh),
          u32(kw),     u32(stride[0]), u32(stride[1]), u32(dilation[0]), u32(dilation[1])};
}

// The kind of a one-input elementwise node other than relu / clamp (those
// become kClamp with a range); nullopt for other ops.
std::optional<XnnOpKind> unary_kind(const Node& node) {
  static constexpr std::pair<std::string_view, XnnOpKind> kKinds[] = {
      {aot::op::kHardswish, XnnOpKind::kHardswish},
      {aot::op::kSigmoid, XnnOpKind::kSigmoid},
      {aot::op::kAbs, XnnOpKind::kAbs},
      {aot::op::kRound, XnnOpKind::kBankersRounding},
      {aot::op::kCeil, XnnOpKind::kCeiling},
      {aot::op::kFloor, XnnOpKind::kFloor},
      {aot::op::kNeg, XnnOpKind::kNegate},
      {aot::op::kPow, XnnOpKind::kSquare},
      {aot::op::kSqrt, XnnOpKind::kSquareRoot},
      {aot::op::kElu, XnnOpKind::kElu},
      {aot::op::kLeakyRelu, XnnOpKind::kLeakyRelu},
      {aot::op::kRelu, XnnOpKind::kClamp},
      {aot::op::kClamp, XnnOpKind::kClamp},
      {aot::op::kErf, XnnOpKind::kErf},
  };
  for (const auto& [name, kind] : kKinds) {
    if (node.op == name) return kind;
  }
  return std::nullopt;
}

// One preprocess call: walks the subgraph once, emitting operators and
// map entries.
class Lowering {
 public:
  Lowering(const aot::Graph& graph, bool string_ids)
      : graph_(graph), string_ids_(string_ids), builder_(!string_ids), uses_(graph) {}

  StatusOr<aot::PreprocessResult> run() {
    for (std::size_t i = 0; i < graph_.inputs.size(); ++i) {
      const aot::Value* v = graph_.find_value(graph_.inputs[i]);
      if (v->dtype == ScalarType::kChar || v->dtype == ScalarType::kByte) {
        // An int8 input: its quantization is its dequantize's.
        for (const Node* user : uses_.users(v->id)) {
          const std::optional<TensorQuant> q = per_tensor_quant(graph_, *user);
          if (q && user->op == aot::op::kDequantizeLinear) quant_of_[v->id.value] = *q;
        }
        if (!quant_of_.contains(v->id.value)) {
          return Status(Error::kNotSupported, "XNNPACK backend: int8 input '" + v->name +
                                                  "' has no per-tensor dequantize_linear");
        }
      }
      program_.inputs.push_back(desc_of(v->id, XnnLayout::kLogical));
      slot_of(XnnLayout::kLogical)[v->id.value] = static_cast<std::uint32_t>(i);
    }

    for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (uses_.absorbed(n)) continue;
      const Node& node = graph_.nodes[n];
      if (const std::string why = xnnpack_rejection(graph_, node);
          !why.empty() && node.op != aot::op::kBatchNorm) {
        return Status(Error::kNotSupported, "XNNPACK backend cannot lower node '" + node.name +
                                                "' (op '" + node.op + "'): " + why);
      }
      if (node.op == aot::op::kDequantizeLinear) {
        // A constant's is read by its users (weights, float constants); an
        // activation's becomes an operator only when a float op reads it.
        if (!is_constant(node.inputs[0])) {
          dequantized_[node.outputs[0].value] = {node.inputs[0], &node};
          producers_[node.outputs[0].value] = {&node};
        }
        continue;
      }
      if (node.op == aot::op::kQuantizeLinear) {
        GLASSBOX_RETURN_IF_ERROR(lower_quantize(node));
        continue;
      }
      if (int8_reshape(graph_, node)) {
        GLASSBOX_RETURN_IF_ERROR(lower_int8_reshape(node));
        continue;
      }
      GLASSBOX_ASSIGN_OR_RETURN(const bool int8, lower_quantized(node));
      if (!int8) GLASSBOX_RETURN_IF_ERROR(lower(node));
    }
    for (ValueId out : graph_.outputs) {
      auto producer = producers_.find(out.value);
      if (producer == producers_.end()) {
        return Status(Error::kNotSupported, "XNNPACK backend: output '" + value(out).name +
                                                "' is not computed by the delegate");
      }
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t slot,
                                slot_for(out, XnnLayout::kLogical, producer->second));
      program_.outputs.push_back(slot);
    }
    number_slots(program_.inputs.size(), program_.constants.size(), &program_.ops,
                 &program_.outputs);
    return aot::PreprocessResult{encode_xnn_program(program_), builder_.get_delegate_mapping()};
  }

 private:
  using Sources = std::vector<const Node*>;

  bool is_constant(ValueId id) const { return value(id).kind == aot::ValueKind::kConstant; }

  // The slot of graph constant `id` read in `layout`: a 0-d constant is
  // stored as [1]; for NHWC, as 4-D with leading 1s, its data permuted.
  std::uint32_t constant_slot(ValueId id, XnnLayout layout) {
    const auto key = std::make_pair(id.value, layout);
    if (auto it = constant_slots_.find(key); it != constant_slots_.end()) return it->second;
    const aot::Value& v = value(id);
    XnnConstant c{{v.shape.empty() ? std::vector<std::int64_t>{1} : v.shape, layout},
                  constant_floats(graph_, id).value_or(std::vector<float>{})};
    if (layout == XnnLayout::kNhwc) {
      c.desc.dims.insert(c.desc.dims.begin(), 4 - c.desc.dims.size(), 1);
      const std::int64_t n = c.desc.dims[0], ch = c.desc.dims[1],
                         hw = c.desc.dims[2] * c.desc.dims[3];
      const std::vector<float> data = c.data;
      for (std::int64_t b = 0; b < n; ++b) {
        for (std::int64_t k = 0; k < ch; ++k) {
          for (std::int64_t i = 0; i < hw; ++i) {
            c.data[static_cast<std::size_t>((b * hw + i) * ch + k)] =
                data[static_cast<std::size_t>((b * ch + k) * hw + i)];
          }
        }
      }
    }
    program_.constants.push_back(std::move(c));
    return constant_slots_[key] =
               kProvisionalConstant + static_cast<std::uint32_t>(program_.constants.size() - 1);
  }

  // The slot of `id` as an operand in `layout`: a constant, or a computed
  // value (see slot_for).
  StatusOr<std::uint32_t> operand_slot(ValueId id, XnnLayout layout, const Sources& needed_by) {
    if (is_constant(id) || quantized_constant(graph_, id)) return constant_slot(id, layout);
    return slot_for(id, layout, needed_by);
  }

  std::unordered_map<std::int32_t, std::uint32_t>& slot_of(XnnLayout layout) {
    return layout == XnnLayout::kNhwc ? nhwc_slots_ : logical_slots_;
  }

  const aot::Value& value(ValueId id) const { return *graph_.find_value(id); }

  const Node* sole_user(ValueId id) const { return uses_.sole_user(id); }
  void absorb(const Node& node) { uses_.absorb(node); }

  // Follows relu / clamp users of `*out`, narrowing [*min, *max].
  void absorb_activations(ValueId* out, Sources* sources, float* min, float* max) {
    while (const Node* user = sole_user(*out)) {
      const std::optional<ActivationRange> range = activation_range(*user);
      if (!range || !xnnpack_supports(graph_, *user)) return;
      absorb(*user);
      sources->push_back(user);
      *min = std::max(*min, range->min);
      *max = std::min(*max, range->max);
      *out = user->outputs[0];
    }
  }

  XnnLayout current_layout(ValueId id) const {
    return nhwc_slots_.contains(id.value) ? XnnLayout::kNhwc : XnnLayout::kLogical;
  }

  // The slot holding `id` in `layout`, converting (an operator mapped to
  // `needed_by`) when only the other layout exists.
  StatusOr<std::uint32_t> slot_for(ValueId id, XnnLayout layout, const Sources& needed_by) {
    if (auto held = unit_nhwc_slots_.find(id.value);
        held != unit_nhwc_slots_.end() && !logical_slots_.contains(id.value)) {
      GLASSBOX_RETURN_IF_ERROR(unit_height_to_logical(id, held->second, needed_by));
    }
    if (auto dq = dequantized_.find(id.value); dq != dequantized_.end() &&
                                               !logical_slots_.contains(id.value) &&
                                               !nhwc_slots_.contains(id.value)) {
      GLASSBOX_RETURN_IF_ERROR(materialize_dequantize(id, dq->second, layout));
    }
    auto& wanted = slot_of(layout);
    if (auto it = wanted.find(id.value); it != wanted.end()) return it->second;
    const XnnLayout other_layout =
        layout == XnnLayout::kNhwc ? XnnLayout::kLogical : XnnLayout::kNhwc;
    auto& other = slot_of(other_layout);
    auto it = other.find(id.value);
    const aot::Value& v = value(id);
    if (it == other.end()) {
      return Status(Error::kNotSupported, "XNNPACK backend: node '" + needed_by[0]->name +
                                              "' reads '" + v.name +
                                              "', which is not computed in the delegate");
    }
    if (layouts_alias(v.shape)) return wanted[id.value] = it->second;
    XnnOp op;
    op.kind = layout == XnnLayout::kNhwc ? XnnOpKind::kNchwToNhwc : XnnOpKind::kNhwcToNchw;
    op.operands = {it->second};
    op.output = desc_of(id, layout);
    const std::string name = v.name.empty() ? "v" + std::to_string(id.value) : v.name;
    GLASSBOX_RETURN_IF_ERROR(emit(std::move(op), needed_by,
                                  name + (layout == XnnLayout::kNhwc ? ".to_nhwc" : ".to_nchw")));
    return wanted[id.value] = last_slot();
  }

  // 1-D operators (conv1d, max_pool1d, avg_pool1d) run as their 2-D form
  // of height 1. Their [N, C, L] operand as NHWC [N, 1, L, C]: from the
  // logical slot, a reshape to [N, C, 1, L] and a layout conversion, both
  // mapped to `needed_by`.
  StatusOr<std::uint32_t> unit_height_nhwc(ValueId id, const Sources& needed_by) {
    if (auto it = unit_nhwc_slots_.find(id.value); it != unit_nhwc_slots_.end()) {
      return it->second;
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(id, XnnLayout::kLogical, needed_by));
    const std::vector<std::int64_t> dims = with_unit_height(value(id).shape);
    GLASSBOX_RETURN_IF_ERROR(
        emit_step(XnnOpKind::kCopy, in, {dims, XnnLayout::kLogical}, needed_by, id, ".as_2d"));
    GLASSBOX_RETURN_IF_ERROR(emit_step(XnnOpKind::kNchwToNhwc, last_slot(),
                                       {dims, XnnLayout::kNhwc}, needed_by, id, ".to_nhwc"));
    return unit_nhwc_slots_[id.value] = last_slot();
  }

  // The way back for a reader of the logical [N, C, L] (mapped, as any
  // layout conversion, to that reader).
  Status unit_height_to_logical(ValueId id, std::uint32_t held, const Sources& needed_by) {
    GLASSBOX_RETURN_IF_ERROR(emit_step(XnnOpKind::kNhwcToNchw, held,
                                       {with_unit_height(value(id).shape), XnnLayout::kLogical},
                                       needed_by, id, ".to_nchw"));
    GLASSBOX_RETURN_IF_ERROR(emit_step(XnnOpKind::kCopy, last_slot(),
                                       desc_of(id, XnnLayout::kLogical), needed_by, id, ".as_1d"));
    logical_slots_[id.value] = last_slot();
    return Status();
  }

  // One operator of `kind` from slot `in` to `output`, a step of moving
  // value `id` between forms, named after it with `suffix`.
  Status emit_step(XnnOpKind kind, std::uint32_t in, XnnTensorDesc output, const Sources& needed_by,
                   ValueId id, const char* suffix) {
    XnnOp op;
    op.kind = kind;
    op.operands = {in};
    op.output = std::move(output);
    const std::string name =
        value(id).name.empty() ? "v" + std::to_string(id.value) : value(id).name;
    return emit(std::move(op), needed_by, name + suffix);
  }

  // Emits `op` (a 1-D operator's 2-D form) writing [N, C, L] value `out`
  // as NHWC [N, 1, L, C].
  Status emit_unit_height(XnnOp op, const Sources& sources, ValueId out) {
    op.output = {with_unit_height(value(out).shape), XnnLayout::kNhwc};
    GLASSBOX_RETURN_IF_ERROR(emit(std::move(op), sources));
    unit_nhwc_slots_[out.value] = last_slot();
    producers_[out.value] = sources;
    return Status();
  }

  std::uint32_t last_slot() const {
    return static_cast<std::uint32_t>(program_.inputs.size() + program_.ops.size() - 1);
  }

  Status emit(XnnOp op, const Sources& sources, std::string string_id = {}) {
    std::optional<aot::DelegateDebugIdentifier> identifier;
    if (string_ids_) {
      if (string_id.empty()) {
        for (const Node* n : sources) string_id += (string_id.empty() ? "" : "+") + n->name;
      }
      identifier = std::move(string_id);
    }
    GLASSBOX_ASSIGN_OR_RETURN(op.identifier,
                              builder_.insert_delegate_mapping_entry(sources, identifier));
    program_.ops.push_back(std::move(op));
    return Status();
  }

  // Emits an operator computing graph value `out`.
  Status emit_value(XnnOp op, const Sources& sources, ValueId out, XnnLayout layout) {
    op.output = desc_of(out, layout);
    GLASSBOX_RETURN_IF_ERROR(emit(std::move(op), sources));
    define(out, layout, sources);
    return Status();
  }

  // The last operator computed graph value `out` for `sources`.
  void define(ValueId out, XnnLayout layout, const Sources& sources) {
    slot_of(layout)[out.value] = last_slot();
    producers_[out.value] = sources;
  }

  // The slot of a constant scalar, stored once per value and layout.
  std::uint32_t scalar_slot(float v, XnnLayout layout) {
    const auto key = std::make_pair(std::bit_cast<std::uint32_t>(v), layout);
    if (auto it = scalar_slots_.find(key); it != scalar_slots_.end()) return it->second;
    program_.constants.push_back(
        {{layout == XnnLayout::kNhwc ? std::vector<std::int64_t>{1, 1, 1, 1}
                                     : std::vector<std::int64_t>{1},
          layout},
         {v}});
    return scalar_slots_[key] =
               kProvisionalConstant + static_cast<std::uint32_t>(program_.constants.size() - 1);
  }

  Status lower(const Node& node) {
    const std::string_view op = node.op;
    if (op == aot::op::kConv2d || op == aot::op::kConv1d) return lower_conv(node);
    if (op == aot::op::kConv3d) return lower_conv3d(node);
    if (op == aot::op::kLinear || op == aot::op::kMatmul) return lower_fully_connected(node);
    if (op == aot::op::kMaxPool2d || op == aot::op::kAvgPool2d || op == aot::op::kMaxPool1d ||
        op == aot::op::kAvgPool1d) {
      return lower_pool(node);
    }
    if (op == aot::op::kGlobalAvgPool2d) {
      Sources sources{&node};
      XnnOp x;
      x.kind = XnnOpKind::kGlobalAveragePooling;
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                                slot_for(node.inputs[0], XnnLayout::kNhwc, sources));
      x.operands = {in};
      x.floats = {-kInf, kInf};
      // [N, C, 1, 1]: the same bytes in both layouts.
      return emit_value(std::move(x), sources, node.outputs[0], XnnLayout::kLogical);
    }
    if (op == aot::op::kAdd || op == aot::op::kSub || op == aot::op::kMul || op == aot::op::kDiv ||
        op == aot::op::kMin || op == aot::op::kMax) {
      return lower_binary(node);
    }
    if (unary_kind(node)) return lower_unary(node);
    if (op == aot::op::kHardsigmoid) return lower_hardsigmoid(node);
    if (op == aot::op::kConvTranspose2d) return lower_conv_transpose(node);
    if (op == aot::op::kPrelu) return lower_prelu(node);
    if (op == aot::op::kPad) return lower_pad(node);
    if (op == aot::op::kReduceMean) return lower_mean(node);
    if (op == aot::op::kDepthToSpace || op == aot::op::kResize) {
      Sources sources{&node};
      XnnOp x;
      if (op == aot::op::kDepthToSpace) {
        x.kind = XnnOpKind::kDepthToSpace;
        x.ints = {u32(int_attr(node, "blocksize", 1))};
      } else {
        x.kind = XnnOpKind::kResizeBilinear;
        x.ints = {string_attr(node, "coordinate_transformation_mode", "") == "align_corners" ? 1u
                                                                                             : 0u};
      }
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                                slot_for(node.inputs[0], XnnLayout::kNhwc, sources));
      x.operands = {in};
      return emit_value(std::move(x), sources, node.outputs[0], XnnLayout::kNhwc);
    }
    if (op == aot::op::kReshape) {
      if (const Node* t = sole_user(node.outputs[0]); t != nullptr) {
        if (const auto shuffle = channel_shuffle_of(graph_, *t);
            shuffle && shuffle->split == &node) {
          return lower_channel_shuffle(*t, *shuffle);
        }
      }
    }
    if (op == aot::op::kSlice) return lower_slice(node);
    if (op == aot::op::kGather) return lower_gather(node);
    if (op == aot::op::kTranspose) return lower_transpose(node);
    if (op == aot::op::kLayerNorm) return lower_layer_norm(node);
    if (op == aot::op::kSoftmax || op == aot::op::kFlatten || op == aot::op::kReshape) {
      return lower_logical(node, op == aot::op::kSoftmax ? XnnOpKind::kSoftmax : XnnOpKind::kCopy,
                           1);
    }
    if (op == aot::op::kConcat) return lower_concat(node);
    if (op == aot::op::kBatchNorm) return lower_lone_batch_norm(node);
    if (aot::is_recurrent_op(op)) return lower_recurrent(node);
    return Status(Error::kNotSupported,
                  "XNNPACK backend cannot lower node '" + node.name + "' (op '" + node.op + "')");
  }

  // The whole layer as one operator (format 1.7): x and the initial
  // states (constants when the model leaves them out) are its operands.
  Status lower_recurrent(const Node& node) {
    Sources sources{&node};
    XnnOp op = recurrent_op(graph_, node);
    const std::size_t states = node.op == aot::op::kLstm ? 2 : 1;
    for (std::size_t i : {std::size_t{0}, std::size_t{5}, std::size_t{6}}) {
      if (i == 6 && states == 1) break;
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t slot,
                                operand_slot(node.inputs[i], XnnLayout::kLogical, sources));
      op.operands.push_back(slot);
    }
    GLASSBOX_RETURN_IF_ERROR(
        emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kLogical));
    // Y_h (and Y_c): written by the layer, under its identifier.
    const std::uint32_t layer = last_slot();
    for (std::uint32_t which = 0; which + 1 < node.outputs.size(); ++which) {
      XnnOp state;
      state.kind = XnnOpKind::kRecurrentState;
      state.operands = {layer};
      state.ints = {which};
      state.output = desc_of(node.outputs[which + 1], XnnLayout::kLogical);
      state.identifier = program_.ops.back().identifier;
      program_.ops.push_back(std::move(state));
      define(node.outputs[which + 1], XnnLayout::kLogical, sources);
    }
    return Status();
  }

  // A batch norm no convolution absorbed (DenseNet's, after a concat): a
  // depthwise 1x1 convolution whose weight is the per-channel scale and
  // whose bias the shift, with the activations after it fused.
  Status lower_lone_batch_norm(const Node& bn) {
    const std::int64_t channels = value(bn.inputs[0]).shape[1];
    GLASSBOX_ASSIGN_OR_RETURN(ConvWeights weights,
                              batch_norm_as_depthwise(batch_norm_constants(graph_, bn), channels));
    // No padding, 1x1 kernel, stride 1, dilation 1; groups = channels of
    // one input and one output channel each.
    return emit_convolution(bn.inputs[0], {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, u32(channels), 1, 1},
                            weights.weight, weights.bias, Sources{&bn}, bn.outputs[0]);
  }

  // A convolution's weights and bias (zeros when it has none), with the
  // batch norm that is its output's only reader folded in: absorbed, added
  // to `sources`, and `*out` moved to its output.
  StatusOr<ConvWeights> folded_weights(const Node& conv, Sources* sources, ValueId* out) {
    const aot::Value& w = value(conv.inputs[1]);
    ConvWeights weights{w.shape[0], *constant_floats(graph_, w.id), {}};
    if (conv.inputs.size() == 3) {
      weights.bias = *constant_floats(graph_, conv.inputs[2]);
    } else {
      weights.bias.assign(static_cast<std::size_t>(w.shape[0]), 0.f);
    }
    if (const Node* bn = sole_user(*out); bn != nullptr && bn->op == aot::op::kBatchNorm) {
      GLASSBOX_RETURN_IF_ERROR(fold_batch_norm(batch_norm_constants(graph_, *bn), &weights));
      absorb(*bn);
      sources->push_back(bn);
      *out = bn->outputs[0];
    }
    return weights;
  }

  Status lower_conv(const Node& conv) {
    Sources sources{&conv};
    const aot::Value& w = value(conv.inputs[1]);
    ValueId out = conv.outputs[0];
    GLASSBOX_ASSIGN_OR_RETURN(ConvWeights weights, folded_weights(conv, &sources, &out));
    const std::int64_t groups = int_attr(conv, "groups", 1);
    // A conv1d's weights [O, C/g, K] are [O, C/g, 1, K] (as_2d).
    const std::vector<std::int64_t> w4 = with_unit_height(w.shape);
    const std::int64_t oc = w4[0], gic = w4[1], kh = w4[2], kw = w4[3];
    std::vector<std::uint32_t> ints =
        window_params(conv.op == aot::op::kConv1d ? as_2d(conv) : conv, kh, kw);
    ints.insert(ints.end(), {u32(groups), u32(gic), u32(oc / groups)});
    // OIHW -> XNNPACK's [G][GOC][KH][KW][GIC]: groups are already the
    // outermost block of O in PyTorch's layout, so only I moves inward.
    std::vector<float> kernel;
    kernel.reserve(weights.weight.size());
    for (std::int64_t o = 0; o < oc; ++o) {
      for (std::int64_t y = 0; y < kh; ++y) {
        for (std::int64_t z = 0; z < kw; ++z) {
          for (std::int64_t i = 0; i < gic; ++i) {
            kernel.push_back(
                weights.weight[static_cast<std::size_t>(((o * gic + i) * kh + y) * kw + z)]);
          }
        }
      }
    }
    return emit_convolution(conv.inputs[0], std::move(ints), kernel, weights.bias,
                            std::move(sources), out);
  }

  // Format 1.8: a conv3d (and the batch norm it is the only input of, and
  // relu / clamp after) as one operator on NDHWC slots.
  Status lower_conv3d(const Node& conv) {
    Sources sources{&conv};
    const aot::Value& w = value(conv.inputs[1]);
    ValueId out = conv.outputs[0];
    GLASSBOX_ASSIGN_OR_RETURN(ConvWeights weights, folded_weights(conv, &sources, &out));
    float min = -kInf, max = kInf;
    absorb_activations(&out, &sources, &min, &max);
    const std::int64_t groups = int_attr(conv, "groups", 1);
    const std::int64_t oc = w.shape[0], gic = w.shape[1], kd = w.shape[2], kh = w.shape[3],
                       kw = w.shape[4];
    const auto pad = padding_3d(conv);  // front, top, left, back, bottom, right
    const auto stride = int_triple(conv, "stride", 1);
    const auto dilation = int_triple(conv, "dilation", 1);
    XnnOp op;
    op.kind = XnnOpKind::kConvolution3d;
    op.ints = {u32(pad[0]),    u32(pad[3]),    u32(pad[1]),      u32(pad[5]),      u32(pad[4]),
               u32(pad[2]),    u32(kd),        u32(kh),          u32(kw),          u32(stride[0]),
               u32(stride[1]), u32(stride[2]), u32(dilation[0]), u32(dilation[1]), u32(dilation[2]),
               u32(groups),    u32(gic),       u32(oc / groups)};
    // OIDHW -> [KD][G][GOC][KH][KW][GIC]: one 2-D OHWI kernel per temporal
    // tap (groups are already the outermost block of O).
    op.floats.reserve(2 + weights.weight.size() + weights.bias.size());
    op.floats = {min, max};
    for (std::int64_t d = 0; d < kd; ++d) {
      for (std::int64_t o = 0; o < oc; ++o) {
        for (std::int64_t y = 0; y < kh; ++y) {
          for (std::int64_t z = 0; z < kw; ++z) {
            for (std::int64_t i = 0; i < gic; ++i) {
              op.floats.push_back(weights.weight[static_cast<std::size_t>(
                  (((o * gic + i) * kd + d) * kh + y) * kw + z)]);
            }
          }
        }
      }
    }
    op.floats.insert(op.floats.end(), weights.bias.begin(), weights.bias.end());
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(conv.inputs[0], XnnLayout::kNhwc, sources));
    op.operands = {in};
    return emit_value(std::move(op), sources, out, XnnLayout::kNhwc);
  }

  // A convolution of `input` (as NHWC) producing `out`, after what
  // `sources` already absorbed, with the activations after it fused. `ints`
  // are its geometry (window_params' order, then groups and the channels
  // per group in and out); `kernel` is in XNNPACK's [G][GOC][KH][KW][GIC].
  Status emit_convolution(ValueId input, std::vector<std::uint32_t> ints,
                          const std::vector<float>& kernel, const std::vector<float>& bias,
                          Sources sources, ValueId out) {
    float min = -kInf, max = kInf;
    absorb_activations(&out, &sources, &min, &max);
    XnnOp op;
    op.kind = XnnOpKind::kConvolution;
    const bool one_d = value(input).shape.size() == 3;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, one_d ? unit_height_nhwc(input, sources)
                                                      : slot_for(input, XnnLayout::kNhwc, sources));
    op.operands = {in};
    op.ints = std::move(ints);
    op.floats.reserve(2 + kernel.size() + bias.size());
    op.floats = {min, max};
    op.floats.insert(op.floats.end(), kernel.begin(), kernel.end());
    op.floats.insert(op.floats.end(), bias.begin(), bias.end());
    if (one_d) return emit_unit_height(std::move(op), sources, out);
    return emit_value(std::move(op), sources, out, XnnLayout::kNhwc);
  }

  // An operator of `kind` (params `ints`, `floats`) reading the node's
  // first `operands` inputs and writing its output, all in logical order.
  Status lower_logical(const Node& node, XnnOpKind kind, std::size_t operands,
                       std::vector<std::uint32_t> ints = {}, std::vector<float> floats = {}) {
    Sources sources{&node};
    XnnOp op;
    op.kind = kind;
    op.ints = std::move(ints);
    op.floats = std::move(floats);
    for (std::size_t i = 0; i < operands; ++i) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                                slot_for(node.inputs[i], XnnLayout::kLogical, sources));
      op.operands.push_back(in);
    }
    return emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kLogical);
  }

  // Format 1.4: a transpose that is not a channel shuffle.
  Status lower_transpose(const Node& node) {
    std::vector<std::uint32_t> perm(kXnnMaxRank, 0);
    const std::vector<std::int64_t> attr = ints_attr(node, "perm");
    for (std::size_t i = 0; i < attr.size() && i < kXnnMaxRank; ++i) perm[i] = u32(attr[i]);
    return lower_logical(node, XnnOpKind::kTranspose, 1, std::move(perm));
  }

  // Format 1.4: layer norm over the last axis, scale and bias in the params
  // (a bias of zeros when the node has none).
  Status lower_layer_norm(const Node& node) {
    const std::int64_t channels = value(node.inputs[0]).shape.back();
    std::vector<float> floats = {static_cast<float>(float_attr(node, "eps").value_or(1e-5))};
    const std::vector<float>& scale = value(node.inputs[1]).data;
    floats.insert(floats.end(), scale.begin(), scale.end());
    if (node.inputs.size() > 2) {
      const std::vector<float>& bias = value(node.inputs[2]).data;
      floats.insert(floats.end(), bias.begin(), bias.end());
    } else {
      floats.resize(floats.size() + static_cast<std::size_t>(channels), 0.0f);
    }
    return lower_logical(node, XnnOpKind::kLayerNorm, 1, {u32(channels)}, std::move(floats));
  }

  Status lower_fully_connected(const Node& node) {
    if (node.op == aot::op::kMatmul && is_computed(graph_, node.inputs[1]) &&
        !quantized_constant(graph_, node.inputs[1])) {
      // Format 1.4: attention's Q K^T and its product with V.
      return lower_logical(node, XnnOpKind::kBatchMatMul, 2);
    }
    Sources sources{&node};
    const aot::Value& w = value(node.inputs[1]);
    std::int64_t ic = 0, oc = 0;
    std::vector<float> kernel;
    if (node.op == aot::op::kLinear) {
      oc = w.shape[0];
      ic = w.shape[1];
      kernel = *constant_floats(graph_, w.id);
    } else {
      // matmul by a constant [K, N] is fully connected with weights [N, K].
      ic = w.shape[0];
      oc = w.shape[1];
      const std::vector<float> data = *constant_floats(graph_, w.id);
      kernel.resize(data.size());
      for (std::int64_t k = 0; k < ic; ++k) {
        for (std::int64_t n = 0; n < oc; ++n) {
          kernel[static_cast<std::size_t>(n * ic + k)] = data[static_cast<std::size_t>(k * oc + n)];
        }
      }
    }
    std::vector<float> bias(static_cast<std::size_t>(oc), 0.f);
    if (node.inputs.size() == 3) bias = *constant_floats(graph_, node.inputs[2]);
    ValueId out = node.outputs[0];
    // A constant bias added to the product: the operator's bias (summed
    // with the linear's own, in double, rounded once).
    if (const Node* add = sole_user(out); add != nullptr && xnnpack_supports(graph_, *add)) {
      if (const std::optional<ValueId> extra = bias_of_add(graph_, *add, out)) {
        const std::vector<float>& c = value(*extra).data;
        for (std::size_t i = 0; i < bias.size(); ++i) {
          bias[i] = static_cast<float>(double(bias[i]) + c[i]);
        }
        absorb(*add);
        sources.push_back(add);
        out = add->outputs[0];
      }
    }
    float min = -kInf, max = kInf;
    absorb_activations(&out, &sources, &min, &max);
    XnnOp op;
    op.kind = XnnOpKind::kFullyConnected;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(node.inputs[0], XnnLayout::kLogical, sources));
    op.operands = {in};
    op.ints = {u32(ic), u32(oc)};
    op.floats = {min, max};
    op.floats.insert(op.floats.end(), kernel.begin(), kernel.end());
    op.floats.insert(op.floats.end(), bias.begin(), bias.end());
    return emit_value(std::move(op), sources, out, XnnLayout::kLogical);
  }

  // A pooling node's params: pad t r b l, window h w, stride h w (and for
  // max pooling dilation h w).
  // `node` a 2-D pool (a 1-D one's as_2d form), `in_dims` and `out_dims`
  // its 4-D input and output.
  static std::vector<std::uint32_t> pool_params(const Node& node, bool max_pool,
                                                const std::vector<std::int64_t>& in_dims,
                                                const std::vector<std::int64_t>& out_dims) {
    auto pad = padding_tlbr(node);  // top, left, bottom, right
    const auto kernel = int_pair(node, "kernel", {1, 1});
    const auto stride = int_pair(node, "stride", kernel);
    const auto dilation =
        max_pool ? int_pair(node, "dilation", {1, 1}) : std::array<std::int64_t, 2>{1, 1};
    // XNNPACK rounds the output size down; ceil mode's extra last window
    // becomes extra bottom / right padding, sized from the graph's output
    // (which follows PyTorch's rule for when that window exists). XNNPACK
    // leaves padded cells out of the max and of the average's divisor.
    for (int i = 0; i < 2; ++i) {
      const std::int64_t needed = (out_dims[2 + i] - 1) * stride[i] +
                                  dilation[i] * (kernel[i] - 1) + 1 -
                                  (in_dims[2 + i] + pad[i] + pad[2 + i]);
      pad[2 + i] += std::max<std::int64_t>(needed, 0);
    }
    std::vector<std::uint32_t> ints = {u32(pad[0]),    u32(pad[3]),    u32(pad[2]),
                                       u32(pad[1]),    u32(kernel[0]), u32(kernel[1]),
                                       u32(stride[0]), u32(stride[1])};
    if (max_pool) {
      ints.push_back(u32(dilation[0]));
      ints.push_back(u32(dilation[1]));
    }
    return ints;
  }

  Status lower_pool(const Node& node) {
    Sources sources{&node};
    XnnOp op;
    if (!is_one_dimensional(node) && identity_pool(node)) {  // (a 1-D one is refused)
      const XnnLayout layout = current_layout(node.inputs[0]);
      op.kind = XnnOpKind::kCopy;
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(node.inputs[0], layout, sources));
      op.operands = {in};
      return emit_value(std::move(op), sources, node.outputs[0], layout);
    }
    const bool max_pool = node.op == aot::op::kMaxPool2d || node.op == aot::op::kMaxPool1d;
    op.kind = max_pool ? XnnOpKind::kMaxPooling : XnnOpKind::kAveragePooling;
    op.floats = {-kInf, kInf};
    const std::vector<std::int64_t> in_dims = with_unit_height(value(node.inputs[0]).shape);
    const std::vector<std::int64_t> out_dims = with_unit_height(value(node.outputs[0]).shape);
    if (is_one_dimensional(node)) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, unit_height_nhwc(node.inputs[0], sources));
      op.operands = {in};
      op.ints = pool_params(as_2d(node), max_pool, in_dims, out_dims);
      return emit_unit_height(std::move(op), sources, node.outputs[0]);
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(node.inputs[0], XnnLayout::kNhwc, sources));
    op.operands = {in};
    op.ints = pool_params(node, max_pool, in_dims, out_dims);
    return emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kNhwc);
  }

  Status lower_binary(const Node& node) {
    Sources sources{&node};
    const ValueId a = node.inputs[0], b = node.inputs[1];
    // NHWC only when both operands are 4-D (numpy broadcasting aligns from
    // the right, so a lower-rank operand needs the logical order); a
    // constant of lower rank is stored as 4-D (constant_slot). NDHWC (1.8)
    // only when both are computed 5-D values.
    const auto rank4 = [&](ValueId v) {
      return value(v).shape.size() == 4 || (is_constant(v) && value(v).shape.size() < 4);
    };
    const auto rank5 = [&](ValueId v) {
      return value(v).shape.size() == 5 && !is_constant(v) && !quantized_constant(graph_, v);
    };
    const std::size_t out_rank = value(node.outputs[0]).shape.size();
    const bool nhwc =
        ((out_rank == 4 && rank4(a) && rank4(b)) || (out_rank == 5 && rank5(a) && rank5(b))) &&
        (current_layout(a) == XnnLayout::kNhwc || current_layout(b) == XnnLayout::kNhwc);
    const XnnLayout layout = nhwc ? XnnLayout::kNhwc : XnnLayout::kLogical;
    ValueId out = node.outputs[0];
    XnnOp op;
    const std::string_view name = node.op;
    op.kind = name == aot::op::kAdd   ? XnnOpKind::kAdd
              : name == aot::op::kSub ? XnnOpKind::kSubtract
              : name == aot::op::kMul ? XnnOpKind::kMultiply
              : name == aot::op::kDiv ? XnnOpKind::kDivide
              : name == aot::op::kMax ? XnnOpKind::kMaximum
                                      : XnnOpKind::kMinimum;
    // XNNPACK 2022's maximum and minimum have no output range to fuse into.
    if (op.kind != XnnOpKind::kMaximum && op.kind != XnnOpKind::kMinimum) {
      float min = -kInf, max = kInf;
      absorb_activations(&out, &sources, &min, &max);
      op.floats = {min, max};
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t sa, operand_slot(a, layout, sources));
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t sb, operand_slot(b, layout, sources));
    op.operands = {sa, sb};
    return emit_value(std::move(op), sources, out, layout);
  }

  Status lower_unary(const Node& node) {
    Sources sources{&node};
    // Elementwise: any byte order will do, so keep the input's.
    const XnnLayout layout = current_layout(node.inputs[0]);
    XnnOp op;
    ValueId out = node.outputs[0];
    if (const std::optional<ActivationRange> range = activation_range(node)) {
      op.kind = XnnOpKind::kClamp;
      float min = range->min, max = range->max;
      absorb_activations(&out, &sources, &min, &max);
      op.floats = {min, max};
    } else {
      op.kind = *unary_kind(node);
      if (op.kind == XnnOpKind::kElu || op.kind == XnnOpKind::kLeakyRelu) {
        const double fallback = op.kind == XnnOpKind::kElu ? 1.0 : 0.01;  // ONNX defaults
        op.floats = {static_cast<float>(float_attr(node, "alpha").value_or(fallback))};
      }
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(node.inputs[0], layout, sources));
    op.operands = {in};
    return emit_value(std::move(op), sources, out, layout);
  }

  // max(0, min(1, alpha * x + beta)): a multiply by alpha, then an add of
  // beta whose output range is the clamp (and any relu / clamp after it),
  // both under one identifier; XNNPACK rounds each step like the portable
  // kernel does.
  Status lower_hardsigmoid(const Node& node) {
    Sources sources{&node};
    const ValueId x = node.inputs[0];
    const XnnLayout layout = current_layout(x);
    ValueId out = node.outputs[0];
    float min = 0.f, max = 1.f;
    absorb_activations(&out, &sources, &min, &max);
    XnnOp scale;
    scale.kind = XnnOpKind::kMultiply;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(x, layout, sources));
    scale.operands = {
        in, scalar_slot(static_cast<float>(float_attr(node, "alpha").value_or(0.2)), layout)};
    scale.output = {value(x).shape, layout};
    scale.floats = {-kInf, kInf};
    GLASSBOX_RETURN_IF_ERROR(emit(std::move(scale), sources));
    XnnOp shift;
    shift.kind = XnnOpKind::kAdd;
    shift.identifier = program_.ops.back().identifier;
    shift.operands = {
        last_slot(),
        scalar_slot(static_cast<float>(float_attr(node, "beta").value_or(0.5)), layout)};
    shift.output = {value(out).shape, layout};
    shift.floats = {min, max};
    program_.ops.push_back(std::move(shift));
    define(out, layout, sources);
    return Status();
  }

  Status lower_conv_transpose(const Node& node) {
    Sources sources{&node};
    const aot::Value& x = value(node.inputs[0]);
    const aot::Value& w = value(node.inputs[1]);
    const std::int64_t groups = int_attr(node, "groups", 1);
    // ONNX's [C_in = G*GIC][GOC][KH][KW] -> XNNPACK's [G][GOC][KH][KW][GIC].
    const std::int64_t gic = w.shape[0] / groups, goc = w.shape[1], kh = w.shape[2],
                       kw = w.shape[3];
    ValueId out = node.outputs[0];
    float min = -kInf, max = kInf;
    absorb_activations(&out, &sources, &min, &max);
    const auto adjustment = int_pair(node, "output_padding", {0, 0});
    XnnOp op;
    op.kind = XnnOpKind::kDeconvolution;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(x.id, XnnLayout::kNhwc, sources));
    op.operands = {in};
    op.ints = window_params(node, kh, kw);
    op.ints.insert(op.ints.end(),
                   {u32(groups), u32(gic), u32(goc), u32(adjustment[0]), u32(adjustment[1])});
    const std::vector<float> weights = *constant_floats(graph_, w.id);  // or dequantized
    op.floats.reserve(2 + weights.size() + static_cast<std::size_t>(groups * goc));
    op.floats = {min, max};
    for (std::int64_t g = 0; g < groups; ++g) {
      for (std::int64_t o = 0; o < goc; ++o) {
        for (std::int64_t k = 0; k < kh * kw; ++k) {
          for (std::int64_t i = 0; i < gic; ++i) {
            op.floats.push_back(
                weights[static_cast<std::size_t>(((g * gic + i) * goc + o) * kh * kw + k)]);
          }
        }
      }
    }
    if (node.inputs.size() == 3) {
      const std::vector<float> bias = *constant_floats(graph_, node.inputs[2]);
      op.floats.insert(op.floats.end(), bias.begin(), bias.end());
    } else {
      op.floats.resize(op.floats.size() + static_cast<std::size_t>(groups * goc), 0.f);
    }
    return emit_value(std::move(op), sources, out, XnnLayout::kNhwc);
  }

  Status lower_prelu(const Node& node) {
    Sources sources{&node};
    const aot::Value& x = value(node.inputs[0]);
    const std::vector<float>& slope = value(node.inputs[1]).data;
    const PreluSlope kind = *prelu_slope(graph_, node);
    const XnnLayout layout = kind == PreluSlope::kChannels4d ? XnnLayout::kNhwc
                             : kind == PreluSlope::kLastAxis ? XnnLayout::kLogical
                                                             : current_layout(x.id);
    // XNNPACK's slope runs along the last dim of the bytes.
    const std::int64_t channels =
        layout == XnnLayout::kNhwc ? x.shape[1] : x.shape[x.shape.size() - 1];
    XnnOp op;
    op.kind = XnnOpKind::kPrelu;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(x.id, layout, sources));
    op.operands = {in};
    op.ints = {u32(channels)};
    op.floats = kind == PreluSlope::kScalar
                    ? std::vector<float>(static_cast<std::size_t>(channels), slope[0])
                    : slope;
    return emit_value(std::move(op), sources, node.outputs[0], layout);
  }

  Status lower_pad(const Node& node) {
    Sources sources{&node};
    const aot::Value& x = value(node.inputs[0]);
    const std::size_t rank = x.shape.size();
    const XnnLayout layout = current_layout(x.id);
    const std::vector<std::int64_t> pads = ints_attr(node, "pads");  // begins, then ends
    // Byte-order position i holds logical dim kLogicalOf[i] in NHWC.
    static constexpr std::size_t kLogicalOf[4] = {0, 2, 3, 1};
    XnnOp op;
    op.kind = XnnOpKind::kConstantPad;
    op.ints.assign(2 * kXnnPadRank, 0);
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t d = layout == XnnLayout::kNhwc ? kLogicalOf[i] : i;
      op.ints[i] = u32(pads[d]);
      op.ints[kXnnPadRank + i] = u32(pads[rank + d]);
    }
    op.floats = {static_cast<float>(float_attr(node, "value").value_or(0.0))};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(x.id, layout, sources));
    op.operands = {in};
    return emit_value(std::move(op), sources, node.outputs[0], layout);
  }

  Status lower_mean(const Node& node) {
    Sources sources{&node};
    XnnOp op;
    op.floats = {-kInf, kInf};
    const bool hw = *mean_axes(graph_, node) == MeanAxes::kHw;
    // Global average pooling reads NHWC; its [N, C(, 1, 1)] output is the
    // same bytes in both layouts.
    op.kind = hw ? XnnOpKind::kGlobalAveragePooling : XnnOpKind::kMeanLastAxis;
    GLASSBOX_ASSIGN_OR_RETURN(
        std::uint32_t in,
        slot_for(node.inputs[0], hw ? XnnLayout::kNhwc : XnnLayout::kLogical, sources));
    op.operands = {in};
    return emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kLogical);
  }

  // Three source ops, one operator: NHWC makes the shuffle a transpose of
  // each pixel's [G][C/G] channels.
  Status lower_channel_shuffle(const Node& transpose, const ChannelShuffle& shuffle) {
    Sources sources{shuffle.split, &transpose, shuffle.merge};
    absorb(transpose);
    absorb(*shuffle.merge);
    XnnOp op;
    op.kind = XnnOpKind::kChannelShuffle;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(shuffle.split->inputs[0], XnnLayout::kNhwc, sources));
    op.operands = {in};
    op.ints = {u32(shuffle.groups)};
    return emit_value(std::move(op), sources, shuffle.merge->outputs[0], XnnLayout::kNhwc);
  }

  Status lower_slice(const Node& node) {
    const std::optional<SliceAxis> slice = slice_axis(graph_, node);
    if (!slice) return lower_strided_slice(node, *strided_slice(graph_, node));
    Sources sources{&node};
    const XnnLayout layout = current_layout(node.inputs[0]);
    XnnOp op;
    op.kind = XnnOpKind::kSlice;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(node.inputs[0], layout, sources));
    op.operands = {in};
    op.ints = {u32(layout == XnnLayout::kNhwc ? kNhwcPosition[slice->axis]
                                              : static_cast<std::int64_t>(slice->axis)),
               u32(slice->start)};
    return emit_value(std::move(op), sources, node.outputs[0], layout);
  }

  // Steps, or several axes narrowed: our kernel, in logical order.
  Status lower_strided_slice(const Node& node, const StridedSlice& slice) {
    Sources sources{&node};
    XnnOp op;
    op.kind = XnnOpKind::kStridedSlice;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(node.inputs[0], XnnLayout::kLogical, sources));
    op.operands = {in};
    op.ints.assign(2 * kXnnMaxRank, 0);
    for (std::size_t d = 0; d < slice.start.size(); ++d) {
      op.ints[d] = u32(slice.start[d]);
      op.ints[kXnnMaxRank + d] = u32(slice.step[d]);
    }
    return emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kLogical);
  }

  // data[..., index, ...] along one axis: a slice of size 1 there, then
  // (for a 0-d index) a copy dropping that dim; both mapped to the gather.
  Status lower_gather(const Node& node) {
    Sources sources{&node};
    const auto gather = std::get<ConstantGather>(constant_gather(graph_, node));
    XnnOp op;
    op.kind = XnnOpKind::kSlice;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(node.inputs[0], XnnLayout::kLogical, sources));
    op.operands = {in};
    op.ints = {u32(static_cast<std::int64_t>(gather.axis)), u32(gather.index)};
    std::vector<std::int64_t> picked = value(node.inputs[0]).shape;
    picked[gather.axis] = 1;
    if (picked == value(node.outputs[0]).shape) {
      return emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kLogical);
    }
    op.output = {picked, XnnLayout::kLogical};
    const std::string name = node.name.empty() ? "gather" : node.name;
    GLASSBOX_RETURN_IF_ERROR(emit(std::move(op), sources, name + ".slice"));
    XnnOp reshape;
    reshape.kind = XnnOpKind::kCopy;
    reshape.operands = {last_slot()};
    return emit_value(std::move(reshape), sources, node.outputs[0], XnnLayout::kLogical);
  }

  Status lower_concat(const Node& node) {
    Sources sources{&node};
    const std::size_t rank = value(node.outputs[0]).shape.size();
    std::int64_t axis = int_attr(node, "axis", 0);
    if (axis < 0) axis += static_cast<std::int64_t>(rank);
    bool nhwc = rank == 4;
    bool any_nhwc = false;
    for (ValueId in : node.inputs) any_nhwc |= current_layout(in) == XnnLayout::kNhwc;
    nhwc = nhwc && any_nhwc;
    const XnnLayout layout = nhwc ? XnnLayout::kNhwc : XnnLayout::kLogical;
    XnnOp op;
    op.kind = XnnOpKind::kConcatenate;
    for (ValueId in : node.inputs) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t slot, operand_slot(in, layout, sources));
      op.operands.push_back(slot);
    }
    op.ints = {u32(nhwc ? kNhwcPosition[axis] : axis)};
    return emit_value(std::move(op), sources, node.outputs[0], layout);
  }

  // ---- Format 1.6: int8 operators for QDQ groups ----

  struct PendingDequantize {
    ValueId q;         // the int8 value
    const Node* node;  // the dequantize_linear
  };

  static XnnDType xnn_dtype(ScalarType type) {
    return type == ScalarType::kByte ? XnnDType::kQu8 : XnnDType::kQs8;
  }

  // The format's zero point: a uint8 one minus 128 (xnnpack_format.h).
  static std::int32_t stored_zero_point(const TensorQuant& q) {
    return q.type == ScalarType::kByte ? q.zero_point - 128 : q.zero_point;
  }

  // `id`'s descriptor in `layout`, quantized when `id` is an int8 value.
  XnnTensorDesc desc_of(ValueId id, XnnLayout layout) const {
    XnnTensorDesc d{value(id).shape, layout};
    if (auto it = quant_of_.find(id.value); it != quant_of_.end()) {
      d.dtype = xnn_dtype(it->second.type);
      d.scale = it->second.scale;
      d.zero_point = stored_zero_point(it->second);
    }
    return d;
  }

  // The layout `id` has or will have without a conversion.
  XnnLayout natural_layout(ValueId id) const {
    if (auto dq = dequantized_.find(id.value);
        dq != dequantized_.end() && !logical_slots_.contains(id.value)) {
      return current_layout(dq->second.q);
    }
    return current_layout(id);
  }

  // A float op reads a dequantized activation in `layout`: a convert to
  // float (after any layout conversion, which moves a quarter of the bytes
  // on int8), mapped to the dequantize_linear.
  Status materialize_dequantize(ValueId id, PendingDequantize dq, XnnLayout layout) {
    const Sources sources{dq.node};
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(dq.q, layout, sources));
    // The dequantize's own parameters: ConvInteger's import dequantizes
    // with the integer op's zero point and scale 1, not the quantize's.
    const TensorQuant quant = *per_tensor_quant(graph_, *dq.node);
    XnnOp op;
    op.kind = XnnOpKind::kDequantize;
    op.operands = {in};
    op.floats = {quant.scale};
    append_i32(&op.bytes, stored_zero_point(quant));
    return emit_value(std::move(op), sources, id, layout);
  }

  // A quantize_linear no int8 operator absorbed (the model input's): a
  // convert to int8.
  Status lower_quantize(const Node& q) {
    const Sources sources{&q};
    quant_of_[q.outputs[0].value] = *per_tensor_quant(graph_, q);
    const XnnLayout layout = natural_layout(q.inputs[0]);
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in, slot_for(q.inputs[0], layout, sources));
    XnnOp op;
    op.kind = XnnOpKind::kQuantize;
    op.operands = {in};
    return emit_value(std::move(op), sources, q.outputs[0], layout);
  }

  // A reshape of int8 bytes: a copy, quantized like its input.
  Status lower_int8_reshape(const Node& node) {
    const Sources sources{&node};
    auto quant = quant_of_.find(node.inputs[0].value);
    if (quant == quant_of_.end()) {
      return Status(Error::kNotSupported, "XNNPACK backend: int8 reshape '" + node.name +
                                              "' of a value made outside the delegate");
    }
    quant_of_[node.outputs[0].value] = quant->second;
    GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t in,
                              slot_for(node.inputs[0], XnnLayout::kLogical, sources));
    XnnOp op;
    op.kind = XnnOpKind::kQCopy;
    op.operands = {in};
    return emit_value(std::move(op), sources, node.outputs[0], XnnLayout::kLogical);
  }

  // The int8 image of the float range [lo, hi] in `y`'s stored domain
  // (quantize_linear is monotone, so clamping before or after it agrees).
  static std::array<std::int32_t, 2> quantized_range(const TensorQuant& y, float lo, float hi) {
    const std::int32_t type_min = y.type == ScalarType::kByte ? 0 : -128;
    const std::int32_t type_max = type_min + 255;
    const auto q = [&](float v, std::int32_t unbounded) {
      if (std::isinf(v)) return unbounded;
      const float r = std::nearbyint(v / y.scale) + static_cast<float>(y.zero_point);
      return static_cast<std::int32_t>(
          std::clamp(r, static_cast<float>(type_min), static_cast<float>(type_max)));
    };
    const std::int32_t shift = y.type == ScalarType::kByte ? 128 : 0;
    return {q(lo, type_min) - shift, q(hi, type_max) - shift};
  }

  // The 256-entry table of a unary op (then the activations' [lo, hi]) from
  // x's to y's stored bytes: each input dequantized, the portable float
  // kernel, quantized as quantize_linear does.
  StatusOr<std::vector<std::uint8_t>> lookup_table(const Node& node, const TensorQuant& x,
                                                   const TensorQuant& y, float lo, float hi) {
    namespace kernels = runtime::kernels;
    float in[256], out[256];
    for (int b = 0; b < 256; ++b) {
      const std::int32_t stored = static_cast<std::int8_t>(b);
      const std::int32_t graph = x.type == ScalarType::kByte ? stored + 128 : stored;
      in[b] = static_cast<float>(graph - x.zero_point) * x.scale;
    }
    const std::string_view op = node.op;
    Error e = Error::kOk;
    if (op == aot::op::kSigmoid) {
      e = kernels::sigmoid(in, out, 256);
    } else if (op == aot::op::kHardswish) {
      e = kernels::hardswish(in, out, 256);
    } else if (op == aot::op::kHardsigmoid) {
      e = kernels::hardsigmoid(in, out, 256,
                               static_cast<float>(float_attr(node, "alpha").value_or(0.2)),
                               static_cast<float>(float_attr(node, "beta").value_or(0.5)));
    } else {
      std::copy(in, in + 256, out);  // relu / clamp: their range is in [lo, hi]
    }
    if (e != Error::kOk) return Status(e, "XNNPACK backend: lookup table of '" + node.name + "'");
    for (float& v : out) v = std::min(std::max(v, lo), hi);
    std::vector<std::uint8_t> table(256);
    const std::int32_t zero_point = y.zero_point;
    const std::int64_t shape[1] = {256};
    const ErrorInfo q = kernels::quantize_linear(
        out, Span<const std::int64_t>(shape, 1),
        {Span<const float>(&y.scale, 1), Span<const std::int32_t>(&zero_point, 1)}, 0, table.data(),
        y.type);
    if (q.code != Error::kOk) return Status(q.code, q.message);
    if (y.type == ScalarType::kByte) {
      for (std::uint8_t& v : table) v = static_cast<std::uint8_t>(v ^ 0x80u);
    }
    return table;
  }

  static void append_i32(std::vector<std::uint8_t>* bytes, std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i) bytes->push_back(static_cast<std::uint8_t>(u >> (8 * i)));
  }

  // A float op between dequantizes of int8 activations and one quantize
  // (after any relu / clamp) as one int8 operator: false when the node is
  // not such a group or the group has no int8 lowering (then the float
  // lowering runs it between converts).
  StatusOr<bool> lower_quantized(const Node& node) {
    const std::optional<QuantizedGroup> group = quantized_group(graph_, node);
    if (!group) return false;
    const std::vector<ValueId>& qin = group->inputs;
    for (std::size_t i = 0; i < qin.size(); ++i) {
      // An int8 delegate input is quantized as its (first) dequantize says.
      auto known = quant_of_.find(qin[i].value);
      if (known == quant_of_.end() ||
          per_tensor_quant(graph_, *producer_of(graph_, node.inputs[i])) != known->second) {
        return false;
      }
    }
    const std::string_view name = node.op;
    const bool weighted =
        name == aot::op::kConv2d || name == aot::op::kLinear || name == aot::op::kMatmul;
    const Node* q = group->quantize;
    const TensorQuant y = *per_tensor_quant(graph_, *q);
    const TensorQuant x = quant_of_.at(qin[0].value);
    const auto range = quantized_range(y, group->min, group->max);
    const std::vector<std::uint32_t> qrange = {static_cast<std::uint32_t>(range[0]),
                                               static_cast<std::uint32_t>(range[1])};
    XnnOp op;
    XnnLayout layout = XnnLayout::kLogical;
    XnnLayout in_layout = XnnLayout::kLogical;
    if (name == aot::op::kConv2d) {
      const aot::Value& w = value(node.inputs[1]);
      const std::int64_t groups = int_attr(node, "groups", 1);
      const std::int64_t oc = w.shape[0], gic = w.shape[1], kh = w.shape[2], kw = w.shape[3];
      const std::optional<Int8Weights> qw = int8_weights(graph_, node, oc, 0, x.scale);
      if (!qw) return false;
      op.kind = XnnOpKind::kQConvolution;
      op.ints = window_params(node, kh, kw);
      op.ints.insert(op.ints.end(), {u32(groups), u32(gic), u32(oc / groups)});
      op.floats = qw->scales;
      for (std::int32_t b : qw->bias) append_i32(&op.bytes, b);
      // OIHW -> [G][GOC][KH][KW][GIC], as lower_conv.
      for (std::int64_t o = 0; o < oc; ++o) {
        for (std::int64_t r = 0; r < kh * kw; ++r) {
          for (std::int64_t i = 0; i < gic; ++i) {
            op.bytes.push_back(static_cast<std::uint8_t>(
                qw->kernel[static_cast<std::size_t>((o * gic + i) * kh * kw + r)]));
          }
        }
      }
      in_layout = layout = XnnLayout::kNhwc;
    } else if (weighted) {
      const aot::Value& w = value(node.inputs[1]);
      const bool linear = name == aot::op::kLinear;  // [N, K]; matmul's is [K, N]
      const std::int64_t n = linear ? w.shape[0] : w.shape[1];
      const std::int64_t k = linear ? w.shape[1] : w.shape[0];
      const std::optional<Int8Weights> qw = int8_weights(graph_, node, n, linear ? 0 : 1, x.scale);
      if (!qw) return false;
      op.kind = XnnOpKind::kQFullyConnected;
      op.ints = {u32(k), u32(n)};
      op.floats = qw->scales;
      for (std::int32_t b : qw->bias) append_i32(&op.bytes, b);
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t i = 0; i < k; ++i) {
          op.bytes.push_back(static_cast<std::uint8_t>(
              qw->kernel[static_cast<std::size_t>(linear ? j * k + i : i * n + j)]));
        }
      }
    } else if (name == aot::op::kAdd || name == aot::op::kMul) {
      const auto rank4 = [&](ValueId v) { return value(v).shape.size() == 4; };
      const bool nhwc = value(node.outputs[0]).shape.size() == 4 && rank4(qin[0]) &&
                        rank4(qin[1]) &&
                        (current_layout(qin[0]) == XnnLayout::kNhwc ||
                         current_layout(qin[1]) == XnnLayout::kNhwc);
      in_layout = layout = nhwc ? XnnLayout::kNhwc : XnnLayout::kLogical;
      op.kind = name == aot::op::kAdd ? XnnOpKind::kQAdd : XnnOpKind::kQMultiply;
    } else if (name == aot::op::kMaxPool2d || name == aot::op::kAvgPool2d) {
      const bool max_pool = name == aot::op::kMaxPool2d;
      op.kind = max_pool ? XnnOpKind::kQMaxPooling : XnnOpKind::kQAveragePooling;
      op.ints =
          pool_params(node, max_pool, value(node.inputs[0]).shape, value(node.outputs[0]).shape);
      if (!max_pool) op.ints.push_back(0);  // padding is never counted (xnnpack_partitioner.h)
      in_layout = layout = XnnLayout::kNhwc;
    } else if (name == aot::op::kGlobalAvgPool2d) {
      op.kind = XnnOpKind::kQGlobalAveragePooling;
      in_layout = XnnLayout::kNhwc;
    } else if (name == aot::op::kConcat) {
      const std::size_t rank = value(node.outputs[0]).shape.size();
      std::int64_t axis = int_attr(node, "axis", 0);
      if (axis < 0) axis += static_cast<std::int64_t>(rank);
      bool any_nhwc = false;
      for (ValueId in : qin) any_nhwc |= current_layout(in) == XnnLayout::kNhwc;
      const bool nhwc = rank == 4 && any_nhwc;
      in_layout = layout = nhwc ? XnnLayout::kNhwc : XnnLayout::kLogical;
      op.kind = XnnOpKind::kQConcatenate;
      op.ints = {u32(nhwc ? kNhwcPosition[axis] : axis)};
    } else if (name == aot::op::kFlatten || name == aot::op::kReshape) {
      op.kind = XnnOpKind::kQCopy;
    } else {
      GLASSBOX_ASSIGN_OR_RETURN(op.bytes, lookup_table(node, x, y, group->min, group->max));
      op.kind = XnnOpKind::kQLookupTable;
      in_layout = layout = current_layout(qin[0]);
    }
    if (op.kind != XnnOpKind::kQLookupTable && op.kind != XnnOpKind::kQConcatenate &&
        op.kind != XnnOpKind::kQCopy) {
      op.ints.insert(op.ints.end(), qrange.begin(), qrange.end());
    }
    Sources sources{&node};
    for (const Node* a : group->activations) {
      absorb(*a);
      sources.push_back(a);
    }
    absorb(*q);
    sources.push_back(q);
    for (ValueId in : qin) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t slot, slot_for(in, in_layout, sources));
      op.operands.push_back(slot);
    }
    quant_of_[q->outputs[0].value] = y;
    GLASSBOX_RETURN_IF_ERROR(emit_value(std::move(op), sources, q->outputs[0], layout));
    return true;
  }

  const aot::Graph& graph_;
  bool string_ids_;
  aot::DelegateMappingBuilder builder_;
  GraphUses uses_;
  XnnProgram program_;
  std::unordered_map<std::int32_t, std::uint32_t> logical_slots_;  // value -> slot
  std::unordered_map<std::int32_t, std::uint32_t> nhwc_slots_;
  // [N, C, L] values a 1-D convolution or pool wrote, held as NHWC
  // [N, 1, L, C] (desc [N, C, 1, L]): chains of them need no conversion.
  std::unordered_map<std::int32_t, std::uint32_t> unit_nhwc_slots_;
  std::map<std::pair<std::int32_t, XnnLayout>, std::uint32_t> constant_slots_;  // provisional
  std::map<std::pair<std::uint32_t, XnnLayout>, std::uint32_t> scalar_slots_;   // f32 bits
  std::unordered_map<std::int32_t, Sources> producers_;     // value -> sources of its op
  std::unordered_map<std::int32_t, TensorQuant> quant_of_;  // int8 value -> its quantization
  std::unordered_map<std::int32_t, PendingDequantize> dequantized_;  // float value -> source
};

}  // namespace

StatusOr<aot::PreprocessResult> XnnpackBackend::preprocess(
    const aot::Graph& subgraph, std::span<const aot::CompileSpec> compile_specs) {
  GLASSBOX_ASSIGN_OR_RETURN(IdentifierMode mode, backends::parse_aot_compile_specs(compile_specs));
  return Lowering(subgraph, mode == IdentifierMode::kString).run();
}

aot::Partitioner make_xnnpack_partitioner(XnnpackBackend& backend) {
  return aot::Partitioner(
      backend, xnnpack_supported_ops(),
      [](const aot::Graph& graph, const aot::Node& node) { return xnnpack_supports(graph, node); });
}

Status register_xnnpack_backend(aot::BackendRegistry& registry) {
  return registry.register_backend(std::make_unique<XnnpackBackend>());
}

}  // namespace glassbox::backends::xnnpack
