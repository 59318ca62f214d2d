#include "src/inspector/output_quant.h"

#include "glassbox/aot/ops.h"

namespace glassbox::inspector {

std::map<DebugHandle, OutputQuant> output_quantization(const aot::Graph& graph) {
  std::map<DebugHandle, OutputQuant> out;
  for (const aot::Node& node : graph.nodes) {
    if (node.op != aot::op::kQuantizeLinear || node.inputs.size() < 3) continue;
    const aot::Value* scale = graph.find_value(node.inputs[1]);
    const aot::Value* zp = graph.find_value(node.inputs[2]);
    const aot::Value* y = graph.find_value(node.outputs[0]);
    if (scale == nullptr || zp == nullptr || y == nullptr || scale->data.empty()) continue;
    OutputQuant q;
    q.quantize = &node;
    q.dtype = y->dtype;
    q.scale.assign(scale->data.begin(), scale->data.end());
    q.zero_point = zp->int_data;
    if (q.zero_point.empty()) q.zero_point.assign(q.scale.size(), 0);
    if (auto it = node.attributes.find("axis"); it != node.attributes.end()) {
      if (const auto* a = std::get_if<std::int64_t>(&it->second)) q.axis = *a;
    }
    out[node.debug_handle] = std::move(q);  // The last quantize of the handle.
  }
  return out;
}

std::size_t channel_of(std::size_t i, const std::vector<std::int64_t>& sizes, std::int64_t axis) {
  const auto rank = static_cast<std::int64_t>(sizes.size());
  if (rank == 0) return 0;
  const std::int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) return 0;
  std::int64_t inner = 1;
  for (std::int64_t d = a + 1; d < rank; ++d) inner *= sizes[static_cast<std::size_t>(d)];
  const std::int64_t dim = sizes[static_cast<std::size_t>(a)];
  return dim == 0 ? 0 : static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % dim);
}

void dequantize_in_place(std::vector<double>* values, const std::vector<std::int64_t>& sizes,
                         const OutputQuant& q) {
  std::vector<double>& v = *values;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::size_t c = q.scale.size() == 1 ? 0 : channel_of(i, sizes, q.axis);
    if (c >= q.scale.size() || c >= q.zero_point.size()) continue;
    // In float32, as dequantize_linear computes the simulation's values.
    v[i] = static_cast<float>(v[i] - static_cast<double>(q.zero_point[c])) *
           static_cast<float>(q.scale[c]);
  }
}

}  // namespace glassbox::inspector
