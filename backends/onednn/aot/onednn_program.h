#pragma once
/// @file
/// Host-side model of the oneDNN backend's processed bytes
/// (onednn_format.h) and its encoder. The AOT half fills a DnnProgram and
/// encodes it; the runtime half parses the bytes itself (device code).

#include <cstdint>
#include <vector>

#include "backends/onednn/onednn_format.h"
#include "glassbox/aot/debug_handle_map.h"

namespace glassbox::backends::onednn {

/// A tensor's data type and, for s8 and u8, its quantization.
struct DnnQuant {
  DnnDataType type = DnnDataType::kF32;
  float scale = 1.f;
  std::int32_t zero_point = 0;
  friend bool operator==(const DnnQuant&, const DnnQuant&) = default;
};

/// One constant slot: logical dims and row-major data (`data` for f32,
/// `int_data` for s8, u8 and s32).
struct DnnConstant {
  std::vector<std::int64_t> dims;
  std::vector<float> data;
  DnnQuant quant{};
  std::vector<std::int32_t> int_data{};
  friend bool operator==(const DnnConstant&, const DnnConstant&) = default;
};

/// One operator, its ints and floats exactly as the format lists them.
struct DnnOp {
  DnnOpKind kind = DnnOpKind::kReshape;
  aot::DelegateDebugIdentifier identifier;
  std::vector<std::uint32_t> operands;
  std::vector<std::int64_t> output;
  std::vector<std::int64_t> ints;
  std::vector<float> floats;
  /// The output's data type and quantization.
  DnnQuant quant{};
  friend bool operator==(const DnnOp&, const DnnOp&) = default;
};

/// Slots: the inputs, then the constants, then one per operator.
struct DnnProgram {
  std::vector<std::vector<std::int64_t>> inputs;
  /// Per input, its data type (empty: all f32).
  std::vector<DnnQuant> input_quants;
  std::vector<DnnConstant> constants;
  std::vector<DnnOp> ops;
  std::vector<std::uint32_t> outputs;
  friend bool operator==(const DnnProgram&, const DnnProgram&) = default;
};

/// The processed bytes for `program` (no validation: the lowering builds
/// consistent programs, and the runtime validates everything it reads).
std::vector<std::uint8_t> encode_dnn_program(const DnnProgram& program);

}  // namespace glassbox::backends::onednn
