#pragma once
/// @file
/// Host-side model of the demo backend's processed bytes (demo_format.h):
/// the AOT half encodes it; tests and tools decode it to check what a
/// preprocess call produced.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/demo/demo_format.h"
#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/core/status.h"

namespace glassbox::backends::demo {

/// conv2d parameters, carried so the runtime half can compute the op.
struct DemoConvParams {
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> padding{0, 0};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
  std::array<std::int64_t, 4> weight_shape{};  ///< O, C/groups, kH, kW.
  std::vector<float> weight;                   ///< OIHW, row-major.
  std::vector<float> bias;                     ///< Empty, or O values.
  friend bool operator==(const DemoConvParams&, const DemoConvParams&) = default;
};

struct DemoOp {
  DemoOpKind kind = DemoOpKind::kRelu;
  aot::DelegateDebugIdentifier identifier;
  std::vector<std::uint32_t> operand_slots;
  DemoConvParams conv;  ///< Used by kConv and kConvRelu only.
  friend bool operator==(const DemoOp&, const DemoOp&) = default;
};

struct DemoProgram {
  std::uint32_t input_count = 0;
  std::vector<DemoOp> ops;
  std::vector<std::uint32_t> output_slots;
  friend bool operator==(const DemoProgram&, const DemoProgram&) = default;
};

/// The processed bytes for `program`.
std::vector<std::uint8_t> encode_demo_program(const DemoProgram& program);

/// Parses and checks processed bytes: magic, version, lengths, op kinds,
/// operand counts, slots (each op may read only slots written before it),
/// and conv parameter sizes. Errors: kCorruptData, or kVersionMismatch.
StatusOr<DemoProgram> decode_demo_program(std::span<const std::uint8_t> bytes);

}  // namespace glassbox::backends::demo
