#include "frontends/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

namespace glassbox::frontends::onnx {
namespace {

using ::onnx::TensorProto;

Status corrupt(const std::string& what, const std::string& problem) {
  return Status(Error::kCorruptData, what + ": " + problem);
}

// Copies `count` little-endian elements of T out of raw_data.
template <typename T, typename Out>
void unpack_raw(const std::string& raw, std::size_t count, std::vector<Out>* out) {
  out->resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    (*out)[i] = static_cast<Out>(v);
  }
}

template <typename Out, typename Field>
void copy_field(const Field& field, std::vector<Out>* out) {
  out->assign(field.begin(), field.end());
}

std::size_t element_size(int data_type) {
  switch (data_type) {
    case TensorProto::FLOAT: return 4;
    case TensorProto::DOUBLE: return 8;
    case TensorProto::INT64: return 8;
    case TensorProto::INT32: return 4;
    case TensorProto::INT16: return 2;
    case TensorProto::INT8: return 1;
    case TensorProto::UINT8: return 1;
    case TensorProto::BOOL: return 1;
    default: return 0;
  }
}

ScalarType declared_int_type(int t) {
  switch (t) {
    case TensorProto::INT8: return ScalarType::kChar;
    case TensorProto::UINT8: return ScalarType::kByte;
    case TensorProto::INT16: return ScalarType::kShort;
    case TensorProto::INT32: return ScalarType::kInt;
    case TensorProto::BOOL: return ScalarType::kBool;
    default: return ScalarType::kLong;
  }
}

// The values an integer element type holds (BOOL: 0 and 1 after decoding).
std::pair<std::int64_t, std::int64_t> int_range(int t) {
  switch (t) {
    case TensorProto::INT8: return {-128, 127};
    case TensorProto::UINT8: return {0, 255};
    case TensorProto::INT16: return {-32768, 32767};
    case TensorProto::INT32: return {INT32_MIN, INT32_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

}  // namespace

std::int64_t HostTensor::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

double HostTensor::as_double(std::size_t i) const {
  return is_float ? static_cast<double>(floats[i]) : static_cast<double>(ints[i]);
}

std::int64_t HostTensor::as_int(std::size_t i) const {
  if (!is_float) return ints[i];
  const float f = floats[i];
  // Saturate rather than convert out of range (undefined behaviour).
  if (!(f > -9.2e18f)) return std::numeric_limits<std::int64_t>::min();
  if (!(f < 9.2e18f)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(f);
}

HostTensor HostTensor::of_floats(std::vector<std::int64_t> shape, std::vector<float> data) {
  HostTensor t;
  t.is_float = true;
  t.shape = std::move(shape);
  t.floats = std::move(data);
  return t;
}

HostTensor HostTensor::of_ints(std::vector<std::int64_t> shape, std::vector<std::int64_t> data) {
  HostTensor t;
  t.is_float = false;
  t.shape = std::move(shape);
  t.ints = std::move(data);
  return t;
}

std::string data_type_name(int data_type) {
  if (TensorProto::DataType_IsValid(data_type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(data_type));
  }
  return "data type " + std::to_string(data_type);
}

bool is_float_type(int t) { return t == TensorProto::FLOAT || t == TensorProto::DOUBLE; }

bool is_int_type(int t) {
  return t == TensorProto::INT64 || t == TensorProto::INT32 || t == TensorProto::INT16 ||
         t == TensorProto::INT8 || t == TensorProto::UINT8 || t == TensorProto::BOOL;
}

StatusOr<HostTensor> decode_tensor(const TensorProto& proto, const std::string& what) {
  if (proto.data_location() == TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    return Status(Error::kNotSupported, what +
                                            ": external data is not supported (save the model with "
                                            "its weights inside the .onnx file)");
  }
  if (proto.has_segment()) {
    return Status(Error::kNotSupported, what + ": segmented tensors are not supported");
  }
  const int type = proto.data_type();
  if (!is_float_type(type) && !is_int_type(type)) {
    return Status(Error::kNotSupported, what + ": element type " + data_type_name(type) +
                                            " is not supported (float or integer only)");
  }
  HostTensor t;
  t.is_float = is_float_type(type);
  t.is_bool = type == TensorProto::BOOL;
  t.declared_int_type = declared_int_type(type);
  std::size_t numel = 1;
  for (std::int64_t d : proto.dims()) {
    if (d < 0) return corrupt(what, "negative dimension " + std::to_string(d));
    if (__builtin_mul_overflow(numel, static_cast<std::size_t>(d), &numel)) {
      return corrupt(what, "dimensions overflow");
    }
    t.shape.push_back(d);
  }

  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    const std::size_t size = element_size(type);
    std::size_t bytes = 0;
    if (__builtin_mul_overflow(numel, size, &bytes) || raw.size() != bytes) {
      return corrupt(what, "raw_data has " + std::to_string(raw.size()) + " bytes for " +
                               std::to_string(numel) + " elements of " + data_type_name(type));
    }
    switch (type) {
      case TensorProto::FLOAT: unpack_raw<float>(raw, numel, &t.floats); break;
      case TensorProto::DOUBLE: unpack_raw<double>(raw, numel, &t.floats); break;
      case TensorProto::INT64: unpack_raw<std::int64_t>(raw, numel, &t.ints); break;
      case TensorProto::INT32: unpack_raw<std::int32_t>(raw, numel, &t.ints); break;
      case TensorProto::INT16: unpack_raw<std::int16_t>(raw, numel, &t.ints); break;
      case TensorProto::INT8: unpack_raw<std::int8_t>(raw, numel, &t.ints); break;
      default: unpack_raw<std::uint8_t>(raw, numel, &t.ints); break;  // UINT8, BOOL
    }
    if (t.is_bool) {
      for (std::int64_t& b : t.ints) b = b != 0 ? 1 : 0;
    }
    return t;
  }

  std::size_t stored = 0;
  switch (type) {
    case TensorProto::FLOAT:
      copy_field(proto.float_data(), &t.floats);
      stored = t.floats.size();
      break;
    case TensorProto::DOUBLE:
      copy_field(proto.double_data(), &t.floats);
      stored = t.floats.size();
      break;
    case TensorProto::INT64:
      copy_field(proto.int64_data(), &t.ints);
      stored = t.ints.size();
      break;
    default:
      copy_field(proto.int32_data(), &t.ints);
      stored = t.ints.size();
      break;
  }
  if (stored != numel) {
    return corrupt(
        what, std::to_string(stored) + " elements stored for shape with " + std::to_string(numel));
  }
  // int32_data holds the narrow types widened: a value their type cannot
  // hold is a damaged tensor, not one to wrap silently.
  const auto [low, high] = int_range(type);
  for (std::size_t i = 0; i < t.ints.size(); ++i) {
    if (t.ints[i] < low || t.ints[i] > high) {
      return corrupt(what, "element " + std::to_string(i) + " is " + std::to_string(t.ints[i]) +
                               ", outside " + data_type_name(type) + "'s range");
    }
  }
  return t;
}

}  // namespace glassbox::frontends::onnx
