#pragma once
/// @file
/// Element types, numbered exactly as ExecuTorch's `ScalarType` so that the
/// value written into an ETDump `Tensor.scalar_type` is the same byte.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace glassbox {

enum class ScalarType : std::int8_t {
  kByte = 0,
  kChar = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kHalf = 5,
  kFloat = 6,
  kDouble = 7,
  kBool = 11,
  kQInt8 = 12,
  kQUInt8 = 13,
  kQInt32 = 14,
  kBFloat16 = 15,
  kQUInt4x2 = 16,
  kQUInt2x4 = 17,
  kBits16 = 22,
  kFloat8_e5m2 = 23,
  kFloat8_e4m3fn = 24,
  kFloat8_e5m2fnuz = 25,
  kFloat8_e4m3fnuz = 26,
  kUInt16 = 27,
  kUInt32 = 28,
  kUInt64 = 29,
};

/// Bytes per element; 0 for a value that is not a known ScalarType.
/// Sub-byte packed types (QUInt4x2, QUInt2x4) pack into one byte.
constexpr std::size_t element_size(ScalarType type) {
  switch (type) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kBool:
    case ScalarType::kQInt8:
    case ScalarType::kQUInt8:
    case ScalarType::kQUInt4x2:
    case ScalarType::kQUInt2x4:
    case ScalarType::kFloat8_e5m2:
    case ScalarType::kFloat8_e4m3fn:
    case ScalarType::kFloat8_e5m2fnuz:
    case ScalarType::kFloat8_e4m3fnuz: return 1;
    case ScalarType::kShort:
    case ScalarType::kHalf:
    case ScalarType::kBFloat16:
    case ScalarType::kBits16:
    case ScalarType::kUInt16: return 2;
    case ScalarType::kInt:
    case ScalarType::kFloat:
    case ScalarType::kQInt32:
    case ScalarType::kUInt32: return 4;
    case ScalarType::kLong:
    case ScalarType::kDouble:
    case ScalarType::kUInt64: return 8;
  }
  return 0;
}

/// The schema's enumerator name ("FLOAT", "LONG", ...), or "" if unknown.
constexpr std::string_view to_string(ScalarType type) {
  switch (type) {
    case ScalarType::kByte: return "BYTE";
    case ScalarType::kChar: return "CHAR";
    case ScalarType::kShort: return "SHORT";
    case ScalarType::kInt: return "INT";
    case ScalarType::kLong: return "LONG";
    case ScalarType::kHalf: return "HALF";
    case ScalarType::kFloat: return "FLOAT";
    case ScalarType::kDouble: return "DOUBLE";
    case ScalarType::kBool: return "BOOL";
    case ScalarType::kQInt8: return "QINT8";
    case ScalarType::kQUInt8: return "QUINT8";
    case ScalarType::kQInt32: return "QINT32";
    case ScalarType::kBFloat16: return "BFLOAT16";
    case ScalarType::kQUInt4x2: return "QUINT4X2";
    case ScalarType::kQUInt2x4: return "QUINT2X4";
    case ScalarType::kBits16: return "BITS16";
    case ScalarType::kFloat8_e5m2: return "FLOAT8E5M2";
    case ScalarType::kFloat8_e4m3fn: return "FLOAT8E4M3FN";
    case ScalarType::kFloat8_e5m2fnuz: return "FLOAT8E5M2FNUZ";
    case ScalarType::kFloat8_e4m3fnuz: return "FLOAT8E4M3FNUZ";
    case ScalarType::kUInt16: return "UINT16";
    case ScalarType::kUInt32: return "UINT32";
    case ScalarType::kUInt64: return "UINT64";
  }
  return "";
}

}  // namespace glassbox
