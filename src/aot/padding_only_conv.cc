#include "glassbox/aot/padding_only_conv.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

using Ints = std::vector<std::int64_t>;

const Ints* ints_of(const Node& node, std::string_view name) {
  auto it = node.attributes.find(name);
  return it == node.attributes.end() ? nullptr : std::get_if<Ints>(&it->second);
}

// Whether input coordinate first + o * stride lies in [0, size) for some
// output position o in [0, count): the smallest o past the start, checked
// against the end.
bool reaches_input(std::int64_t first, std::int64_t stride, std::int64_t count, std::int64_t size) {
  const std::int64_t o = first >= 0 ? 0 : (-first + stride - 1) / stride;
  return o < count && first + o * stride < size;
}

// What one convolution's geometry allows, per spatial dim.
struct Geometry {
  std::size_t n = 0;  // spatial rank
  std::array<std::int64_t, 3> kernel{}, centre{}, pad_begin{}, pad_end{}, reach{};
};

// The geometry of `node` when it can be rewritten; false otherwise.
bool padding_only(const Graph& graph, const Node& node, Geometry* g) {
  g->n = spatial_rank(node.op);
  if (g->n == 0 || !node.op.starts_with("conv") || node.op.starts_with("conv_transpose") ||
      node.inputs.size() < 2 || node.outputs.size() != 1) {
    return false;
  }
  const Value* x = graph.find_value(node.inputs[0]);
  const Value* w = graph.find_value(node.inputs[1]);
  const Value* y = graph.find_value(node.outputs[0]);
  const Ints* stride = ints_of(node, "stride");
  const Ints* dilation = ints_of(node, "dilation");
  const Ints* padding = ints_of(node, "padding");
  const std::size_t n = g->n;
  if (x == nullptr || w == nullptr || y == nullptr || stride == nullptr || dilation == nullptr ||
      padding == nullptr || w->kind != ValueKind::kConstant || w->dtype != ScalarType::kFloat ||
      static_cast<std::int64_t>(w->data.size()) != w->numel() || x->shape.size() != n + 2 ||
      w->shape.size() != n + 2 || y->shape.size() != n + 2 || stride->size() != n ||
      dilation->size() != n || (padding->size() != n && padding->size() != 2 * n)) {
    return false;
  }
  // reads[i][t]: whether tap t of dim i reads a real pixel at some output
  // position. A tap of several dims reads one exactly when each of its
  // coordinates does, since output positions form a grid.
  std::array<std::vector<bool>, 3> reads;
  bool larger_than_1x1 = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = w->shape[2 + i];
    if (k % 2 == 0) return false;
    larger_than_1x1 = larger_than_1x1 || k > 1;
    g->kernel[i] = k;
    g->centre[i] = (k - 1) / 2;
    g->pad_begin[i] = (*padding)[i];
    g->pad_end[i] = (*padding)[padding->size() == n ? i : n + i];
    g->reach[i] = g->centre[i] * (*dilation)[i];
    // The centre must read where a 1x1 convolution with non-negative
    // padding reads.
    if (g->pad_begin[i] < g->reach[i] || g->pad_end[i] < g->reach[i]) return false;
    for (std::int64_t t = 0; t < k; ++t) {
      reads[i].push_back(reaches_input(t * (*dilation)[i] - g->pad_begin[i], (*stride)[i],
                                       y->shape[2 + i], x->shape[2 + i]));
    }
  }
  if (!larger_than_1x1) return false;
  // Every tap but the centre, as a mixed-radix counter over the dims.
  std::array<std::int64_t, 3> tap{0, 0, 0};
  for (;;) {
    bool centre = true, real = true;
    for (std::size_t i = 0; i < n; ++i) {
      centre = centre && tap[i] == g->centre[i];
      real = real && reads[i][static_cast<std::size_t>(tap[i])];
    }
    if (!centre && real) return false;
    std::size_t i = 0;
    while (i < n && ++tap[i] == g->kernel[i]) tap[i++] = 0;
    if (i == n) return true;
  }
}

// w[:, :, centre...] as [O, C/g, 1, ...].
std::vector<float> centre_weights(const Value& w, const Geometry& g) {
  std::int64_t taps = 1, offset = 0;
  for (std::size_t i = 0; i < g.n; ++i) {
    offset = offset * g.kernel[i] + g.centre[i];
    taps *= g.kernel[i];
  }
  const std::int64_t filters = w.shape[0] * w.shape[1];
  std::vector<float> out(static_cast<std::size_t>(filters));
  for (std::int64_t f = 0; f < filters; ++f) {
    out[static_cast<std::size_t>(f)] = w.data[static_cast<std::size_t>(f * taps + offset)];
  }
  return out;
}

std::string unused_name(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int k = 2;; ++k) {
    const bool taken = std::any_of(graph.values.begin(), graph.values.end(),
                                   [&](const Value& v) { return v.name == name; });
    if (!taken) return name;
    name = base + "_" + std::to_string(k);
  }
}

bool is_read(const Graph& graph, ValueId id) {
  const bool by_node = std::any_of(graph.nodes.begin(), graph.nodes.end(), [&](const Node& node) {
    return std::find(node.inputs.begin(), node.inputs.end(), id) != node.inputs.end();
  });
  return by_node ||
         std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
}

}  // namespace

int rewrite_padding_only_convs(Graph* graph) {
  int rewritten = 0;
  for (Node& node : graph->nodes) {
    Geometry g;
    if (!padding_only(*graph, node, &g)) continue;
    const Value& old_weight = *graph->find_value(node.inputs[1]);
    Value weight;
    weight.id = graph->next_value_id();
    weight.name = unused_name(*graph, old_weight.name + "/centre");
    weight.dtype = ScalarType::kFloat;
    weight.kind = ValueKind::kConstant;
    weight.shape = {old_weight.shape[0], old_weight.shape[1]};
    weight.shape.resize(2 + g.n, 1);
    weight.data = centre_weights(old_weight, g);
    const ValueId old_id = old_weight.id;

    Ints padding(2 * g.n);
    bool symmetric = true;
    for (std::size_t i = 0; i < g.n; ++i) {
      padding[i] = g.pad_begin[i] - g.reach[i];
      padding[g.n + i] = g.pad_end[i] - g.reach[i];
      symmetric = symmetric && padding[i] == padding[g.n + i];
    }
    // The [h, w] form where it says the same: some partitioners take only it.
    if (symmetric) padding.resize(g.n);
    node.attributes["padding"] = padding;
    node.attributes["dilation"] = Ints(g.n, 1);
    node.inputs[1] = weight.id;
    graph->values.push_back(std::move(weight));
    if (!is_read(*graph, old_id)) {
      std::erase_if(graph->values, [&](const Value& v) { return v.id == old_id; });
    }
    ++rewritten;
  }
  return rewritten;
}

}  // namespace glassbox::aot
