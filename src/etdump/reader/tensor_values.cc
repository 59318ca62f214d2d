#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::etdump {
namespace {

Status corrupt(std::string message) { return Status(Error::kCorruptData, std::move(message)); }

// Well-formed metadata whose data the debug data does not hold: a short
// debug-data file, or another run's.
Status outside(std::string message) { return Status(Error::kMismatch, std::move(message)); }

template <typename T>
T load(const std::uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// IEEE 754 binary16 to double, including subnormals, infinities and NaN.
double half_to_double(std::uint16_t bits) {
  const int sign = (bits >> 15) != 0 ? -1 : 1;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 0x1f) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

// bfloat16 is the top half of a float.
double bfloat16_to_double(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

double decode_element(ScalarType type, const std::uint8_t* p) {
  switch (type) {
    case ScalarType::kByte: return load<std::uint8_t>(p);
    case ScalarType::kChar: return load<std::int8_t>(p);
    case ScalarType::kShort: return load<std::int16_t>(p);
    case ScalarType::kInt: return load<std::int32_t>(p);
    case ScalarType::kLong: return static_cast<double>(load<std::int64_t>(p));
    case ScalarType::kHalf: return half_to_double(load<std::uint16_t>(p));
    case ScalarType::kBFloat16: return bfloat16_to_double(load<std::uint16_t>(p));
    case ScalarType::kFloat: return load<float>(p);
    case ScalarType::kDouble: return load<double>(p);
    case ScalarType::kBool: return load<std::uint8_t>(p) != 0 ? 1.0 : 0.0;
    case ScalarType::kUInt16: return load<std::uint16_t>(p);
    case ScalarType::kUInt32: return load<std::uint32_t>(p);
    case ScalarType::kUInt64: return static_cast<double>(load<std::uint64_t>(p));
    default: return 0;  // unreachable: is_decodable() filters
  }
}

bool is_decodable(ScalarType type) {
  switch (type) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
    case ScalarType::kLong:
    case ScalarType::kHalf:
    case ScalarType::kBFloat16:
    case ScalarType::kFloat:
    case ScalarType::kDouble:
    case ScalarType::kBool:
    case ScalarType::kUInt16:
    case ScalarType::kUInt32:
    case ScalarType::kUInt64: return true;
    default: return false;
  }
}

}  // namespace

StatusOr<std::vector<double>> read_tensor_values(const Tensor& tensor,
                                                 std::span<const std::uint8_t> debug_data) {
  if (tensor.offset == -1) {
    // A tensor of no elements (a value sized by data that found nothing)
    // has no bytes, and the writer gives it no offset (ExecuTorch's
    // convention): its values are known, there are none.
    if (std::find(tensor.sizes.begin(), tensor.sizes.end(), 0) != tensor.sizes.end()) {
      return std::vector<double>{};
    }
    return Status(Error::kNotFound, "tensor has no data (offset -1)");
  }
  const std::optional<ScalarType> type = tensor.known_scalar_type();
  if (!type || !is_decodable(*type)) {
    const std::string name = type ? std::string(to_string(*type))
                                  : "unknown scalar type " + std::to_string(tensor.scalar_type);
    return Status(Error::kNotSupported, "cannot decode tensor data of " + name);
  }
  if (tensor.offset < 0) {
    return corrupt("tensor data offset " + std::to_string(tensor.offset) + " is negative");
  }
  const std::size_t rank = tensor.sizes.size();
  if (!tensor.strides.empty() && tensor.strides.size() != rank) {
    return corrupt("tensor has " + std::to_string(rank) + " sizes but " +
                   std::to_string(tensor.strides.size()) + " strides");
  }

  // Contiguous (row-major) strides when the file gives none.
  std::vector<std::int64_t> strides = tensor.strides;
  std::int64_t numel = 1;
  if (strides.empty()) {
    strides.assign(rank, 0);
    for (std::size_t d = rank; d-- > 0;) {
      strides[d] = numel;
      if (__builtin_mul_overflow(numel, tensor.sizes[d], &numel)) numel = -1;
      if (numel < 0) break;  // reported below
    }
  }
  // Element count, and the lowest and highest element index touched: the
  // data must lie inside debug_data, checked once before any element read.
  numel = 1;
  std::int64_t lowest = 0;
  std::int64_t highest = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t size = tensor.sizes[d];
    if (size < 0) {
      return corrupt("tensor size " + std::to_string(size) + " is negative");
    }
    std::int64_t reach = 0;
    if (__builtin_mul_overflow(numel, size, &numel) ||
        (size > 0 && __builtin_mul_overflow(size - 1, strides[d], &reach)) ||
        __builtin_add_overflow(reach > 0 ? highest : lowest, reach,
                               reach > 0 ? &highest : &lowest)) {
      return corrupt("tensor sizes and strides overflow");
    }
  }
  if (numel == 0) return std::vector<double>();
  // A tensor with more elements than the debug data has bytes is bogus
  // (only broadcast strides could do it, and sinks write contiguous data);
  // refusing it keeps a corrupt file from asking for a huge allocation.
  if (static_cast<std::uint64_t>(numel) > debug_data.size()) {
    return outside("tensor has " + std::to_string(numel) +
                   " elements, more than the debug data's " + std::to_string(debug_data.size()) +
                   " bytes could hold");
  }
  const auto element = static_cast<std::int64_t>(element_size(*type));
  std::int64_t first_byte = 0;
  std::int64_t end_byte = 0;
  const bool overflow = __builtin_mul_overflow(lowest, element, &first_byte) ||
                        __builtin_add_overflow(first_byte, tensor.offset, &first_byte) ||
                        __builtin_add_overflow(highest, 1, &end_byte) ||
                        __builtin_mul_overflow(end_byte, element, &end_byte) ||
                        __builtin_add_overflow(end_byte, tensor.offset, &end_byte);
  if (!overflow && first_byte < 0) return corrupt("tensor strides reach before its offset");
  if (overflow || static_cast<std::uint64_t>(end_byte) > debug_data.size()) {
    return outside("tensor data at offset " + std::to_string(tensor.offset) +
                   " lies outside the debug data (" + std::to_string(debug_data.size()) +
                   " bytes)");
  }

  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(numel));
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t n = 0; n < numel; ++n) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < rank; ++d) at += index[d] * strides[d];
    values.push_back(decode_element(*type, debug_data.data() + tensor.offset + at * element));
    // Advance the row-major index, last dimension fastest.
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < tensor.sizes[d]) break;
      index[d] = 0;
    }
  }
  return values;
}

}  // namespace glassbox::etdump
