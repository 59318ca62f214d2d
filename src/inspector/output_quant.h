#pragma once
// Private: the output quantization of each quantized source op (its
// quantize_linear's scale and zero point, kept in the ETRecord's edge
// graph), and the dequantization of what an int8 delegate logged. Shared
// by the numeric comparison (numeric.cc), which compares int8 outputs in
// float units, and the quant view (quant.cc).

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/scalar_type.h"

namespace glassbox::inspector {

struct OutputQuant {
  const aot::Node* quantize = nullptr;
  ScalarType dtype = ScalarType::kChar;
  std::vector<double> scale;
  std::vector<std::int64_t> zero_point;
  std::int64_t axis = 1;
};

/// Per debug handle, the quantization of its op's output: that of the
/// handle's last quantize_linear whose scale the graph keeps.
std::map<DebugHandle, OutputQuant> output_quantization(const aot::Graph& graph);

/// Index of element `i` along `axis` of `sizes` (for per-axis parameters).
std::size_t channel_of(std::size_t i, const std::vector<std::int64_t>& sizes, std::int64_t axis);

/// Whether a logged tensor of this type holds quantized codes.
inline bool is_quantized_type(ScalarType t) {
  return t == ScalarType::kChar || t == ScalarType::kByte;
}

/// `values` (codes of a tensor of `sizes`) as dequantize_linear computes
/// them, in float32: (code - zero_point) * scale, per axis where `q` is.
void dequantize_in_place(std::vector<double>* values, const std::vector<std::int64_t>& sizes,
                         const OutputQuant& q);

}  // namespace glassbox::inspector
