#pragma once
// Host-side tensors: initializers, Constant nodes and everything folded
// from them, decoded from onnx::TensorProto.

#include <cstdint>
#include <string>
#include <vector>

#include "glassbox/core/scalar_type.h"
#include "glassbox/core/status.h"

namespace onnx {
class TensorProto;
}

namespace glassbox::frontends::onnx {

/// Float data (float32/float64/float16 decoded to float) or integer data
/// (int64/int32/int16/int8/uint8/bool decoded to int64). Shape arithmetic
/// needs exact int64; at run time tensors are FLOAT, LONG or BOOL.
struct HostTensor {
  bool is_float = true;
  std::vector<std::int64_t> shape;
  std::vector<float> floats;       ///< When is_float.
  std::vector<std::int64_t> ints;  ///< When !is_float.
  /// An integer tensor that holds ONNX BOOL values (0 or 1); at run time
  /// it is a BOOL tensor, other integers are LONG.
  bool is_bool = false;
  /// Integer tensors: the element type ONNX declared, as a runtime dtype
  /// (CHAR for INT8, BYTE for UINT8, INT for INT32, SHORT for INT16, LONG
  /// for INT64). Quantization reads it (a zero point's type is the
  /// quantized type); every other use sees dtype().
  ScalarType declared_int_type = ScalarType::kLong;

  /// The runtime dtype this tensor becomes: FLOAT, BOOL or LONG.
  ScalarType dtype() const {
    return is_float ? ScalarType::kFloat : is_bool ? ScalarType::kBool : ScalarType::kLong;
  }

  std::int64_t numel() const;
  /// Element i as a double, whatever the kind.
  double as_double(std::size_t i) const;
  /// Element i as an int64 (floats truncated).
  std::int64_t as_int(std::size_t i) const;

  static HostTensor of_floats(std::vector<std::int64_t> shape, std::vector<float> data);
  static HostTensor of_ints(std::vector<std::int64_t> shape, std::vector<std::int64_t> data);
};

/// Decodes `proto`. `what` names it in errors ("initializer 'fc.weight'").
/// Rejects external data, strings, complex and segments with
/// kNotSupported; inconsistent sizes with kCorruptData.
StatusOr<HostTensor> decode_tensor(const ::onnx::TensorProto& proto, const std::string& what);

/// ONNX's name for a TensorProto::DataType value ("FLOAT", "INT64", ...).
std::string data_type_name(int data_type);

/// Whether the importer decodes `data_type` as float (FLOAT, DOUBLE,
/// FLOAT16) or int (INT*, UINT8, BOOL); others are unsupported.
bool is_float_type(int data_type);
bool is_int_type(int data_type);

}  // namespace glassbox::frontends::onnx
